"""Signed commits: the validator's ed25519 precommit over CometBFT's CanonicalVote sign bytes.

Ed25519 signatures are deterministic, so a commit signed again for the same vote is the same commit.
"""

from cryptography.hazmat.primitives.asymmetric import ed25519
from google.protobuf import timestamp_pb2
from google.protobuf.internal import encoder

from chaind.cometbft import encode as enc
from chaind.chain.genesis import format_time
from chaind.pb.tendermint.types import canonical_pb2, types_pb2

BLOCK_ID_FLAG_COMMIT = 2


def sign_bytes(chain_id, height, round_, block_id, time_ns):
    """VoteSignBytes of a precommit: the length-delimited CanonicalVote."""
    vote = canonical_pb2.CanonicalVote(type=types_pb2.SIGNED_MSG_TYPE_PRECOMMIT, height=height, round=round_,
                                       chain_id=chain_id)
    if block_id.hash or block_id.parts_total or block_id.parts_hash:
        vote.block_id.hash = block_id.hash
        vote.block_id.part_set_header.total = block_id.parts_total
        vote.block_id.part_set_header.hash = block_id.parts_hash
    seconds, nanos = divmod(time_ns, 10**9)
    vote.timestamp.CopyFrom(timestamp_pb2.Timestamp(seconds=seconds, nanos=nanos))
    body = vote.SerializeToString()
    return encoder._VarintBytes(len(body)) + body


class CommitSigner:
    """Signs commits with this node's validator key (priv_validator_key.json)."""

    def __init__(self, seed):
        self._key = ed25519.Ed25519PrivateKey.from_private_bytes(seed)

    def commit(self, chain_id, header, meta, vote_time_ns, validator_address):
        """The Commit JSON for a block: one precommit by our validator, at `vote_time_ns`."""
        bid = enc.block_id_of(meta)
        signature = self._key.sign(sign_bytes(chain_id, header.height, 0, bid, vote_time_ns))
        return {"height": str(header.height), "round": 0, "block_id": enc.block_id(bid),
                "signatures": [{"block_id_flag": BLOCK_ID_FLAG_COMMIT, "validator_address": enc.hexu(validator_address),
                                "timestamp": format_time(vote_time_ns), "signature": enc.b64(signature)}]}
