"""slashing's begin blocker: each vote of the last commit moves its validator's liveness window on."""

from chaind.chain.block import Event
from chaind.chain.modules.slashing.keeper import Keeper


def begin_block(app, ctx):
    if not ctx.last_commit:
        return
    keeper = Keeper(app, ctx)
    for vote in ctx.last_commit:
        keeper.handle_signature(vote)
    ctx.events.extend(Event(e.type, e.attributes + (("mode", "BeginBlock", True),)) for e in keeper.events)
