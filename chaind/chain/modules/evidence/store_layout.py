"""evidence's records as x/evidence v0.50 lays them out in its IAVL store: equivocations 0x00 | hash -> the
evidence's Any (the SDK's interface value, which chaind stores already)."""

_EVIDENCE = b"\x02ev"


def entries(rest, value):
    """[(key in the evidence store, value)] of an evidence native key, or None for a key kept as it is."""
    if rest.startswith(_EVIDENCE):
        return [(b"\x00" + rest[len(_EVIDENCE) + 1:], value)]
    return None


def layout(bech32_prefix):
    return entries
