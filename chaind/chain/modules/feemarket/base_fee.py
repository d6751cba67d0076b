"""The EIP-1559 base fee, moved each block toward the gas target (Evmos v20 x/feemarket CalculateBaseFee)."""


def next_base_fee(params, parent_base_fee, parent_block_gas, gas_limit):
    """The base fee after a block at `parent_base_fee` whose block gas (its gas wanted times min_gas_multiplier,
    or its gas used if more) was `parent_block_gas`; a fall stops at min_gas_price."""
    if params.no_base_fee:
        return 0
    target = gas_limit // params.elasticity_multiplier
    if target <= 0 or parent_block_gas == target:
        return parent_base_fee
    denominator = params.base_fee_change_denominator
    if parent_block_gas > target:
        delta = max(1, parent_base_fee * (parent_block_gas - target) // target // denominator)
        return parent_base_fee + delta
    delta = parent_base_fee * (target - parent_block_gas) // target // denominator
    return max(parent_base_fee - delta, params.min_gas_price // 10**18)


def block_gas(params, gas_wanted, gas_used):
    """EndBlock's block gas: max(gas wanted * min_gas_multiplier, gas used), truncated."""
    return max(gas_wanted * params.min_gas_multiplier // 10**18, gas_used)
