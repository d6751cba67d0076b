"""distribution's begin blocker: the previous block's fees to the validators of its commit."""


def begin_block(app, ctx):
    """BeginBlocker: every validator of the last commit shares by power, signer or not (as the SDK's
    VoteInfos carry them all); nothing to share before the first block is committed."""
    if ctx.height <= app.genesis.initial_height:
        return
    votes = [(v.address, v.power) for v in app.validator_set(ctx.height - 1)]
    ctx.events += app.keepers["distribution"].allocate_tokens(ctx, votes, mode="BeginBlock")
