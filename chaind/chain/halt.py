"""A block the chain must not make: a broken invariant, an upgrade this binary cannot run. The SDK panics
there; the producer stops making blocks instead and the node stops, with the message for the operator."""


class ChainHalt(Exception):
    """finalize_block refused the block; str(e) is the operator's message (the SDK's panic text).
    upgrade_info: for an upgrade this binary cannot run, the bytes of `data/upgrade-info.json`, which the SDK
    writes before it panics and which Cosmovisor watches for; None otherwise."""

    def __init__(self, message, upgrade_info=None):
        super().__init__(message)
        self.upgrade_info = upgrade_info
