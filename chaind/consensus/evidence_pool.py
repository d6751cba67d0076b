"""Verified evidence waiting for a block (CometBFT's pending evidence), for the solo producer.

broadcast_evidence admits evidence once it verifies (chain/evidence.py); the next block carries what fits
the consensus params' evidence max_bytes, oldest first, and the rest waits for the blocks after.
"""

from chaind.chain import evidence as evidence_mod


class EvidencePool:
    def __init__(self):
        self._pending = {}          # hash -> DuplicateVoteEvidence, in arrival order

    def __len__(self):
        return len(self._pending)

    def __contains__(self, evidence_hash):
        return evidence_hash in self._pending

    def add(self, dve):
        self._pending.setdefault(evidence_mod.hash_of(dve), dve)

    def for_block(self, max_bytes):
        """The evidence the next block carries: as much as fits its params' max_bytes, in arrival order."""
        chosen, size = [], 0
        for dve in self._pending.values():
            size += dve.ByteSize()
            if size > max_bytes:
                break
            chosen.append(dve)
        return tuple(chosen)

    def remove_committed(self, blocks):
        for block in blocks:
            for dve in block.evidence:
                self._pending.pop(evidence_mod.hash_of(dve), None)
