"""slashing's records as x/slashing v0.50 lays them out in its IAVL store, their values the SDK's protos and bitsets
already: params 0x00; signing infos 0x01 | len | consensus address; the missed-block bitmap's chunks 0x02 | len |
consensus address | chunk index (8 bytes, big-endian)."""

_PARAMS = b"\x06params"
_INFO = b"\x02si"
_MISSED = b"\x06missed"


def entries(rest, value):
    """[(key in the slashing store, value)] of a slashing native key (`rest`: the key after its module part), or
    None for a key kept as it is."""
    if rest == _PARAMS:
        return [(b"\x00", value)]
    if rest.startswith(_INFO):
        return [(b"\x01" + rest[len(_INFO):], value)]
    if rest.startswith(_MISSED):
        # compose's parts: the consensus address, then the chunk index, each length-prefixed; the SDK's key
        # prefixes the address only.
        at = len(_MISSED)
        end = at + 1 + rest[at]
        return [(b"\x02" + rest[at:end] + rest[end + 1:], value)]
    return None


def layout(bech32_prefix):
    return entries
