"""Evmos v20's inflation schedule, in LegacyDec atomics with the SDK's rounding (Mul, Quo, Power)."""

from chaind.chain import legacy_dec
from chaind.chain.modules import staking

ONE = legacy_dec.ONE
REDUCTION_FACTOR = 3         # v20 divides every period's provision by it
POWER_REDUCTION = 10**18     # the schedule counts whole coins; minting is in the base denom's atomics


def mul(a, b):
    """LegacyDec.Mul: the product rounded half to even at 18 places."""
    quotient, remainder = divmod(a * b, ONE)
    if 2 * remainder > ONE or (2 * remainder == ONE and quotient % 2):
        quotient += 1
    return quotient


def power(d, n):
    """LegacyDec.Power: square-and-multiply, each product rounded as Mul."""
    if n == 0:
        return ONE
    tmp = ONE
    while n > 1:
        if n % 2:
            tmp = mul(tmp, d)
        n //= 2
        d = mul(d, d)
    return mul(d, tmp)


def epoch_mint_provision(p, period, epochs_per_period, bonded_ratio):
    """CalculateEpochMintProvision: ((a (1 - r)^period) bonding incentive + c) / 3 / epochs per period, in atomics
    of the mint denom's atomics (a Dec of base-denom units)."""
    decay = mul(p.a, power(ONE - p.r, period))
    bonded = min(bonded_ratio, p.bonding_target)
    incentive = ONE + p.max_variance - mul(p.max_variance, staking.dec_quo(bonded, p.bonding_target))
    reduced = staking.dec_quo(mul(decay, incentive) + p.c, REDUCTION_FACTOR * ONE)
    per_epoch = staking.dec_quo(reduced, epochs_per_period * ONE)
    return mul(per_epoch, POWER_REDUCTION * ONE)
