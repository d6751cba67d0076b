"""feemarket's keeper: its params in state, and the base fee a MsgUpdateParams set in a block (which the next
block's base fee starts from)."""

from chaind.chain.modules.feemarket.params import decoded
from chaind.store.keys import compose

PARAMS_KEY = compose("feemarket", "params")
# "height base_fee": a base fee MsgUpdateParams set at that height, which the next block's base fee starts from.
BASE_FEE_SET = compose("feemarket", "base_fee_set")


class FeemarketKeeper:
    """x/feemarket's keeper: reads take a state (a view or a block's context), writes a block's context."""

    def params(self, state):
        return decoded(state.store.get(PARAMS_KEY))

    def set_params(self, ctx, p):
        ctx.store.set(PARAMS_KEY, p.to_record())

    def base_fee_set_at(self, state, height):
        """The base fee MsgUpdateParams set in block `height`, or None."""
        raw = state.store.get(BASE_FEE_SET)
        if raw is None:
            return None
        at, fee = map(int, raw.split())
        return fee if at == height else None

    def note_base_fee_set(self, ctx, height, fee):
        ctx.store.set(BASE_FEE_SET, f"{height} {fee}".encode())
