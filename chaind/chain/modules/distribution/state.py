"""distribution's state: the fee pool, per-validator F1 records, delegators' starting infos and withdraw addresses.

Every read and write of the module's store goes through here (records as JSON, amounts as atomics strings).
"""

import attrs
import orjson

from chaind.chain import legacy_dec
from chaind.chain.modules.distribution import dec_coins
from chaind.crypto.addresses import module_address
from chaind.store.keys import compose, decompose, part

DISTRIBUTION_ACCOUNT = module_address("distribution")
FEE_POOL = compose("distribution", "feepool")
_VALIDATOR = compose("distribution", "val")


def _get(state, key):
    raw = state.store.get(key)
    return None if raw is None else orjson.loads(raw)


def _coins_at(state, key):
    found = _get(state, key)
    return {} if found is None else dec_coins.from_record(found)


def community_pool(state):
    return _coins_at(state, FEE_POOL)


def set_community_pool(state, coins):
    state.store.set(FEE_POOL, orjson.dumps(dec_coins.to_record(coins)))


@attrs.define
class ValidatorRewards:
    """A validator's running F1 records, under one key as each block's allocation reads and writes them all
    together: outstanding rewards, accumulated commission, and the current period with its rewards."""

    outstanding: dict = attrs.Factory(dict)
    commission: dict = attrs.Factory(dict)
    current: dict = attrs.Factory(dict)
    period: int = 1


def _rewards_key(operator):
    return _VALIDATOR + part(operator)


def rewards_of(state, operator):
    """The validator's ValidatorRewards, or None for a validator distribution does not know."""
    found = _get(state, _rewards_key(operator))
    if found is None:
        return None
    return ValidatorRewards(dec_coins.from_record(found["out"]), dec_coins.from_record(found["comm"]),
                            dec_coins.from_record(found["cur"]), found["period"])


def set_rewards_of(state, operator, rewards):
    state.store.set(_rewards_key(operator), orjson.dumps({
        "out": dec_coins.to_record(rewards.outstanding), "comm": dec_coins.to_record(rewards.commission),
        "cur": dec_coins.to_record(rewards.current), "period": rewards.period}))


def add_allocation(state, operator, commission, tokens):
    """AllocateTokensToValidator's writes to the validator's records in one read and one write: `commission`
    to the accumulated commission, the rest of `tokens` to the current rewards, all of `tokens` to the
    outstanding. Each block does this for every validator, so the record's text maps are updated in place of
    a round trip through ValidatorRewards (the same bytes as set_rewards_of writes)."""
    if len(tokens) == 1:
        # Commission's denoms are the tokens' (MulDec of them).
        (denom, amount), = tokens.items()
        add_allocation_one(state, operator, denom, commission.get(denom, 0), amount)
        return
    key = _rewards_key(operator)
    raw = state.store.get(key)
    record = {"out": {}, "comm": {}, "cur": {}, "period": 1} if raw is None else orjson.loads(raw)
    rest = {}
    for denom, amount in tokens.items():
        left = amount - commission.get(denom, 0)
        if left < 0:
            raise ArithmeticError(f"negative coin amount: {legacy_dec.format(left)}{denom}")
        rest[denom] = left
    record["out"] = _added(record["out"], tokens)
    record["comm"] = _added(record["comm"], commission)
    record["cur"] = _added(record["cur"], rest)
    state.store.set(key, orjson.dumps(record))


def add_allocation_one(state, operator, denom, commission, amount):
    """add_allocation of tokens of one denom (a chain's one fee denom): `amount` of them, `commission` of it."""
    if commission > amount:
        raise ArithmeticError(f"negative coin amount: {legacy_dec.format(amount - commission)}{denom}")
    known = _ALLOCATED.get(operator)
    key = _rewards_key(operator) if known is None else known[0]
    raw = state.store.get(key)
    if known is not None and known[1] is raw and known[2] == denom:
        _, _, _, out, accumulated, current, period = known
    else:
        record = {"out": {}, "comm": {}, "cur": {}, "period": 1} if raw is None else orjson.loads(raw)
        if any(len(record[name]) > 1 or (record[name] and denom not in record[name]) for name in _MAPS):
            # Other denoms in the record: the text maps' general sum.
            record["out"] = _added_one(record["out"], denom, amount)
            record["comm"] = _added_one(record["comm"], denom, commission)
            record["cur"] = _added_one(record["cur"], denom, amount - commission)
            state.store.set(key, orjson.dumps(record))
            return
        out, accumulated, current = (int(record[name].get(denom, 0)) for name in _MAPS)
        period = record["period"]
    out, accumulated, current = out + amount, accumulated + commission, current + amount - commission
    head = _COIN_HEADS.get(denom)
    if head is None:
        head = _COIN_HEADS[denom] = b"{" + orjson.dumps(denom) + b':"'
    # orjson.dumps({"out": {denom: str(out)} or {} when none, "comm": ..., "cur": ..., "period": period}), put
    # together (tests/test_distribution.py holds the two equal).
    written = b'{"out":%s,"comm":%s,"cur":%s,"period":%d}' % (
        head + b'%d"}' % out if out else b"{}", head + b'%d"}' % accumulated if accumulated else b"{}",
        head + b'%d"}' % current if current else b"{}", period)
    state.store.set(key, written)
    if len(_ALLOCATED) >= _ALLOCATED_KEPT:
        _ALLOCATED.clear()
    _ALLOCATED[operator] = (key, written, denom, out, accumulated, current, period)


