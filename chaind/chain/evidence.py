"""CometBFT's duplicate-vote evidence (tendermint.types.DuplicateVoteEvidence): its checks, hash and misbehavior.

What CometBFT's evidence pool does before it admits evidence for a block (ValidateBasic, then verify against
the chain: the block's time, the evidence's age, the validator set at its height, both signatures over the
canonical vote); the errors read as CometBFT's.
"""

import datetime
import hashlib

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import ed25519

from chaind.chain import merkle, votes
from chaind.chain.block import BlockId
from chaind.chain.commit_info import DUPLICATE_VOTE, Misbehavior
from chaind.pb.tendermint.types import types_pb2

MAX_SIGNATURE_SIZE = 64
_TYPE_NAMES = {votes.PREVOTE: "Prevote", votes.PRECOMMIT: "Precommit"}


class EvidenceError(ValueError):
    """Evidence CometBFT would refuse; the message is its error."""


def hash_of(dve):
    """DuplicateVoteEvidence.Hash(): SHA-256 of its proto encoding."""
    return hashlib.sha256(dve.SerializeToString()).digest()


def list_hash(evidence):
    """EvidenceList.Hash(): the Merkle root of each evidence's proto bytes (the header's evidence_hash)."""
    return merkle.root([dve.SerializeToString() for dve in evidence])


def time_ns(timestamp):
    return timestamp.seconds * 10**9 + timestamp.nanos


def misbehavior(dve):
    """DuplicateVoteEvidence.ABCI(): what FinalizeBlock hands the app."""
    return Misbehavior(DUPLICATE_VOTE, dve.vote_a.validator_address, dve.validator_power, dve.vote_a.height,
                       time_ns(dve.timestamp), dve.total_voting_power)


def _block_id(vote):
    bid = vote.block_id
    return BlockId(bid.hash, bid.part_set_header.total, bid.part_set_header.hash)


def _block_id_key(vote):
    """BlockID.Key(): the hash then the encoded PartSetHeader, compared as strings."""
    return vote.block_id.hash + vote.block_id.part_set_header.SerializeToString()


def _validate_vote(vote):
    """Vote.ValidateBasic."""
    if vote.type not in _TYPE_NAMES:
        raise EvidenceError("invalid Type")
    if vote.height <= 0:
        raise EvidenceError("negative or zero Height")
    if vote.round < 0:
        raise EvidenceError("negative Round")
    bid = vote.block_id
    if bid.hash and len(bid.hash) != 32:
        raise EvidenceError(f"wrong BlockID: wrong Hash: expected size to be 32 bytes, got {len(bid.hash)} bytes")
    if bid.part_set_header.hash and len(bid.part_set_header.hash) != 32:
        raise EvidenceError(f"wrong BlockID: wrong PartSetHeader: wrong Hash: expected size to be 32 bytes, got "
                            f"{len(bid.part_set_header.hash)} bytes")
    zero = not bid.hash and not bid.part_set_header.total and not bid.part_set_header.hash
    complete = len(bid.hash) == 32 and bid.part_set_header.total > 0 and len(bid.part_set_header.hash) == 32
    if not zero and not complete:
        raise EvidenceError(f"blockID must be either empty or complete, got: {_block_id_text(bid)}")
    if len(vote.validator_address) != 20:
        raise EvidenceError(f"expected ValidatorAddress size to be 20 bytes, got {len(vote.validator_address)} bytes")
    if vote.validator_index < 0:
        raise EvidenceError("negative ValidatorIndex")
    if not vote.signature:
        raise EvidenceError("signature is missing")
    if len(vote.signature) > MAX_SIGNATURE_SIZE:
        raise EvidenceError(f"signature is too big (max: {MAX_SIGNATURE_SIZE})")
    if vote.type != votes.PRECOMMIT and (vote.extension or vote.extension_signature):
        raise EvidenceError("unexpected vote extension")


def validate_basic(dve):
    """DuplicateVoteEvidence.ValidateBasic, as broadcast_evidence runs it first."""
    if not dve.HasField("vote_a") or not dve.HasField("vote_b"):
        raise EvidenceError(f"one or both of the votes are empty {_vote_text(dve.vote_a, dve.HasField('vote_a'))}, "
                            f"{_vote_text(dve.vote_b, dve.HasField('vote_b'))}")
    for name, vote in (("VoteA", dve.vote_a), ("VoteB", dve.vote_b)):
        try:
            _validate_vote(vote)
        except EvidenceError as e:
            raise EvidenceError(f"invalid {name}: {e}") from None
    if _block_id_key(dve.vote_a) >= _block_id_key(dve.vote_b):
        raise EvidenceError("duplicate votes in invalid order")


