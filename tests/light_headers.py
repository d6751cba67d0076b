"""Signed headers for light-client tests and benches: a chain of validator sets with ed25519 keys that sign
CometBFT precommits, and the conversion of a node's /commit and /validators JSON into tendermint.types protos."""

import base64
import datetime
import hashlib

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519
from google.protobuf import timestamp_pb2

from chaind.chain import votes
from chaind.chain.block import BLOCK_PROTOCOL, BlockId
from chaind.consensus import light
from chaind.pb.tendermint.crypto import keys_pb2
from chaind.pb.tendermint.types import types_pb2, validator_pb2

CHAIN_ID = "counterparty_9001-1"
SECOND = 10**9


def key(seed):
    """A deterministic ed25519 key."""
    return ed25519.Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"validator %d" % seed).digest())


def public(private):
    return private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def validator_set(keys, power=10):
    """(ValidatorSet proto, {address: private key}) of `keys`, each with `power`, in CometBFT's order (power
    descending, then address)."""
    members = []
    for private in keys:
        pubkey = public(private)
        members.append(validator_pb2.Validator(address=hashlib.sha256(pubkey).digest()[:20],
                                               pub_key=keys_pb2.PublicKey(ed25519=pubkey), voting_power=power))
    members.sort(key=lambda v: (-v.voting_power, v.address))
    proto = validator_pb2.ValidatorSet(validators=members, proposer=members[0], total_voting_power=power * len(keys))
    return proto, {hashlib.sha256(public(k)).digest()[:20]: k for k in keys}


def signed_header(height, time_ns, vals, next_vals, signers, chain_id=CHAIN_ID, app_hash=b"\x01" * 32):
    """A SignedHeader at `height` of a chain run by `vals` (a (proto, keys) pair), committed with the precommits
    of the validators whose addresses are in `signers` (None: all)."""
    proto, keys = vals
    header = types_pb2.Header(
        chain_id=chain_id, height=height, time=_timestamp(time_ns),
        last_block_id=types_pb2.BlockID(hash=hashlib.sha256(b"block %d" % (height - 1)).digest(),
                                        part_set_header=types_pb2.PartSetHeader(total=1, hash=b"\x02" * 32)),
        last_commit_hash=b"\x03" * 32, data_hash=b"\x04" * 32,
        validators_hash=light.ValidatorSet.from_proto(proto).hash(),
        next_validators_hash=light.ValidatorSet.from_proto(next_vals[0]).hash(),
        consensus_hash=b"\x05" * 32, app_hash=app_hash, last_results_hash=b"\x06" * 32, evidence_hash=b"",
        proposer_address=proto.proposer.address)
    header.version.block = BLOCK_PROTOCOL
    return types_pb2.SignedHeader(header=header, commit=commit(header, vals, signers))


def commit(header, vals, signers=None):
    """The commit of `header` by `vals`' validators in `signers` (None: all), in the set's order."""
    proto, keys = vals
    block_hash = light.header_hash(header)
    block_id = types_pb2.BlockID(hash=block_hash, part_set_header=types_pb2.PartSetHeader(total=1,
                                                                                           hash=b"\x07" * 32))
    ours = BlockId(block_hash, 1, b"\x07" * 32)
    sigs = []
    for index, v in enumerate(proto.validators):
        if signers is not None and v.address not in signers:
            sigs.append(votes.absent_sig())
            continue
        time_ns = light.time_ns(header.time) + SECOND + index
        signature = keys[v.address].sign(votes.sign_bytes(header.chain_id, header.height, 0, ours, time_ns))
        sigs.append(types_pb2.CommitSig(block_id_flag=validator_pb2.BLOCK_ID_FLAG_COMMIT,
                                        validator_address=v.address, timestamp=_timestamp(time_ns),
                                        signature=signature))
    return types_pb2.Commit(height=header.height, round=0, block_id=block_id, signatures=sigs)


def _timestamp(time_ns):
    seconds, nanos = divmod(time_ns, SECOND)
    return timestamp_pb2.Timestamp(seconds=seconds, nanos=nanos)


# A node's CometBFT RPC answers, as a relayer reads them.

def _hex(text):
    return bytes.fromhex(text or "")


def _time(text):
    """A CometBFT RFC 3339 time in UTC with up to nine fraction digits."""
    whole, _, fraction = text.rstrip("Z").partition(".")
    seconds = int(datetime.datetime.strptime(whole, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.UTC).timestamp())
    return timestamp_pb2.Timestamp(seconds=seconds, nanos=int(fraction.ljust(9, "0")) if fraction else 0)


def _block_id(doc):
    return types_pb2.BlockID(hash=_hex(doc["hash"]), part_set_header=types_pb2.PartSetHeader(
        total=int(doc["parts"]["total"]), hash=_hex(doc["parts"]["hash"])))


def signed_header_from_json(doc):
    """/commit's signed_header as tendermint.types.SignedHeader."""
    h, c = doc["header"], doc["commit"]
    header = types_pb2.Header(
        chain_id=h["chain_id"], height=int(h["height"]), time=_time(h["time"]),
        last_block_id=_block_id(h["last_block_id"]),
        **{name: _hex(h[name]) for name in ("last_commit_hash", "data_hash", "validators_hash",
                                            "next_validators_hash", "consensus_hash", "app_hash", "last_results_hash",
                                            "evidence_hash", "proposer_address")})
    header.version.block = int(h["version"]["block"])
    header.version.app = int(h["version"].get("app", "0"))
    sigs = []
    for s in c["signatures"]:
        sig = types_pb2.CommitSig(block_id_flag=int(s["block_id_flag"]), validator_address=_hex(s["validator_address"]),
                                  signature=base64.b64decode(s["signature"] or ""))
        sig.timestamp.CopyFrom(_time(s["timestamp"]))
        sigs.append(sig)
    commit_ = types_pb2.Commit(height=int(c["height"]), round=int(c["round"]), block_id=_block_id(c["block_id"]),
                               signatures=sigs)
    return types_pb2.SignedHeader(header=header, commit=commit_)


def validator_set_from_json(validators):
    """/validators' list as tendermint.types.ValidatorSet (its first the proposer, as a relayer would pick one)."""
    members = [validator_pb2.Validator(address=_hex(v["address"]),
                                       pub_key=keys_pb2.PublicKey(ed25519=base64.b64decode(v["pub_key"]["value"])),
                                       voting_power=int(v["voting_power"]),
                                       proposer_priority=int(v["proposer_priority"]))
               for v in validators]
    return validator_pb2.ValidatorSet(validators=members, proposer=members[0],
                                      total_voting_power=sum(v.voting_power for v in members))
