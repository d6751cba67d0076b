"""evm's params in their IAVL store, `evmparams` (the multistore's `evm` entry is the EVM state root; Evmos keeps
them at 0x03 in its evm store): 0x03 -> Params."""

_PARAMS = b"\x06params"


def entries(rest, value):
    """[(key in the evmparams store, value)] of an evm native key, or None for a key kept as it is."""
    return [(b"\x03", value)] if rest == _PARAMS else None


def layout(bech32_prefix):
    return entries
