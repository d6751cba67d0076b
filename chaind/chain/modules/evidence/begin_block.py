"""evidence's begin blocker (x/evidence/keeper/infraction.go): each misbehavior consensus reports is an
equivocation, slashed by slash_fraction_double_sign, jailed for good and tombstoned."""

from twisted.logger import Logger

from chaind.chain.block import Event
from chaind.chain.commit_info import DUPLICATE_VOTE, LIGHT_CLIENT_ATTACK

log = Logger()


def begin_block(app, ctx):
    if not ctx.misbehavior:
        return
    keeper = app.keepers["evidence"]
    # The block's evidence params, as the SDK's keeper reads them from its context's consensus params.
    evidence_params = app.consensus_params(ctx.height).evidence
    events = []
    for m in ctx.misbehavior:
        if m.kind in (DUPLICATE_VOTE, LIGHT_CLIENT_ATTACK):
            events += keeper.handle_equivocation(ctx, m, evidence_params)
        else:
            log.error("ignored unknown evidence type: {kind:x}", kind=m.kind)
    ctx.events.extend(Event(e.type, e.attributes + (("mode", "BeginBlock", True),)) for e in events)
