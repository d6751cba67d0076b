"""The EIP-1559 base fee, moved each block toward half-full blocks."""


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
