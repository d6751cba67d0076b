"""x/consensus's keeper: CometBFT's ConsensusParams in the consensus store (the SDK's "Consensus" Item)."""

from chaind.store.keys import compose

PARAMS_KEY = compose("consensus", "params")


class ConsensusKeeper:
    """x/consensus's keeper: reads take a state (a view or a block's context), writes a block's context."""

    def stored(self, state):
        """The params in state (ConsensusParams bytes), or None on a chain without x/consensus."""
        return state.store.get(PARAMS_KEY)

    def set_params(self, ctx, params):
        ctx.store.set(PARAMS_KEY, params.SerializeToString())
