"""Precommits: the validator's ed25519 signature over CometBFT's CanonicalVote sign bytes.

Each block carries the commit of its parent (last_commit) and its header hashes it, as in CometBFT.
With one validator the vote's time is the next block's time (CometBFT's median of one vote), and
ed25519 is deterministic: a commit computed again is the same commit.
"""

from google.protobuf import timestamp_pb2
from google.protobuf.internal import encoder

from chaind.chain import merkle
from chaind.pb.tendermint.types import canonical_pb2, types_pb2

BLOCK_ID_FLAG_ABSENT, BLOCK_ID_FLAG_COMMIT = 1, 2
GO_ZERO_TIME_SECONDS = -62135596800       # 0001-01-01T00:00:00Z, what an absent vote's time is


PREVOTE, PRECOMMIT = types_pb2.SIGNED_MSG_TYPE_PREVOTE, types_pb2.SIGNED_MSG_TYPE_PRECOMMIT


def sign_bytes(chain_id, height, round_, block_id, time_ns, vote_type=PRECOMMIT):
    """VoteSignBytes: the length-delimited CanonicalVote (a precommit unless told otherwise)."""
    vote = canonical_pb2.CanonicalVote(type=vote_type, height=height, round=round_, chain_id=chain_id)
    if block_id.hash or block_id.parts_total or block_id.parts_hash:
        vote.block_id.hash = block_id.hash
        vote.block_id.part_set_header.total = block_id.parts_total
        vote.block_id.part_set_header.hash = block_id.parts_hash
    vote.timestamp.CopyFrom(_timestamp(time_ns))
    body = vote.SerializeToString()
    return encoder._VarintBytes(len(body)) + body


def commit_sig(validator_address, time_ns, signature):
    return types_pb2.CommitSig(block_id_flag=BLOCK_ID_FLAG_COMMIT, validator_address=validator_address,
                               timestamp=_timestamp(time_ns), signature=signature)


def absent_sig():
    """A validator that did not precommit: no address, Go's zero time, no signature (CometBFT's NewCommitSigAbsent)."""
    return types_pb2.CommitSig(block_id_flag=BLOCK_ID_FLAG_ABSENT,
                               timestamp=timestamp_pb2.Timestamp(seconds=GO_ZERO_TIME_SECONDS))


def commit_hash(sigs):
    """Commit.Hash(): the Merkle root of the encoded CommitSigs."""
    return merkle.root([sig.SerializeToString() for sig in sigs])


def _timestamp(time_ns):
    seconds, nanos = divmod(time_ns, 10**9)
    return timestamp_pb2.Timestamp(seconds=seconds, nanos=nanos)
