"""`export --for-zero-height`: the state at a height made ready for a new chain that starts at height 1, as the
SDK's simapp (and Evmos') prepForZeroHeightGenesis does it before the modules export their genesis.

Every commission and delegation reward is withdrawn, distribution's records begin anew at height 0 (what rewards
could not pay goes to the community pool), staking's and slashing's heights are reset, and with an allow list
every other validator is jailed. The changes go into a context over the committed state, never committed.
"""

from chaind.chain.errors import TxError
from chaind.chain.modules.distribution import dec_coins
from chaind.store.keys import compose, decompose

_DELEGATIONS = compose("staking", "del")
_UNBONDINGS = compose("staking", "ubd")
_REDELEGATIONS = compose("staking", "red")


def prepare(app, height, jail_allowed=None):
    """A context over the state at `height` with prepForZeroHeightGenesis's changes made; `jail_allowed`: the
    operator addresses that stay unjailed (None: no validator is jailed). Raises ChainHalt when an invariant is
    broken (the SDK asserts them first)."""
    ctx = app.context_at(height)
    staking, distribution = app.keepers["staking"], app.keepers["distribution"]
    crisis = app.keepers.get("crisis")
    if crisis is not None:
        crisis.assert_invariants(app, ctx)

    # Distribution: everything owed paid out, as the SDK does it, whose errors (nothing to withdraw) it ignores.
    for v in staking.validators(ctx):
        try:
            distribution.withdraw_commission(ctx, v.operator)
        except TxError:
            pass
    delegations = [tuple(decompose(key[len(_DELEGATIONS):])) for key, _ in ctx.store.iterate(_DELEGATIONS)]
    for delegator, operator in delegations:
        try:
            distribution.withdraw_delegation_rewards(ctx, delegator, operator)
        except TxError:
            pass
    for kind in ("slash", "hist"):
        for key, _ in list(ctx.store.iterate(compose("distribution", kind))):
            ctx.store.delete(key)
    # The records begin again at height 0: each validator's (its outstanding scraps to the community pool) as
    # AfterValidatorCreated makes them, each delegation's as BeforeDelegationCreated and AfterDelegationModified.
    ctx.height = 0
    for v in staking.validators(ctx):
        scraps = distribution.outstanding(ctx, v.operator)
        distribution.set_community_pool(ctx, dec_coins.add(distribution.community_pool(ctx), scraps))
        distribution.initialize_validator(ctx, v.operator)
    for delegator, operator in delegations:
        distribution.increment_period(ctx, staking.validator(ctx, operator))
        distribution.initialize_delegation(ctx, operator, delegator)
    ctx.height = height

    # Staking: the entries' creation heights and the validators' unbonding heights reset.
    for key, _ in list(ctx.store.iterate(_REDELEGATIONS)):
        delegator, src, dst = decompose(key[len(_REDELEGATIONS):])
        entries = staking.redelegation(ctx, delegator, src, dst)
        staking.set_redelegation(ctx, delegator, src, dst, [[0, *entry[1:]] for entry in entries])
    for key, _ in list(ctx.store.iterate(_UNBONDINGS)):
        delegator, operator = decompose(key[len(_UNBONDINGS):])
        entries = staking.unbonding(ctx, delegator, operator)
        staking.set_unbonding(ctx, delegator, operator, [[0, *entry[1:]] for entry in entries])
    for v in staking.validators(ctx):
        v.unbonding_height = 0
        # Jailed as slashing jails (out of the bonded set at the updates below): the SDK's simapp sets the flag
        # alone, which its ApplyAndReturnValidatorSetUpdates then refuses with a panic for a bonded validator.
        if jail_allowed is not None and v.operator not in jail_allowed:
            v.jailed = True
        staking.set_validator(ctx, v)
    staking.apply_validator_set_updates(ctx, staking.params(ctx))

    # Slashing: the signing infos start at height 0.
    slashing = app.keepers["slashing"]
    for cons_address, info in slashing.signing_infos(ctx):
        info.start_height = 0
        slashing.set_signing_info(ctx, cons_address, info)
    return ctx
