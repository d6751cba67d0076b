"""slashing's begin blocker: each vote of the last commit moves its validator's liveness window on."""

from chaind.chain.block import Event


def begin_block(app, ctx):
    if not ctx.last_commit:
        return
    keeper = app.keepers["slashing"]
    p, events = keeper.params(ctx), []
    for vote in ctx.last_commit:
        events += keeper.handle_signature(ctx, p, vote)
    ctx.events.extend(Event(e.type, e.attributes + (("mode", "BeginBlock", True),)) for e in events)
