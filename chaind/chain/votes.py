"""Precommits: the validator's ed25519 signature over CometBFT's CanonicalVote sign bytes.

Each block carries the commit of its parent (last_commit) and its header hashes it, as in CometBFT.
With one validator the vote's time is the next block's time (CometBFT's median of one vote), and
ed25519 is deterministic: a commit computed again is the same commit.
"""

import struct

from google.protobuf import timestamp_pb2

from chaind.chain import merkle, wire
from chaind.pb.tendermint.types import types_pb2

BLOCK_ID_FLAG_ABSENT, BLOCK_ID_FLAG_COMMIT = 1, 2
GO_ZERO_TIME_SECONDS = -62135596800       # 0001-01-01T00:00:00Z, what an absent vote's time is
_SFIXED64 = struct.Struct("<q")


PREVOTE, PRECOMMIT = types_pb2.SIGNED_MSG_TYPE_PREVOTE, types_pb2.SIGNED_MSG_TYPE_PRECOMMIT


def sign_bytes(chain_id, height, round_, block_id, time_ns, vote_type=PRECOMMIT):
    """VoteSignBytes: the length-delimited CanonicalVote (a precommit unless told otherwise), written by hand as
    protobuf writes it (the solo producer signs one a block, anvil_mine thousands a call)."""
    body = wire.varint_field(b"\x08", vote_type)
    if height:
        body += b"\x11" + _SFIXED64.pack(height)
    if round_:
        body += b"\x19" + _SFIXED64.pack(round_)
    if block_id.hash or block_id.parts_total or block_id.parts_hash:
        parts = wire.varint_field(b"\x08", block_id.parts_total) + wire.bytes_field(b"\x12", block_id.parts_hash)
        body += wire.bytes_field(b"\x22", wire.bytes_field(b"\x0a", block_id.hash) +
                                 wire.bytes_field(b"\x12", parts, always=True), always=True)
    body += wire.bytes_field(b"\x2a", wire.timestamp(time_ns), always=True) + \
        wire.bytes_field(b"\x32", chain_id.encode())
    return wire.varint(len(body)) + body


def commit_sig(validator_address, time_ns, signature):
    return types_pb2.CommitSig(block_id_flag=BLOCK_ID_FLAG_COMMIT, validator_address=validator_address,
                               timestamp=_timestamp(time_ns), signature=signature)


def absent_sig():
    """A validator that did not precommit: no address, Go's zero time, no signature (CometBFT's NewCommitSigAbsent)."""
    return types_pb2.CommitSig(block_id_flag=BLOCK_ID_FLAG_ABSENT,
                               timestamp=timestamp_pb2.Timestamp(seconds=GO_ZERO_TIME_SECONDS))


ABSENT_SIG_BYTES = absent_sig().SerializeToString()


def commit_hash(sigs):
    """Commit.Hash(): the Merkle root of the encoded CommitSigs."""
    return merkle.root([sig.SerializeToString() for sig in sigs])


def commit_sig_bytes(validator_address, time_ns, signature):
    """commit_sig(...).SerializeToString(), written by hand (a header hashes one a block)."""
    return b"".join((b"\x08\x02", wire.bytes_field(b"\x12", validator_address),
                     wire.bytes_field(b"\x1a", wire.timestamp(time_ns), always=True),
                     wire.bytes_field(b"\x22", signature)))


def _timestamp(time_ns):
    seconds, nanos = divmod(time_ns, 10**9)
    return timestamp_pb2.Timestamp(seconds=seconds, nanos=nanos)
