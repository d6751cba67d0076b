"""staking's records as x/staking v0.50 lays them out in its IAVL store (types/keys.go), which light clients
and relayers read: the multistore writes these in place of the native keys they come from.

Validators 0x21 | len | operator -> Validator; by consensus address 0x22 | len | address -> operator;
delegations 0x31 | len | delegator | len | validator -> Delegation, by validator 0x71 | len | validator |
delegator -> empty; unbonding delegations 0x32 (by validator 0x33), redelegations 0x34 (by source 0x35, by
destination 0x36); last validator powers 0x11 | len | operator -> Int64Value, last total power 0x12 -> IntProto;
the unbonding id counter 0x37 (big-endian uint64); params 0x51. The time queues keep chaind's own layout
(one key per entry where the SDK keeps one list per time), under their word keys, which no SDK prefix starts.
"""

import functools

import orjson
from google.protobuf import wrappers_pb2

from chaind.chain.modules.staking import protos
from chaind.chain.modules.staking.params import Params
from chaind.chain.modules.staking.records import Validator
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.store.keys import decompose


def _lp(part):
    return bytes((len(part),)) + part


def _joined(prefix_byte):
    return lambda parts: prefix_byte + b"".join(map(_lp, parts))


def _empty(prefix, parts, value):
    return b""


# word of the native key -> (its SDK key from the native key's parts, its SDK value)
_PLACES = {
    b"val": (_joined(b"\x21"),
             lambda prefix, parts, value: protos.validator(Validator.from_record(value), prefix + "valoper")),
    b"cons": (_joined(b"\x22"), lambda prefix, parts, value: value),
    b"del": (_joined(b"\x31"), lambda prefix, parts, value: protos.delegation(prefix, *parts, int(value))),
    # GetDelegationsByValKey: the delegator ends the key, not length-prefixed.
    b"delv": (lambda parts: b"\x71" + _lp(parts[0]) + parts[1], _empty),
    b"ubd": (_joined(b"\x32"), lambda prefix, parts, value: protos.unbonding(prefix, *parts, orjson.loads(value))),
    b"ubdv": (_joined(b"\x33"), _empty),
    b"red": (_joined(b"\x34"),
             lambda prefix, parts, value: protos.redelegation(prefix, *parts, orjson.loads(value))),
    b"reds": (_joined(b"\x35"), _empty),
    b"redd": (_joined(b"\x36"), _empty),
    b"last": (_joined(b"\x11"), lambda prefix, parts, value: wrappers_pb2.Int64Value(value=int(value))),
    b"total": (_joined(b"\x12"), lambda prefix, parts, value: coin_pb2.IntProto(int=value.decode())),
    b"ubdid": (_joined(b"\x37"), lambda prefix, parts, value: int(value).to_bytes(8, "big")),
    b"params": (_joined(b"\x51"), lambda prefix, parts, value: protos.params(Params.from_record(value))),
}


def entries(prefix, rest, value):
    """[(key in the staking store, value or None to delete)] of a staking native key (`rest`: the key after
    its module part; `value`: its native value, None when deleted), or None for a key kept as it is.
    `prefix`: the chain's bech32 prefix (the protos name addresses in bech32)."""
    parts = decompose(rest)
    place = _PLACES.get(parts[0])
    if place is None:
        return None
    key_of, value_of = place
    key = key_of(parts[1:])
    if value is None:
        return [(key, None)]
    found = value_of(prefix, parts[1:], value)
    return [(key, found if found.__class__ is bytes else found.SerializeToString())]


def layout(bech32_prefix):
    return functools.partial(entries, bech32_prefix)
