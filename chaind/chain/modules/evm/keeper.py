"""evm's keeper: its params in the evmparams store, the evm module's state outside the EVM's StateDB (accounts,
code and storage are the StateDB's: state.py, and the journal the EVM keeps of them)."""

from chaind.chain.modules.evm.params import PARAMS_KEY, decoded, inactive_of


class EvmKeeper:
    """x/evm's keeper: reads take a state (a view, a block's context, or the EVM's native state), writes a block's
    context."""

    def stored(self, state):
        """The params' bytes in `state`, or None."""
        return state.store.get(PARAMS_KEY)

    def params(self, state):
        """The evm params in `state`, or None on a chain without them (a test app without the evm module's
        genesis)."""
        raw = self.stored(state)
        return None if raw is None else decoded(raw)

    def set_params(self, ctx, p):
        ctx.store.set(PARAMS_KEY, p.SerializeToString())

    def allow_unprotected(self, state):
        p = self.params(state)
        return p is not None and p.allow_unprotected_txs

    def inactive_static(self, state, modules_precompiles):
        """The static precompiles the params leave inactive (Evmos calls them plain accounts then);
        `modules_precompiles`: the modules' precompiles' addresses (App.precompiles)."""
        raw = self.stored(state)
        return frozenset() if raw is None else inactive_of(raw, frozenset(modules_precompiles))
