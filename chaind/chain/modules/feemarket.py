"""feemarket: the EIP-1559 base fee, moved each block toward half-full blocks, and its block events."""

from chaind.chain.block import event
from chaind.chain.module import Module


def next_base_fee(genesis, parent_base_fee, parent_gas_used, gas_limit):
    """geth's CalcBaseFee with the chain's change denominator and elasticity."""
    if genesis.no_base_fee:
        return 0
    target = gas_limit // genesis.elasticity_multiplier
    if target <= 0 or parent_gas_used == target:
        return parent_base_fee
    denominator = genesis.base_fee_change_denominator
    if parent_gas_used > target:
        delta = max(1, parent_base_fee * (parent_gas_used - target) // target // denominator)
        return parent_base_fee + delta
    delta = parent_base_fee * (target - parent_gas_used) // target // denominator
    return max(0, parent_base_fee - delta)


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


MODULE = Module(name="feemarket", end_block=end_block, cli="chaind.chain.modules.feemarket.cli")
