"""The CometBFT validator set by height: what FinalizeBlock's validator updates make of it, and its hash.

Updates returned by block H change the set from height H+2 (header H+1's next_validators_hash, header
H+2's validators_hash), as in CometBFT. A set is stored under the height it takes effect from, only
when it changes, so the set at a height is the newest one stored at or below it.
"""

import functools
import hashlib

import attrs
import orjson

from chaind.chain import merkle
from chaind.pb.tendermint.crypto import keys_pb2
from chaind.pb.tendermint.types import validator_pb2
from chaind.store import keys

MAX_TOTAL_VOTING_POWER = (2**63 - 1) // 8     # CometBFT's MaxTotalVotingPower
_PAST = b"\xff" * 8 + b"\x00"


class ValidatorSetError(ValueError):
    """Updates CometBFT refuses (it halts the chain on them); the message is CometBFT's."""


@attrs.frozen
class SetValidator:
    address: bytes       # CometBFT address: SHA-256 of the ed25519 key, first 20 bytes
    pubkey: bytes
    power: int


def address_of(pubkey):
    return hashlib.sha256(pubkey).digest()[:20]


def ordered(validators):
    """CometBFT's order: voting power descending, then address ascending."""
    return tuple(sorted(validators, key=lambda v: (-v.power, v.address)))


def apply_updates(current, updates):
    """The set after `updates` [(pubkey, power)]: power 0 removes, any other adds or changes."""
    by_address = {v.address: v for v in current}
    seen = set()
    for pubkey, power in updates:
        address = address_of(pubkey)
        if address in seen:
            raise ValidatorSetError(f"duplicate entry Validator{{{address.hex().upper()}}} in updates")
        seen.add(address)
        if power < 0:
            raise ValidatorSetError(f"voting power can't be negative: {power}")
        if power == 0:
            if by_address.pop(address, None) is None:
                raise ValidatorSetError(f"failed to find validator {address.hex().upper()} to remove")
        else:
            by_address[address] = SetValidator(address, pubkey, power)
    if not by_address:
        raise ValidatorSetError("applying the validator changes would result in empty set")
    if sum(v.power for v in by_address.values()) > MAX_TOTAL_VOTING_POWER:
        raise ValidatorSetError(f"total voting power of resulting valset exceeds max {MAX_TOTAL_VOTING_POWER}")
    return ordered(by_address.values())


def hash_of(validators):
    """ValidatorSet.Hash(): the Merkle root of each SimpleValidator."""
    return merkle.root([
        validator_pb2.SimpleValidator(pub_key=keys_pb2.PublicKey(ed25519=v.pubkey),
                                      voting_power=v.power).SerializeToString()
        for v in validators])


def key(height):
    return keys.VALIDATOR_SET + keys.inverted_height(height)


def to_record(validators):
    return orjson.dumps([[v.pubkey.hex(), v.power] for v in validators])


def record_at(db, height):
    """The stored record of the set that signs block `height` (b"" before any is stored)."""
    found = db.seek_first(key(height), keys.VALIDATOR_SET + _PAST)
    return b"" if found is None else found[1]


def at(db, height):
    """The set that signs block `height` (empty before any is stored)."""
    return decoded(record_at(db, height))


# A set is read several times a block and stays the same for many: each record is decoded and hashed once.

@functools.lru_cache(maxsize=64)
def decoded(record):
    """The set a record holds (do not mutate)."""
    return tuple(SetValidator(address_of(bytes.fromhex(pubkey)), bytes.fromhex(pubkey), power)
                 for pubkey, power in (orjson.loads(record) if record else ()))


@functools.lru_cache(maxsize=64)
def hash_of_record(record):
    """hash_of the set a record holds."""
    return hash_of(decoded(record))
