"""x/consensus's params as v0.50 lays them out in its IAVL store: the collections Item "Consensus", a
ConsensusParams (which chaind stores already)."""

_PARAMS = b"\x06params"


def entries(rest, value):
    """[(key in the consensus store, value)] of a consensus native key, or None for a key kept as it is."""
    return [(b"Consensus", value)] if rest == _PARAMS else None


def layout(bech32_prefix):
    return entries
