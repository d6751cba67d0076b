"""The erc20 module's own EVM calls (Evmos' CallEVM): an ERC-20's balanceOf, transfer, name, symbol, decimals."""

from eth.vm.message import Message
from eth_abi import decode as abi_decode
from eth_abi import encode as abi_encode
from eth_abi.exceptions import DecodingError
from eth_utils import keccak

from chaind.chain import errors
from chaind.chain.modules.erc20.keeper import CODESPACE, MODULE_ADDRESS, abi_unpack, unexpected_event, vm_execution
from chaind.chain.modules.evm.vm import vm_error
from chaind.chain.msgs import MSG_GAS
from chaind.crypto.addresses import checksum_address

# The gas the module's own EVM calls of one message may use together (an ERC-20's balanceOf, transfer,
# name ...): Evmos estimates each call under a 25M cap; a fixed budget keeps a hostile token's work
# bounded, and the message is charged the whole budget on top of the flat per-message gas.
EVM_CALL_BUDGET = 100_000
EVM_MSG_GAS = MSG_GAS + EVM_CALL_BUDGET

_APPROVAL_TOPIC = keccak(b"Approval(address,address,uint256)")
_SEL_NAME, _SEL_SYMBOL, _SEL_DECIMALS = (keccak(s)[:4] for s in (b"name()", b"symbol()", b"decimals()"))
_SEL_BALANCE_OF = keccak(b"balanceOf(address)")[:4]
_SEL_TRANSFER = keccak(b"transfer(address,uint256)")[:4]


class CallBudget:
    """The gas one message's EVM calls share (EVM_CALL_BUDGET)."""

    def __init__(self):
        self.left = EVM_CALL_BUDGET


def call_evm(ctx, budget, sender, contract, data, commit, method):
    """Run one call on the block's EVM state; returns the computation of a successful call.

    commit=False is a query: whatever it changed is undone. A failed call raises x/evm's
    ErrVMExecution, wrapped as Evmos' CallEVM wraps it.
    """
    state = ctx.accounts
    snapshot = state.snapshot()
    message = Message(gas=budget.left, to=contract, sender=sender, value=0, data=data,
                      code=state.get_code(contract))
    context = state.get_transaction_context_class()(gas_price=0, origin=sender)
    try:
        computation = state.computation_class.apply_message(state, message, context)
    except Exception:
        state.revert(snapshot)
        raise
    if commit and not computation.is_error:
        state.commit(snapshot)
    else:
        state.revert(snapshot)
    # Transient storage lives for one EVM tx; each of these calls is one.
    state.clear_transient_storage()
    budget.left = computation.get_gas_remaining()
    if computation.is_error:
        error = vm_execution(vm_error(computation))
        raise errors.TxError(error.codespace, error.code, f"contract call failed: method '{method}', contract "
                             f"'{checksum_address(contract)}': {error.log}")
    return computation


def balance_of(ctx, budget, contract, account):
    computation = call_evm(ctx, budget, MODULE_ADDRESS, contract, _SEL_BALANCE_OF + abi_encode(["address"], [account]),
                            False, "balanceOf")
    try:
        return abi_decode(["uint256"], computation.output)[0]
    except DecodingError as e:
        raise errors.TxError(CODESPACE, 12, f"failed to retrieve balance: {e}: EVM call unexpected error") from None


def transfer(ctx, budget, sender, contract, recipient, amount):
    """ERC-20 transfer(recipient, amount) from `sender`, committed; returns the computation."""
    data = _SEL_TRANSFER + abi_encode(["address", "uint256"], [recipient, amount])
    computation = call_evm(ctx, budget, sender, contract, data, True, "transfer")
    try:
        ok = abi_decode(["bool"], computation.output)[0]
    except DecodingError as e:
        raise abi_unpack(f"failed to unpack transfer result: {e}") from None
    if not ok:
        raise errors.TxError(errors.SDK, 17, "failed to execute transfer: internal logic error")
    return computation


def check_no_approval(computation):
    """Evmos' monitorApprovalEvent: a conversion's transfer must not also approve anything."""
    for _, topics, _ in computation.get_log_entries():
        if topics and topics[0].to_bytes(32, "big") == _APPROVAL_TOPIC:
            raise unexpected_event("unexpected Approval event")


def query_erc20(ctx, budget, contract):
    """(name, symbol, decimals) of an ERC-20 contract (Evmos' QueryERC20)."""
    out = []
    for selector, method, kind in ((_SEL_NAME, "name", "string"), (_SEL_SYMBOL, "symbol", "string"),
                                   (_SEL_DECIMALS, "decimals", "uint8")):
        computation = call_evm(ctx, budget, MODULE_ADDRESS, contract, selector, False, method)
        try:
            out.append(abi_decode([kind], computation.output)[0])
        except (DecodingError, ValueError, OverflowError) as e:
            raise abi_unpack(f"failed to unpack {method}: {e}") from None
    return tuple(out)
