"""distribution's records, as its keeper keeps them (JSON, amounts as atomics strings): the keys, the validators'
running records in 16 buckets and the bytes of a bucket, and the JSON of a record an allocation updates."""

import struct

import attrs
import orjson

from chaind.chain.modules.distribution import dec_coins
from chaind.crypto.addresses import module_address
from chaind.store.keys import compose

DISTRIBUTION_ACCOUNT = module_address("distribution")
FEE_POOL = compose("distribution", "feepool")
# Every bonded validator's running records change each block. They are kept in 16 buckets by the first hex digit
# of the operator address, so a block writes at most 16 leaves of the store's IAVL tree instead of one per
# validator (a hundred leaves, their new inner nodes and orphans were a third of the module's cost per block). The
# price: a block rewrites the records of unbonded validators that share a bucket with a bonded one.
BUCKET_OF = [compose("distribution", "vals", bytes((first >> 4,))) for first in range(256)]
_FRAME = struct.Struct(">BI")     # a bucket entry: the operator's length, the record's length


@attrs.define
class ValidatorRewards:
    """A validator's running F1 records, under one key as each block's allocation reads and writes them all
    together: outstanding rewards, accumulated commission, and the current period with its rewards."""

    outstanding: dict = attrs.Factory(dict)
    commission: dict = attrs.Factory(dict)
    current: dict = attrs.Factory(dict)
    period: int = 1


def bucket_key(operator):
    return BUCKET_OF[operator[0]]


def split_bucket(key, raw):
    """{operator: record bytes} of bucket `key`'s bytes `raw`, shared with the next reader of the same bytes: not
    to be changed. The bytes a block wrote are read back by the next block as that very object (the store hands
    out what it was given), so they are split once."""
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


def joined_bucket(key, records):
    """The bytes of bucket `key` holding `records` ({operator: record bytes}, which the caller gives up), by
    operator."""
    pack = _FRAME.pack
    raw = b"".join([b"".join((pack(len(operator), len(records[operator])), operator, records[operator]))
                    for operator in sorted(records)])
    _SPLIT[key] = (raw, records)
    return raw


# Each bucket as last split or written, by key: (its bytes, {operator: record bytes}).
_SPLIT = {}


def record_of(rewards):
    return orjson.dumps({"out": dec_coins.to_record(rewards.outstanding),
                         "comm": dec_coins.to_record(rewards.commission),
                         "cur": dec_coins.to_record(rewards.current), "period": rewards.period})


def allocated(raw, operator, denom, commission, amount):
    """The record `raw` (None: none yet) with `amount` of `denom` allocated, `commission` of it to the commission."""
    known = _ALLOCATED.get(operator)
    if known is not None and known[0] is raw and known[1] == denom:
        _, _, out, accumulated, current, period = known
    else:
        record = {"out": {}, "comm": {}, "cur": {}, "period": 1} if raw is None else orjson.loads(raw)
        if any(len(record[name]) > 1 or (record[name] and denom not in record[name]) for name in _MAPS):
            # Other denoms in the record: the text maps' general sum.
            record["out"] = added_one(record["out"], denom, amount)
            record["comm"] = added_one(record["comm"], denom, commission)
            record["cur"] = added_one(record["cur"], denom, amount - commission)
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


def added_one(record, denom, amount):
    """added(record, {denom: amount})."""
    if not record:
        return {denom: str(amount)} if amount else {}
    held = record.get(denom)
    if held is None or len(record) > 1:
        return added(record, {denom: amount})
    # One denom on either side: nothing to merge or sort.
    total = int(held) + amount
    return {denom: str(total)} if total else {}


def added(record, coins):
    """A record's coin map (denom -> atomics text) plus `coins`, as dec_coins.to_record(dec_coins.add(...))."""
    out = {denom: int(amount) for denom, amount in record.items()}
    for denom, amount in coins.items():
        out[denom] = out.get(denom, 0) + amount
    if len(out) < 2:
        return {denom: str(amount) for denom, amount in out.items() if amount}
    return {denom: str(amount) for denom, amount in sorted(out.items()) if amount}


def hist_key(operator, period):
    return compose("distribution", "hist", operator, period.to_bytes(8, "big"))


def start_key(operator, delegator):
    return compose("distribution", "start", operator, delegator)
