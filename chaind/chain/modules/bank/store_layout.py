"""bank's records as x/bank v0.50 lays them out in its IAVL store (its collections, types/keys.go), which light
clients and relayers read: the multistore writes these in place of the native keys they come from.

Supply 0x00 | denom -> amount; denom metadata 0x01 | denom -> Metadata; balances 0x02 | len |
address | denom -> amount; params 0x05 -> Params. Amounts are decimal text, as math.Int marshals. No denom has
its own send_enabled entry (0x04): chaind keeps only the default. The SDK's address-by-denom index (0x03, what
DenomOwners reads) stays out of the tree: no light client proves it, and it would double every balance
write's tree work (bench/store_commit.py); chaind's own index answers DenomOwners.
"""

import orjson
from google.protobuf import json_format

from chaind.pb.cosmos.bank.v1beta1 import bank_pb2

STORE = "bank"
_SUPPLY = b"\x06supply"
_BALANCE = b"\x03bal"
_METADATA = b"\x04meta"
_PARAMS = b"\x06params"


def balance_key(address, denom):
    """A balance's key in the bank store: 0x02 | len | address | denom."""
    return b"\x02" + bytes((len(address),)) + address + (denom.encode() if denom.__class__ is str else denom)


def balance_holders(stores, info):
    """Every address the bank store at `info`'s version holds a balance of (the base denom's, mirrored from the
    EVM state, among them: an EVM account without an auth record too)."""
    if info is None:
        return set()
    return {key[2:2 + key[1]] for key, _ in stores.entries(info, "bank", b"\x02")}


def entries(rest, value):
    """[(key in the bank store, value or None to delete)] of a bank native key (`rest`: the key after its module
    part), or None for a key kept as it is."""
    if rest.startswith(_BALANCE):
        # compose's parts: address then denom, each length-prefixed
        at = len(_BALANCE)
        end = at + 1 + rest[at]
        return [(balance_key(rest[at + 1:end], rest[end + 1:]), value)]
    if rest.startswith(_METADATA):
        key = b"\x01" + rest[len(_METADATA) + 1:]
        if value is None:
            return [(key, None)]
        return [(key, json_format.ParseDict(orjson.loads(value), bank_pb2.Metadata()).SerializeToString())]
    if rest.startswith(_SUPPLY):
        # its value, the amount in decimal as math.Int marshals it, is the SDK's already
        return [(b"\x00" + rest[len(_SUPPLY) + 1:], value)]
    if rest == _PARAMS:
        return [(b"\x05", None if value is None else
                 bank_pb2.Params(default_send_enabled=value != b"0").SerializeToString())]
    return None


def layout(bech32_prefix):
    return entries
