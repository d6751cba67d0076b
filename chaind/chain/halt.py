"""A block the chain must not make: a broken invariant, an upgrade this binary cannot run. The SDK panics
there; the producer stops making blocks instead and the node stops, with the message for the operator."""


class ChainHalt(Exception):
    """finalize_block refused the block; str(e) is the operator's message (the SDK's panic text)."""