def verify(app, dve, head=None):
    """The evidence pool's verify: against the block at the evidence's height (its time), the age limits of
    the consensus params, and the validator set that signed that height (VerifyDuplicateVote)."""
    head_header = (head or app.head)[0]
    height = dve.vote_a.height
    found = app.block_at(height) if height <= head_header.height else None
    if found is None or height < app.genesis.initial_height:
        raise EvidenceError(f"don't have header #{height}")
    block_time = found[0].time_ns
    if time_ns(dve.timestamp) != block_time:
        raise EvidenceError(_invalid(dve, "evidence has a different time to the block it is associated with "
                                          f"({_go_time(time_ns(dve.timestamp))} != {_go_time(block_time)})"))
    # CometBFT's pool checks against its state's params: those the next block runs with.
    params = app.consensus_params(head_header.height + 1).evidence
    max_blocks = params.max_age_num_blocks
    max_duration = params.max_age_duration.seconds * 10**9 + params.max_age_duration.nanos
    if head_header.time_ns - block_time > max_duration and head_header.height - height > max_blocks:
        raise EvidenceError(_invalid(dve, f"evidence from height {height} (created at: {_go_time(block_time)}) is "
                                          f"too old; min height is {head_header.height - max_blocks} and evidence "
                                          f"can not be older than {_go_time(head_header.time_ns + max_duration)}"))
    validators = app.validator_set(height)
    a, b = dve.vote_a, dve.vote_b
    member = next((v for v in validators if v.address == a.validator_address), None)
    if member is None:
        raise EvidenceError(f"address {a.validator_address.hex().upper()} was not a validator at height {height}")
    if (a.height, a.round, a.type) != (b.height, b.round, b.type):
        raise EvidenceError(f"h/r/s does not match: {a.height}/{a.round}/{_type_name(a.type)} vs "
                            f"{b.height}/{b.round}/{_type_name(b.type)}")
    if a.validator_address != b.validator_address:
        raise EvidenceError(f"validator addresses do not match: {a.validator_address.hex().upper()} vs "
                            f"{b.validator_address.hex().upper()}")
    if a.block_id == b.block_id:
        raise EvidenceError(f"block IDs are the same ({_block_id_text(a.block_id)}) - not a real duplicate vote")
    if member.power != dve.validator_power:
        raise EvidenceError(f"validator power from evidence and our validator set does not match "
                            f"({dve.validator_power} != {member.power})")
    total = sum(v.power for v in validators)
    if total != dve.total_voting_power:
        raise EvidenceError(f"total voting power from the evidence and our validator set does not match "
                            f"({dve.total_voting_power} != {total})")
    key = ed25519.Ed25519PublicKey.from_public_bytes(member.pubkey)
    for name, vote in (("VoteA", a), ("VoteB", b)):
        data = votes.sign_bytes(app.genesis.chain_id, vote.height, vote.round, _block_id(vote),
                                time_ns(vote.timestamp), vote.type)
        try:
            key.verify(vote.signature, data)
        except InvalidSignature:
            raise EvidenceError(f"verifying {name}: invalid signature") from None


def _type_name(kind):
    return types_pb2.SignedMsgType.Name(kind) if kind in types_pb2.SignedMsgType.values() else str(kind)


def _fingerprint(data):
    return data[:6].hex().upper()


def _canonical_time(ns):
    """CometBFT's CanonicalTime: RFC 3339 with nine fractional digits."""
    seconds, nanos = divmod(ns, 10**9)
    base = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{base}.{nanos:09d}Z"


def _go_time(ns):
    """Go's time.Time String() for a UTC time."""
    seconds, nanos = divmod(ns, 10**9)
    base = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    frac = f".{nanos:09d}".rstrip("0").rstrip(".")
    return f"{base}{frac} +0000 UTC"


def _vote_text(vote, present=True):
    """Vote.String()."""
    if not present:
        return "nil-Vote"
    return (f"Vote{{{vote.validator_index}:{_fingerprint(vote.validator_address)} {vote.height}/{vote.round:02d}/"
            f"{_type_name(vote.type)}({_TYPE_NAMES.get(vote.type, '?')}) {_fingerprint(vote.block_id.hash)} "
            f"{_fingerprint(vote.signature)} {_fingerprint(vote.extension)} "
            f"@ {_canonical_time(time_ns(vote.timestamp))}}}")


def _block_id_text(bid):
    return f"{bid.hash.hex().upper()}:{bid.part_set_header.total}:{bid.part_set_header.hash[:6].hex().upper()}"


def _invalid(dve, reason):
    """ErrInvalidEvidence's text."""
    return (f"invalid evidence: {reason}. Evidence: DuplicateVoteEvidence{{VoteA: {_vote_text(dve.vote_a)}, "
            f"VoteB: {_vote_text(dve.vote_b)}}}")
