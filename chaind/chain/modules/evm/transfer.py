"""A plain value transfer (no data, no access list, to an account without code that is no precompile) applied as
py-evm's Prague executor applies it, without building its message and computation: py-evm's own validation, then
the same state changes in the same order, and a stand-in for what deliver reads of the computation.
"""

from chaind.chain.modules.evm.state import is_precompile

TRANSFER_GAS = 21000        # a call's intrinsic gas with no data and no access list (and EIP-7623's floor for it)


class Transferred:
    """What deliver and VM.finalize_gas_used read of py-evm's computation, for a transfer that ran."""

    is_error = False
    error = None
    output = b""
    data_floor_gas = 0

    def __init__(self, gas_remaining):
        self._gas_remaining = gas_remaining

    def get_gas_remaining(self):
        return self._gas_remaining

    def get_gas_refund(self):
        return 0

    def get_log_entries(self):
        return ()


def applies(state, tx):
    """Whether `tx` (an EvmTx) is a plain transfer py-evm would run without any code."""
    evm = tx.evm
    return (tx.type_id in (0, 1, 2) and evm.to and not evm.data and not getattr(evm, "access_list", ())
            and not tx.impersonated and not is_precompile(state, evm.to) and not state.get_code(evm.to))


def apply(state, evm):
    """Run the transfer `evm` (a py-evm signed tx that applies(), so decoded and validated as an EvmTx);
    ValidationError as py-evm raises it."""
    # The executor's validation is evm.validate(), then the state's: the first, a pure function of the signed tx,
    # passed when the tx was decoded (txs.wrap_evm), and the tx does not change.
    state.validate_transaction(evm)
    sender, to = evm.sender, evm.to
    price = state.get_gas_price(evm)
    # build_evm_message: the whole gas paid up front, the nonce used.
    state.delta_balance(sender, -evm.gas * price)
    state.increment_nonce(sender)
    # apply_message: the value moves and the recipient is touched; no code runs.
    if evm.value:
        state.delta_balance(sender, -evm.value)
        state.delta_balance(to, evm.value)
    state.touch_account(to)
    # finalize_computation: the unused gas back, the tip to the coinbase (touched even when zero), then EIP-161's
    # clearing of the touched accounts left empty.
    remaining = evm.gas - TRANSFER_GAS
    if remaining * price:
        state.delta_balance(sender, remaining * price)
    state.delta_balance(state.coinbase, TRANSFER_GAS * state.get_tip(evm))
    for address in (state.coinbase, to):
        if state.account_exists(address) and state.account_is_empty(address):
            state.delete_account(address)
    state.clear_transient_storage()
    return Transferred(remaining)
