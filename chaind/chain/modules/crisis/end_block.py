"""crisis's end blocker: every module's invariants, each `[debug] check-invariants-every` blocks."""

from chaind.chain.modules.crisis import keeper


def end_block(app, ctx):
    every = app.options.check_invariants_every
    if every and ctx.height % every == 0:
        keeper.assert_invariants(app, ctx)
