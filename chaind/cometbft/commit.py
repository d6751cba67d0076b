"""Signed commits: the validator's ed25519 precommit over CometBFT's CanonicalVote sign bytes.

Ed25519 signatures are deterministic, so a commit signed again for the same vote is the same commit.
"""

from cryptography.hazmat.primitives.asymmetric import ed25519

from chaind.chain import votes
from chaind.chain.genesis import format_time
from chaind.cometbft import encode as enc


class CommitSigner:
    """Signs commits with this node's validator key (priv_validator_key.json)."""

    def __init__(self, seed):
        self._key = ed25519.Ed25519PrivateKey.from_private_bytes(seed)

    def commit(self, chain_id, header, meta, vote_time_ns, validator_address):
        """The Commit JSON for a block: one precommit by our validator, at `vote_time_ns`."""
        bid = enc.block_id_of(meta)
        signature = self._key.sign(votes.sign_bytes(chain_id, header.height, 0, bid, vote_time_ns))
        return {"height": str(header.height), "round": 0, "block_id": enc.block_id(bid),
                "signatures": [{"block_id_flag": votes.BLOCK_ID_FLAG_COMMIT, "validator_address": enc.hexu(validator_address),
                                "timestamp": format_time(vote_time_ns), "signature": enc.b64(signature)}]}
