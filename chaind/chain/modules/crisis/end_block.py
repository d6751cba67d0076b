"""crisis's end blocker: every module's invariants, each `[debug] check-invariants-every` blocks."""


def end_block(app, ctx):
    every = app.options.check_invariants_every
    if every and ctx.height % every == 0:
        app.keepers["crisis"].assert_invariants(app, ctx)
