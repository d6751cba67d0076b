"""bank's params: default_send_enabled (v0.50 keeps per-denom send_enabled out of params), from genesis'
app_state.bank.params, in state; MsgUpdateParams changes it; MsgSend and MsgMultiSend obey it."""

from chaind.chain import errors
from chaind.chain.modules.bank.keeper import CODESPACE
from chaind.store.keys import compose

PARAMS_KEY = compose("bank", "params")


def default_send_enabled(state):
    return state.store.get(PARAMS_KEY) != b"0"


def set_default_send_enabled(state, enabled):
    state.store.set(PARAMS_KEY, b"1" if enabled else b"0")


def parse_params(doc):
    """default_send_enabled of genesis' bank.params (true when absent); ValueError as Params.Validate words it."""
    doc = doc or {}
    if doc.get("send_enabled"):
        raise ValueError("use of send_enabled in params is no longer supported")
    enabled = doc.get("default_send_enabled", True)
    if not isinstance(enabled, bool):
        raise ValueError(f"invalid parameter type: {type(enabled).__name__}")
    return enabled


def require_send_enabled(state, coins):
    """IsSendEnabledCoins: with sends disabled by default, no coin may move through MsgSend/MsgMultiSend."""
    if default_send_enabled(state):
        return
    for denom, _ in coins:
        raise errors.TxError(CODESPACE, 5, f"{denom} transfers are currently disabled: send transactions are disabled")
