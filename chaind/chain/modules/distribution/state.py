"""distribution's state: the fee pool, per-validator F1 records, delegators' starting infos and withdraw addresses.

Every read and write of the module's store goes through here (records as JSON, amounts as atomics strings).
"""

import struct

import attrs
import orjson

from chaind.chain import legacy_dec
from chaind.chain.modules.distribution import dec_coins
from chaind.crypto.addresses import module_address
from chaind.store.keys import compose, decompose

DISTRIBUTION_ACCOUNT = module_address("distribution")
FEE_POOL = compose("distribution", "feepool")
# Every bonded validator's running records change each block. They are kept in 16 buckets by the first hex digit
# of the operator address, so a block writes at most 16 leaves of the store's IAVL tree instead of one per
# validator (a hundred leaves, their new inner nodes and orphans were a third of the module's cost per block). The
# price: a block rewrites the records of unbonded validators that share a bucket with a bonded one.
_BUCKET_OF = [compose("distribution", "vals", bytes((first >> 4,))) for first in range(256)]
_FRAME = struct.Struct(">BI")     # a bucket entry: the operator's length, the record's length


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


def _bucket_key(operator):
    return _BUCKET_OF[operator[0]]


def _bucket(state, key):
    """{operator: record bytes} of a bucket, shared with the next reader of the same bytes: not to be changed.
    The bytes a block wrote are read back by the next block as that very object (the store hands out what it was
    given), so they are split once."""
    raw = state.store.get(key)
    if raw is None:
        return {}
    seen = _SPLIT.get(key)
    if seen is not None and seen[0] is raw:
        return seen[1]
    records, at, end = {}, 0, len(raw)
    unpack = _FRAME.unpack_from
    while at < end:
        length, size = unpack(raw, at)
        at += _FRAME.size
        records[raw[at:at + length]] = raw[at + length:at + length + size]
        at += length + size
    _SPLIT[key] = (raw, records)
    return records


def _write_bucket(state, key, records):
    """Store a bucket's records ({operator: record bytes}, which the caller gives up), by operator."""
    if not records:
        state.store.delete(key)
        return
    pack = _FRAME.pack
    raw = b"".join([b"".join((pack(len(operator), len(records[operator])), operator, records[operator]))
                    for operator in sorted(records)])
    state.store.set(key, raw)
    _SPLIT[key] = (raw, records)


# Each bucket as last split or written, by key: (its bytes, {operator: record bytes}).
_SPLIT = {}


def _record_of(rewards):
    return orjson.dumps({"out": dec_coins.to_record(rewards.outstanding),
                         "comm": dec_coins.to_record(rewards.commission),
                         "cur": dec_coins.to_record(rewards.current), "period": rewards.period})


def rewards_of(state, operator):
    """The validator's ValidatorRewards, or None for a validator distribution does not know."""
    raw = _bucket(state, _bucket_key(operator)).get(operator)
    if raw is None:
        return None
    found = orjson.loads(raw)
    return ValidatorRewards(dec_coins.from_record(found["out"]), dec_coins.from_record(found["comm"]),
                            dec_coins.from_record(found["cur"]), found["period"])


def set_rewards_of(state, operator, rewards):
    key = _bucket_key(operator)
    records = dict(_bucket(state, key))
    records[operator] = _record_of(rewards)
    _write_bucket(state, key, records)


def add_allocation(state, operator, commission, tokens):
    """AllocateTokensToValidator's writes to the validator's records: `commission` to the accumulated commission,
    the rest of `tokens` to the current rewards, all of `tokens` to the outstanding. The record's text maps are
    updated in place of a round trip through ValidatorRewards (the same bytes as set_rewards_of writes)."""
    if len(tokens) == 1:
        # Commission's denoms are the tokens' (MulDec of them).
        (denom, amount), = tokens.items()
        add_allocations_one(state, denom, ((operator, commission.get(denom, 0), amount),))
        return
    key = _bucket_key(operator)
    records = dict(_bucket(state, key))
    raw = records.get(operator)
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
    records[operator] = orjson.dumps(record)
    _write_bucket(state, key, records)


def add_allocations_one(state, denom, allocations):
    """add_allocation of tokens of one denom (a chain's one fee denom) to each validator of `allocations`:
    (operator, commission, amount), `commission` of `amount` to its commission. Each block does this for every
    bonded validator: each bucket is read and written once."""
    by_bucket = {}
    for operator, commission, amount in allocations:
        if commission > amount:
            raise ArithmeticError(f"negative coin amount: {legacy_dec.format(amount - commission)}{denom}")
        key = _BUCKET_OF[operator[0]]
        records = by_bucket.get(key)
        if records is None:
            records = by_bucket[key] = dict(_bucket(state, key))
        records[operator] = _allocated(records.get(operator), operator, denom, commission, amount)
    for key, records in by_bucket.items():
        _write_bucket(state, key, records)


def _allocated(raw, operator, denom, commission, amount):
    """The record `raw` (None: none yet) with `amount` of `denom` allocated, `commission` of it to the commission."""
    known = _ALLOCATED.get(operator)
    if known is not None and known[0] is raw and known[1] == denom:
        _, _, out, accumulated, current, period = known
    else:
        record = {"out": {}, "comm": {}, "cur": {}, "period": 1} if raw is None else orjson.loads(raw)
        if any(len(record[name]) > 1 or (record[name] and denom not in record[name]) for name in _MAPS):
            # Other denoms in the record: the text maps' general sum.
            record["out"] = _added_one(record["out"], denom, amount)
            record["comm"] = _added_one(record["comm"], denom, commission)
            record["cur"] = _added_one(record["cur"], denom, amount - commission)
            return orjson.dumps(record)
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
    if len(_ALLOCATED) >= _ALLOCATED_KEPT:
        _ALLOCATED.clear()
    _ALLOCATED[operator] = (written, denom, out, accumulated, current, period)
    return written


_MAPS = ("out", "comm", "cur")
# Each validator's record as the last allocation wrote it, by operator: (its bytes, the denom, the outstanding,
# commission and current amounts, the period). The next block's allocation reads back those very bytes (a bucket
# split once keeps them), so it takes the amounts from here instead of decoding them; bytes written otherwise (another
# write of the record, a block not committed) are not the object kept, and are decoded.
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
    key = _bucket_key(operator)
    records = dict(_bucket(state, key))
    if records.pop(operator, None) is not None:
        _write_bucket(state, key, records)
    for kind in ("hist", "slash"):
        for key, _ in list(state.store.iterate(compose("distribution", kind, operator))):
            state.store.delete(key)
