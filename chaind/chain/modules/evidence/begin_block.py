"""evidence's begin blocker (x/evidence/keeper/infraction.go): each misbehavior consensus reports is an
equivocation, slashed by slash_fraction_double_sign, jailed for good and tombstoned."""

from twisted.logger import Logger

from chaind.chain.block import Event
from chaind.chain.commit_info import DUPLICATE_VOTE, LIGHT_CLIENT_ATTACK
from chaind.chain.modules import slashing, staking
from chaind.chain.modules.evidence import state
from chaind.crypto.addresses import to_bech32

log = Logger()


def begin_block(app, ctx):
    if not ctx.misbehavior:
        return
    keeper = slashing.Keeper(app, ctx)
    for m in ctx.misbehavior:
        if m.kind in (DUPLICATE_VOTE, LIGHT_CLIENT_ATTACK):
            handle_equivocation(app, ctx, keeper, m)
        else:
            log.error("ignored unknown evidence type: {kind:x}", kind=m.kind)
    ctx.events.extend(Event(e.type, e.attributes + (("mode", "BeginBlock", True),)) for e in keeper.events)


def handle_equivocation(app, ctx, keeper, m):
    """handleEquivocationEvidence: evidence of a validator unknown, unbonded, too old or already tombstoned
    is ignored; otherwise slash at the height the infraction's power was decided, jail, tombstone, keep it."""
    cons = m.address
    v = staking.validator_by_cons(ctx, cons)
    if v is None or v.status == staking.UNBONDED:
        return
    params = app.consensus_params(ctx.height).evidence
    max_age_ns = params.max_age_duration.seconds * 10**9 + params.max_age_duration.nanos
    if ctx.time_ns - m.time_ns > max_age_ns and ctx.height - m.height > params.max_age_num_blocks:
        log.info("ignored equivocation; evidence too old (height {height})", height=m.height)
        return
    info = slashing.signing_info(ctx, cons)
    if info is None or info.tombstoned:
        return
    keeper.slash_with_reason(cons, slashing.params(ctx).slash_fraction_double_sign, m.power,
                             m.height - slashing.VALIDATOR_UPDATE_DELAY, slashing.DOUBLE_SIGN)
    if not staking.validator_by_cons(ctx, cons).jailed:
        keeper.jail(cons)
    keeper.jail_until(cons, slashing.DOUBLE_SIGN_JAIL_END_SECONDS)
    keeper.tombstone(cons)
    address = to_bech32(app.genesis.bech32_prefix + "valcons", cons)
    state.set_evidence(ctx, state.equivocation(m.height, m.time_ns, m.power, address))
