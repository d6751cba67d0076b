"""The WERC20 of a native precompile (cosmos/evm's precompiles/werc20, Evmos' WEVMOS): the ERC-20 of a pair listed in
erc20's native_precompiles, with WETH's deposit() (also its receive and fallback) and withdraw(uint256) on top.

As upstream, nothing is wrapped: the EVM coin is its own ERC-20 balance. deposit() hands the value the call moved to
the precompile straight back to the caller by a bank send, and logs Deposit; withdraw(wad) checks the caller's
spendable balance and logs Withdrawal, moving nothing. Every other selector is a call to the fallback, hence a
deposit, as cosmos/evm's SetupABI resolves an unknown method id on an ABI with a fallback. Gas: cosmos/evm's
RequiredGas of each (a deposit through an unknown selector, which upstream charges nothing but the store's KV gas,
costs a deposit's here, as this ERC-20 meters no store access).
"""

import functools

from eth.exceptions import Revert
from eth_abi import decode as abi_decode
from eth_abi import encode as abi_encode
from eth_abi.exceptions import DecodingError
from eth_utils import keccak

from chaind.chain.block import event
from chaind.chain.modules.erc20 import keeper as erc20
from chaind.chain.modules.erc20.precompile import _ERROR_SELECTOR, EvmNative, Frame
from chaind.chain.modules.erc20.precompile import run as erc20_run
from chaind.pb.evmos.erc20.v1 import genesis_pb2

DEPOSIT_GAS = 23_878        # cosmos/evm's DepositRequiredGas
WITHDRAW_GAS = 9_207        # and WithdrawRequiredGas
DEPOSIT_SELECTOR = keccak(b"deposit()")[:4]
WITHDRAW_SELECTOR = keccak(b"withdraw(uint256)")[:4]
DEPOSIT_TOPIC = keccak(b"Deposit(address,uint256)")
WITHDRAWAL_TOPIC = keccak(b"Withdrawal(address,uint256)")
# The ERC-20 methods of IWERC20 (IERC20Metadata's: increaseAllowance and decreaseAllowance are not among them).
ERC20_SELECTORS = frozenset(keccak(s.encode())[:4] for s in (
    "name()", "symbol()", "decimals()", "totalSupply()", "balanceOf(address)", "allowance(address,address)",
    "transfer(address,uint256)", "transferFrom(address,address,uint256)", "approve(address,uint256)"))


class WrappingNative(EvmNative):
    """EvmNative whose native precompiles (erc20 params' native_precompiles) are WERC20s."""

    def precompile(self, address):
        found = super().precompile(address)
        if found is None or address not in native_addresses(self.store.get(erc20.PARAMS_KEY) or b""):
            return found
        return functools.partial(run, found.args[0])


@functools.lru_cache(maxsize=16)
def native_addresses(raw):
    """The 20-byte native precompile addresses of the erc20 params record `raw`."""
    params = genesis_pb2.Params()
    params.ParseFromString(raw)
    return frozenset(erc20.hex_bytes(a) for a in params.native_precompiles)


def open_state(app, store, state_class, *args, time_ns=None):
    """A state of `state_class` (NativeState or a subclass) whose precompiles see `store` (at `time_ns`)."""
    state = state_class(*args)
    state.native = WrappingNative(app, store, time_ns)
    return state


def run(pair, computation):
    """Answer one call to a WERC20 (py-evm's precompile signature): deposit, withdraw or the fallback here, the
    ERC-20's methods by the pair's ERC-20."""
    data = bytes(computation.msg.data)
    selector = data[:4]
    if selector == WITHDRAW_SELECTOR:
        computation.consume_gas(WITHDRAW_GAS, reason="WERC20 precompile withdraw")
        _guarded(computation, _withdraw, data)
    elif selector in ERC20_SELECTORS:
        erc20_run(pair, computation)
    else:
        computation.consume_gas(DEPOSIT_GAS, reason="WERC20 precompile deposit")
        _guarded(computation, _deposit, data)
    return computation


class _Failure(Exception):
    pass


def _guarded(computation, handler, data):
    """Run a WERC20 method; a failure reverts with its Error(string), as cosmos/evm's ReturnRevertError."""
    msg = computation.msg
    try:
        if msg.is_static:
            raise _Failure("write protection")
        if msg.storage_address != msg.code_address:
            raise _Failure("the ERC-20 precompile cannot be run by DELEGATECALL or CALLCODE")
        handler(computation, data)
    except _Failure as e:
        reason = str(e)
        computation.output = _ERROR_SELECTOR + abi_encode(["string"], [reason])
        raise Revert(reason) from None


def _deposit(computation, data):
    """The value the call moved here goes back to the caller by a bank send (whose events the tx gets, as the
    SDK's SendCoins emits them, amount empty for a zero deposit); Deposit(caller, value)."""
    native = computation.state.native
    frame = Frame(native, computation.state)
    msg = computation.msg
    here, caller = msg.code_address, msg.sender
    coins = [(native.bank.base_denom, msg.value)] if msg.value else []
    native.bank.auth.ensure_account(frame, caller)
    emitted = native.bank.send(frame, here, caller, coins)
    emitted.append(event("message", ("sender", native.bank.bech32(here))))
    native.events += emitted
    _log(computation, DEPOSIT_TOPIC, caller, msg.value)


def _withdraw(computation, data):
    """Nothing moves (the coin is its own ERC-20): the caller's spendable EVM coin must cover `wad`; Withdrawal."""
    msg = computation.msg
    if msg.value:
        raise _Failure(f"cannot receive funds, received: {msg.value}")      # as the pair's ERC-20 answers
    try:
        (amount,) = abi_decode(["uint256"], data[4:])
    except (DecodingError, ValueError) as e:
        raise _Failure(f"invalid arguments for withdraw: {e}") from None
    native = computation.state.native
    frame = Frame(native, computation.state)
    now = native.time_ns // 10**9 if native.time_ns is not None else computation.state.execution_context.timestamp
    balance = native.bank.spendable(frame, msg.sender, native.bank.base_denom, now)
    if balance < amount:
        raise _Failure(f"account balance {balance} is lower than withdraw balance {amount}")
    _log(computation, WITHDRAWAL_TOPIC, msg.sender, amount)


def _log(computation, topic, address, amount):
    computation.add_log_entry(computation.msg.code_address,
                              (int.from_bytes(topic, "big"), int.from_bytes(address, "big")),
                              amount.to_bytes(32, "big"))
