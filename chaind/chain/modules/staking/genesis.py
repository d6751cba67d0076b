"""staking's genesis: params, the genesis validators bonded, and the first validator set."""

from chaind.chain.modules.staking.keeper import Keeper
from chaind.chain.modules.staking.keys import cons_key
from chaind.chain.modules.staking.numbers import PRECISION
from chaind.chain.modules.staking.params import PARAMS_KEY
from chaind.chain.modules.staking.records import (
    BONDED,
    BONDED_POOL,
    DESCRIPTION_FIELDS,
    NOT_BONDED_POOL,
    Validator,
    consensus_address,
)
from chaind.chain.modules.staking.state import set_delegation, set_validator, validator
from chaind.crypto.addresses import to_bech32


def init_genesis(app, ctx):
    """Params, the genesis validators bonded with their self-delegation minted into the bonded pool,
    and the first validator set (as InitChain's validators)."""
    g = app.genesis
    p = g.staking_params
    ctx.store.set(PARAMS_KEY, p.to_record())
    for pool in (BONDED_POOL, NOT_BONDED_POOL):
        app.ensure_account(ctx, pool)
    keeper = Keeper(app, ctx)
    for gv in g.validators:
        if validator(ctx, gv.operator) is not None:
            raise ValueError(f"genesis validator {to_bech32(g.bech32_prefix, gv.operator)} listed twice")
        if ctx.store.get(cons_key(consensus_address(gv.consensus_pubkey))) is not None:
            raise ValueError("two genesis validators share a consensus key")
        description = {**dict.fromkeys(DESCRIPTION_FIELDS, ""), "moniker": gv.moniker}
        v = Validator(gv.operator, gv.consensus_pubkey, description, gv.rate, gv.max_rate, gv.max_change_rate,
                      g.genesis_time_ns, gv.min_self_delegation,
                      tokens=gv.tokens, shares=gv.tokens * PRECISION, status=BONDED)
        set_validator(ctx, v)
        ctx.store.set(cons_key(v.cons_address), v.operator)
        # The hooks InitGenesis calls for a validator and its delegation (distribution starts tracking them).
        keeper.hook("after_validator_created", v.operator)
        keeper.hook("before_delegation_created", v.operator, v.operator)
        set_delegation(ctx, v.operator, v.operator, v.shares)
        keeper.hook("after_delegation_modified", v.operator, v.operator)
        app.bank.mint(ctx, BONDED_POOL, p.bond_denom, gv.tokens)
    ctx.validator_updates.extend(keeper.apply_validator_set_updates())
