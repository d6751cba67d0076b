"""authz's begin blocker: expired grants are pruned (x/authz's BeginBlocker, at most 200 queue entries a block)."""

from chaind.chain.modules.authz.keeper import NAME


def begin_block(app, ctx):
    app.keepers[NAME].prune_expired(ctx, ctx.time_ns)
