"""feemarket's block events: the base fee a block ran at, and its block gas (which feeds the next base fee)."""

from chaind.chain.block import event
from chaind.chain.modules.feemarket.base_fee import block_gas


def end_block(app, ctx):
    """The events Evmos' x/feemarket adds to every block, with the `mode` the SDK v0.50 appends.

    `fee_market{base_fee}` comes from its BeginBlock (none without a base fee), so it goes before the
    block's other events; `block_gas{height, amount}` from its EndBlock: the block's gas wanted (every tx's
    gas limit) times min_gas_multiplier, or the gas its txs used if more, which the next base fee follows.
    """
    block_events(app.keepers["feemarket"].params(ctx), ctx)


def block_events(p, ctx):
    """end_block's work with the params `p` read already (a dev run of empty blocks reads them once)."""
    ctx.block_gas = block_gas(p, ctx.gas_wanted, ctx.tx_gas_used)
    if not p.no_base_fee:
        ctx.events.insert(0, event("fee_market", ("base_fee", str(ctx.base_fee)), ("mode", "BeginBlock")))
    ctx.events.append(event("block_gas", ("height", str(ctx.height)), ("amount", str(ctx.block_gas)),
                            ("mode", "EndBlock")))
