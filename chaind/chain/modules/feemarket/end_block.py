"""feemarket's block events: the base fee a block ran at, and the gas it used."""

from chaind.chain.block import event


def end_block(app, ctx):
    """The events Evmos' x/feemarket adds to every block, with the `mode` the SDK v0.50 appends.

    `fee_market{base_fee}` comes from its BeginBlock (none without a base fee), so it goes before the
    block's other events; `block_gas{height, amount}` from its EndBlock. Evmos' amount is the gas wanted
    (floored by MinGasMultiplier) that feeds its next base fee; this chain feeds the next base fee
    the gas used, so that is the amount.
    """
    if not app.genesis.no_base_fee:
        ctx.events.insert(0, event("fee_market", ("base_fee", str(ctx.base_fee)), ("mode", "BeginBlock")))
    ctx.events.append(event("block_gas", ("height", str(ctx.height)), ("amount", str(ctx.gas_used)),
                            ("mode", "EndBlock")))