_MAPS = ("out", "comm", "cur")
# Each validator's record as the last allocation wrote it, by operator: (its key, its bytes, the denom, the
# outstanding, commission and current amounts, the period). The next block's allocation reads back those very
# bytes (the store hands out the object it was given), so it takes the amounts from here instead of decoding them;
# bytes the store holds otherwise (another write of the record, a block not committed) are not the object kept,
# and are decoded.
_ALLOCATED = {}
_ALLOCATED_KEPT = 10_000
_COIN_HEADS = {}    # denom -> b'{"denom":"', a one-coin map's JSON up to its amount


def _added_one(record, denom, amount):
    """_added(record, {denom: amount})."""
    if not record:
        return {denom: str(amount)} if amount else {}
    held = record.get(denom)
    if held is None or len(record) > 1:
        return _added(record, {denom: amount})
    # One denom on either side: nothing to merge or sort.
    total = int(held) + amount
    return {denom: str(total)} if total else {}


def _added(record, coins):
    """A record's coin map (denom -> atomics text) plus `coins`, as dec_coins.to_record(dec_coins.add(...))."""
    out = {denom: int(amount) for denom, amount in record.items()}
    for denom, amount in coins.items():
        out[denom] = out.get(denom, 0) + amount
    if len(out) < 2:
        return {denom: str(amount) for denom, amount in out.items() if amount}
    return {denom: str(amount) for denom, amount in sorted(out.items()) if amount}


def _update(state, operator, **fields):
    rewards = rewards_of(state, operator) or ValidatorRewards()
    for name, value in fields.items():
        setattr(rewards, name, value)
    set_rewards_of(state, operator, rewards)


def outstanding(state, operator):
    found = rewards_of(state, operator)
    return {} if found is None else found.outstanding


def set_outstanding(state, operator, coins):
    _update(state, operator, outstanding=coins)


def commission(state, operator):
    found = rewards_of(state, operator)
    return {} if found is None else found.commission


def set_commission(state, operator, coins):
    _update(state, operator, commission=coins)


def current_rewards(state, operator):
    """(rewards DecCoins, period), or None for a validator distribution does not know."""
    found = rewards_of(state, operator)
    return None if found is None else (found.current, found.period)


def set_current_rewards(state, operator, rewards, period):
    _update(state, operator, current=rewards, period=period)


def _hist_key(operator, period):
    return compose("distribution", "hist", operator, period.to_bytes(8, "big"))


def historical(state, operator, period):
    """(cumulative reward ratio, reference count); the SDK reads a missing one as empty."""
    found = _get(state, _hist_key(operator, period))
    return ({}, 0) if found is None else (dec_coins.from_record(found["ratio"]), found["refs"])


def set_historical(state, operator, period, ratio, refs):
    state.store.set(_hist_key(operator, period), orjson.dumps({"ratio": dec_coins.to_record(ratio), "refs": refs}))


def delete_historical(state, operator, period):
    state.store.delete(_hist_key(operator, period))


def _start_key(operator, delegator):
    return compose("distribution", "start", operator, delegator)


def starting_info(state, operator, delegator):
    """(previous period, stake in atomics, creation height), or None."""
    found = _get(state, _start_key(operator, delegator))
    return None if found is None else (found["period"], int(found["stake"]), found["height"])


def set_starting_info(state, operator, delegator, period, stake, height):
    state.store.set(_start_key(operator, delegator),
                    orjson.dumps({"period": period, "stake": str(stake), "height": height}))


def delete_starting_info(state, operator, delegator):
    state.store.delete(_start_key(operator, delegator))


def withdraw_address(state, delegator):
    """GetDelegatorWithdrawAddr: the address set, else the delegator's own."""
    return state.store.get(compose("distribution", "wd", delegator)) or delegator


def set_withdraw_address(state, delegator, address):
    state.store.set(compose("distribution", "wd", delegator), address)


def slash_events(state, operator, start_height, end_height):
    """[(height, validator period, fraction atomics)] recorded for a validator, heights in [start, end]."""
    found = []
    for key, raw in state.store.iterate(compose("distribution", "slash", operator)):
        height = int.from_bytes(decompose(key)[3], "big")
        if start_height <= height <= end_height:
            record = orjson.loads(raw)
            found.append((height, record["period"], int(record["fraction"])))
    return found


def set_slash_event(state, operator, height, period, fraction):
    state.store.set(compose("distribution", "slash", operator, height.to_bytes(8, "big"), period.to_bytes(8, "big")),
                    orjson.dumps({"period": period, "fraction": str(fraction)}))


def forget_validator(state, operator):
    """AfterValidatorRemoved's deletes: every record of the validator but its delegators' (none are left)."""
    state.store.delete(_rewards_key(operator))
    for kind in ("hist", "slash"):
        for key, _ in list(state.store.iterate(compose("distribution", kind, operator))):
            state.store.delete(key)
