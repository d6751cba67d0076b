"""staking's penalties (x/staking/keeper/slash.go): Slash over the validator, its unbondings and redelegations;
Jail and Unjail, which take a validator out of the bonded set and back at the next end block."""

from chaind.chain.modules.staking.numbers import PRECISION
from chaind.chain.modules.staking.records import BONDED, BONDED_POOL, NOT_BONDED_POOL, POWER_REDUCTION, UNBONDED
from chaind.chain.modules.staking.state import (
    delegation,
    redelegations_from,
    set_unbonding,
    set_validator,
    unbonding,
    unbondings_from,
    validator,
    validator_by_cons,
)


def _mul_round(a, b):
    """LegacyDec.Mul: a * b in atomics, rounded half to even at 18 places."""
    quotient, remainder = divmod(a * b, PRECISION)
    twice = 2 * remainder
    if twice > PRECISION or (twice == PRECISION and quotient % 2):
        quotient += 1
    return quotient


def _burn(keeper, pool, amount):
    if amount > 0:
        keeper.events += keeper.app.bank.burn(keeper.ctx, pool, keeper.coins(amount))


def slash(keeper, cons_address, infraction_height, power, fraction):
    """Keeper.Slash: burn `fraction` of the stake `power` stood for at `infraction_height` from what the
    validator still holds, its unbondings and redelegations begun since; returns the tokens burned from the
    validator itself (what the SDK returns and the slashing module reports)."""
    ctx = keeper.ctx
    slash_amount = power * POWER_REDUCTION * fraction // PRECISION
    v = validator_by_cons(ctx, cons_address)
    if v is None:
        # Overslashed and removed already: nothing left to take (the SDK logs and returns zero).
        return 0
    if v.status == UNBONDED:
        raise ValueError(f"should not be slashing unbonded validator: {keeper.valoper(v.operator)}")
    if infraction_height > ctx.height:
        raise ValueError(f"impossible attempt to slash future infraction at height {infraction_height} but we "
                         f"are at height {ctx.height}")
    remaining = slash_amount
    if infraction_height < ctx.height:
        for delegator, entries in unbondings_from(ctx, v.operator):
            remaining -= _slash_unbonding(keeper, delegator, v.operator, entries, infraction_height, fraction)
        for delegator, dst, entries in redelegations_from(ctx, v.operator):
            remaining -= _slash_redelegation(keeper, delegator, dst, entries, infraction_height, fraction)
        v = validator(ctx, v.operator)
    burned = max(min(remaining, v.tokens), 0)
    if burned == 0:
        return 0
    if v.tokens > 0:
        effective = min(-(-burned * PRECISION // v.tokens), PRECISION)      # QuoRoundUp, at most one
        keeper.hook("before_validator_slashed", v.operator, effective)
        v = validator(ctx, v.operator)
    v.tokens -= burned
    set_validator(ctx, v)
    _burn(keeper, BONDED_POOL if v.status == BONDED else NOT_BONDED_POOL, burned)
    return burned


def _slash_unbonding(keeper, delegator, operator, entries, infraction_height, fraction):
    """SlashUnbondingDelegation: entries begun at or after the infraction and not yet mature."""
    now, total, burned = keeper.ctx.time_ns, 0, 0
    for entry in entries:
        if entry[0] < infraction_height or entry[1] <= now:
            continue
        amount = fraction * int(entry[2]) // PRECISION
        total += amount
        taken = min(amount, int(entry[3]))
        if taken:
            burned += taken
            entry[3] = str(int(entry[3]) - taken)
    if burned:
        set_unbonding(keeper.ctx, delegator, operator, entries)
        _burn(keeper, NOT_BONDED_POOL, burned)
    return total


def _slash_redelegation(keeper, delegator, dst, entries, infraction_height, fraction):
    """SlashRedelegation: the moved stake, from an unbonding of it first, then from the delegation it became."""
    ctx = keeper.ctx
    now, total, bonded_burn, not_bonded_burn = ctx.time_ns, 0, 0, 0
    for entry in entries:
        if entry[0] < infraction_height or entry[1] <= now:
            continue
        amount = fraction * int(entry[2]) // PRECISION
        total += amount
        dst_unbonding = unbonding(ctx, delegator, dst)
        changed = False
        for ubd in dst_unbonding:
            taken = min(amount, int(ubd[3]))
            if taken == 0 or ubd[0] < infraction_height or ubd[1] <= now:
                continue
            amount -= taken
            not_bonded_burn += taken
            ubd[3] = str(int(ubd[3]) - taken)
            changed = True
        if changed:
            set_unbonding(ctx, delegator, dst, dst_unbonding)
        shares = _mul_round(fraction, int(entry[3]))
        if shares == 0 or amount == 0:
            continue
        held = delegation(ctx, delegator, dst)
        if held is None:
            continue
        tokens, dst_v = keeper.unbond(delegator, dst, min(shares, held))
        if dst_v.status == BONDED:
            bonded_burn += tokens
        else:
            not_bonded_burn += tokens
    _burn(keeper, BONDED_POOL, bonded_burn)
    _burn(keeper, NOT_BONDED_POOL, not_bonded_burn)
    return total


def jail(keeper, cons_address):
    """Keeper.Jail: out of the bonded set at the next end block."""
    v = validator_by_cons(keeper.ctx, cons_address)
    if v is None:
        raise ValueError(f"validator with consensus-Address {cons_address.hex()} not found")
    if v.jailed:
        raise ValueError("cannot jail already jailed validator")
    v.jailed = True
    set_validator(keeper.ctx, v)


def unjail(keeper, cons_address):
    """Keeper.Unjail: eligible for the bonded set again."""
    v = validator_by_cons(keeper.ctx, cons_address)
    if v is None:
        raise ValueError(f"validator with consensus-Address {cons_address.hex()} not found")
    if not v.jailed:
        raise ValueError("cannot unjail already unjailed validator")
    v.jailed = False
    set_validator(keeper.ctx, v)
