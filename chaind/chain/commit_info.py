"""What consensus tells the app of a block beyond its txs: the votes of the last commit and the misbehavior
it found (ABCI's CommitInfo and Misbehavior), which slashing and evidence act on in their begin blockers.

The solo producer makes them itself (its validator signs, no other does; evidence from broadcast_evidence);
in socket mode they are CometBFT's, from FinalizeBlock. A block record keeps them so replays see the same.
"""

import attrs

from chaind.chain.votes import BLOCK_ID_FLAG_ABSENT

DUPLICATE_VOTE, LIGHT_CLIENT_ATTACK = 1, 2          # abci.MisbehaviorType


@attrs.frozen
class VoteInfo:
    address: bytes          # the validator's consensus address
    power: int
    block_id_flag: int

    @property
    def missed(self):
        """What x/slashing counts as a missed block: an absent vote (a nil vote counts as signed)."""
        return self.block_id_flag == BLOCK_ID_FLAG_ABSENT

    def to_record(self):
        return [self.address.hex(), self.power, self.block_id_flag]

    @classmethod
    def from_record(cls, rec):
        return cls(bytes.fromhex(rec[0]), rec[1], rec[2])


@attrs.frozen
class Misbehavior:
    kind: int               # DUPLICATE_VOTE or LIGHT_CLIENT_ATTACK
    address: bytes
    power: int
    height: int
    time_ns: int
    total_voting_power: int

    def to_record(self):
        return [self.kind, self.address.hex(), self.power, self.height, self.time_ns, self.total_voting_power]

    @classmethod
    def from_record(cls, rec):
        kind, address, power, height, time_ns, total = rec
        return cls(kind, bytes.fromhex(address), power, height, time_ns, total)


def of_abci_commit(commit_info):
    """VoteInfos of a tendermint.abci.CommitInfo."""
    return tuple(VoteInfo(v.validator.address, v.validator.power, v.block_id_flag) for v in commit_info.votes)


def of_abci_misbehavior(items):
    """Misbehaviors of tendermint.abci.Misbehavior messages."""
    return tuple(Misbehavior(m.type, m.validator.address, m.validator.power, m.height,
                             m.time.seconds * 10**9 + m.time.nanos, m.total_voting_power) for m in items)
