"""CometBFT's light-client verification of another chain's headers (its `light` package, v0.38.11 as ibc-go v8.5
builds with): a signed header checked alone, then against a trusted one, adjacent or skipping with a trust level.

Headers, commits and validator sets are tendermint.types protobuf messages, as an IBC client receives them; times
and periods are nanoseconds. Failures raise LightError subclasses that say what CometBFT says.
"""

import datetime
import functools
import hashlib

import attrs
import coincurve
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import ed25519
from google.protobuf import wrappers_pb2

from chaind.chain import votes
from chaind.chain.block import BLOCK_PROTOCOL, BlockId
from chaind.pb.tendermint.crypto import keys_pb2
from chaind.pb.tendermint.types import types_pb2, validator_pb2
from chaind.store.iavl.node import uvarint
from chaind.store.iavl.proofs import simple_root

MAX_CHAIN_ID_LEN = 50
MAX_SIGNATURE_SIZE = 64
MAX_TOTAL_VOTING_POWER = (2**63 - 1) // 8
ADDRESS_SIZE = 20
DEFAULT_TRUST_LEVEL = (1, 3)
ABSENT, COMMIT, NIL = (validator_pb2.BLOCK_ID_FLAG_ABSENT, validator_pb2.BLOCK_ID_FLAG_COMMIT,
                       validator_pb2.BLOCK_ID_FLAG_NIL)


class LightError(Exception):
    """A header, commit or validator set that does not verify; str() is CometBFT's text."""


class InvalidHeader(LightError):
    def __init__(self, reason):
        super().__init__(f"invalid header: {reason}")
        self.reason = reason


class OldHeaderExpired(LightError):
    def __init__(self, at_ns, now_ns):
        super().__init__(f"old header has expired at {go_time(at_ns)} (now: {go_time(now_ns)})")


class NotEnoughVotingPowerSigned(LightError):
    def __init__(self, got, needed):
        super().__init__(f"invalid commit -- insufficient voting power: got {got}, needed more than {needed}")
        self.got, self.needed = got, needed


class NewValSetCantBeTrusted(LightError):
    def __init__(self, reason):
        super().__init__(f"cant trust new val set: {reason}")
        self.reason = reason


@attrs.frozen
class Validator:
    """A validator of a set: its address, key (("ed25519" | "secp256k1", bytes)) and voting power."""

    address: bytes
    key_type: str
    pubkey: bytes
    power: int

    def verify(self, message, signature):
        """CometBFT's PubKey.VerifySignature for the key's type."""
        if self.key_type == "ed25519":
            return len(signature) == 64 and _ed25519_valid(self.pubkey, message, signature)
        if len(signature) != 64:
            return False
        try:
            # libsecp256k1 refuses a high-s signature, as CometBFT does (it checks s is canonical).
            return coincurve.PublicKey(self.pubkey).verify(
                coincurve.ecdsa.cdata_to_der(coincurve.ecdsa.deserialize_compact(signature)), message,
                hasher=lambda m: hashlib.sha256(m).digest())
        except ValueError:
            return False

    def simple_bytes(self):
        key = keys_pb2.PublicKey(**{self.key_type: self.pubkey})
        return validator_pb2.SimpleValidator(pub_key=key, voting_power=self.power).SerializeToString()


@attrs.frozen
class ValidatorSet:
    """ValidatorSetFromProto then ValidateBasic: the validators in their order, checked, with their total power."""

    validators: tuple
    total_power: int

    @classmethod
    def from_proto(cls, proto):
        if not proto.validators:
            raise LightError("validator set is nil or empty")
        validators = []
        for index, raw in enumerate(proto.validators):
            try:
                validators.append(_validator(raw))
            except LightError as e:
                raise LightError(f"invalid validator #{index}: {e}") from None
        if not proto.HasField("proposer"):
            raise LightError("fromProto: validatorSet proposer error: nil validator")
        try:
            _validator(proto.proposer)
        except LightError as e:
            raise LightError(f"proposer failed validate basic, error: {e}") from None
        total = 0
        for v in validators:
            total += v.power
            if total > MAX_TOTAL_VOTING_POWER:
                raise LightError(f"Total voting power should be guarded to not exceed {MAX_TOTAL_VOTING_POWER}; "
                                 f"got: {total}")
        return cls(tuple(validators), total)

    def hash(self):
        """ValidatorSet.Hash(): the simple Merkle root of each SimpleValidator."""
        return simple_root([v.simple_bytes() for v in self.validators])

    def by_address(self, address):
        for index, v in enumerate(self.validators):
            if v.address == address:
                return index, v
        return None, None


def _validator(proto):
    kind = proto.pub_key.WhichOneof("sum")
    if kind is None:
        raise LightError("validator does not have a public key")
    pubkey = getattr(proto.pub_key, kind)
    if kind == "ed25519":
        if len(pubkey) != 32:
            raise LightError(f"invalid ed25519 public key size {len(pubkey)}")
        address = hashlib.sha256(pubkey).digest()[:ADDRESS_SIZE]
    else:
        if len(pubkey) != 33:
            raise LightError(f"invalid secp256k1 public key size {len(pubkey)}")
        address = hashlib.new("ripemd160", hashlib.sha256(pubkey).digest()).digest()
    if proto.voting_power < 0:
        raise LightError("validator has negative voting power")
    if proto.address != address:
        raise LightError(f"validator address is incorrectly derived from pubkey. Exp: {address.hex().upper()}, "
                         f"got {proto.address.hex().upper()}")
    return Validator(address, kind, pubkey, proto.voting_power)


@functools.lru_cache(maxsize=4096)
def _ed25519_valid(pubkey, message, signature):
    """Remembered, as CometBFT's caching verifier does: a skipping update checks most signatures twice (against
    the trusted set, then the new one)."""
    try:
        ed25519.Ed25519PublicKey.from_public_bytes(pubkey).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


# Headers and commits.

def header_hash(header):
    """Header.Hash(): the simple Merkle root of its 14 fields, each encoded as CometBFT encodes it; empty for a
    header without a validators hash, as CometBFT's nil."""
    if not header.validators_hash:
        return b""
    block_id = header.last_block_id
    parts = block_id.part_set_header.SerializeToString()
    encoded_block_id = (_bytes_field(1, block_id.hash) if block_id.hash else b"") + _bytes_field(2, parts)
    return simple_root([
        header.version.SerializeToString(),
        wrappers_pb2.StringValue(value=header.chain_id).SerializeToString(),
        wrappers_pb2.Int64Value(value=header.height).SerializeToString(),
        header.time.SerializeToString(),
        encoded_block_id,
        *(wrappers_pb2.BytesValue(value=getattr(header, name)).SerializeToString() for name in (
            "last_commit_hash", "data_hash", "validators_hash", "next_validators_hash", "consensus_hash", "app_hash",
            "last_results_hash", "evidence_hash", "proposer_address"))])


def _bytes_field(number, value):
    return uvarint(number << 3 | 2) + uvarint(len(value)) + value



def time_ns(timestamp):
    return timestamp.seconds * 10**9 + timestamp.nanos


def go_time(ns):
    """Go's time.Time String() of a UTC time, as CometBFT's texts print it."""
    seconds, nanos = divmod(ns, 10**9)
    moment = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC) + datetime.timedelta(seconds=seconds)
    fraction = f".{nanos:09d}".rstrip("0") if nanos else ""
    return f"{moment:%Y-%m-%d %H:%M:%S}{fraction} +0000 UTC"


def validate_header(header):
    """Header.ValidateBasic."""
    if header.version.block != BLOCK_PROTOCOL:
        raise LightError(f"block protocol is incorrect: got: {header.version.block}, want: {BLOCK_PROTOCOL} ")
    if len(header.chain_id) > MAX_CHAIN_ID_LEN:
        raise LightError(f"chainID is too long; got: {len(header.chain_id)}, max: {MAX_CHAIN_ID_LEN}")
    if header.height < 0:
        raise LightError("negative Height")
    if header.height == 0:
        raise LightError("zero Height")
    block_id = header.last_block_id
    if not _hash_size_ok(block_id.hash):
        raise LightError("wrong LastBlockID: wrong Hash")
    if not _hash_size_ok(block_id.part_set_header.hash):
        parts_hash = block_id.part_set_header.hash
        raise LightError(f"wrong LastBlockID: wrong PartSetHeader: wrong Hash: {_hash_size_text(parts_hash)}")
    for name, label in (("last_commit_hash", "LastCommitHash"), ("data_hash", "DataHash"),
                        ("evidence_hash", "EvidenceHash")):
        if not _hash_size_ok(getattr(header, name)):
            raise LightError(f"wrong {label}: {_hash_size_text(getattr(header, name))}")
    if len(header.proposer_address) != ADDRESS_SIZE:
        raise LightError(f"invalid ProposerAddress length; got: {len(header.proposer_address)}, expected: "
                         f"{ADDRESS_SIZE}")
    for name, label in (("validators_hash", "ValidatorsHash"), ("next_validators_hash", "NextValidatorsHash"),
                        ("consensus_hash", "ConsensusHash"), ("last_results_hash", "LastResultsHash")):
        if not _hash_size_ok(getattr(header, name)):
            raise LightError(f"wrong {label}: {_hash_size_text(getattr(header, name))}")


def _hash_size_ok(value):
    return not value or len(value) == 32


def _hash_size_text(value):
    return f"expected size to be 32 bytes, got {len(value)} bytes"


def _time_is_zero(sig):
    return not sig.HasField("timestamp") or (sig.timestamp.seconds == votes.GO_ZERO_TIME_SECONDS
                                              and sig.timestamp.nanos == 0)


def validate_commit_sig(sig):
    """CommitSig.ValidateBasic."""
    if sig.block_id_flag not in (ABSENT, COMMIT, NIL):
        raise LightError(f"unknown BlockIDFlag: {sig.block_id_flag}")
    if sig.block_id_flag == ABSENT:
        if sig.validator_address:
            raise LightError("validator address is present")
        if not _time_is_zero(sig):
            raise LightError("time is present")
        if sig.signature:
            raise LightError("signature is present")
        return
    if len(sig.validator_address) != ADDRESS_SIZE:
        raise LightError(f"expected ValidatorAddress size to be {ADDRESS_SIZE} bytes, got "
                         f"{len(sig.validator_address)} bytes")
    if not sig.signature:
        raise LightError("signature is missing")
    if len(sig.signature) > MAX_SIGNATURE_SIZE:
        raise LightError(f"signature is too big (max: {MAX_SIGNATURE_SIZE})")


def validate_commit(commit):
    """Commit.ValidateBasic."""
    if commit.height < 0:
        raise LightError("negative Height")
    if commit.round < 0:
        raise LightError("negative Round")
    if commit.height >= 1:
        block_id = commit.block_id
        if not block_id.hash and not block_id.part_set_header.total and not block_id.part_set_header.hash:
            raise LightError("commit cannot be for nil block")
        if not commit.signatures:
            raise LightError("no signatures in commit")
        for index, sig in enumerate(commit.signatures):
            try:
                validate_commit_sig(sig)
            except LightError as e:
                raise LightError(f"wrong CommitSig #{index}: {e}") from None


def validate_signed_header(signed, chain_id):
    """SignedHeader.ValidateBasic(chainID): both parts valid, of this chain, and the commit signs this header."""
    if not signed.HasField("header"):
        raise LightError("missing header")
    if not signed.HasField("commit"):
        raise LightError("missing commit")
    header, commit = signed.header, signed.commit
    try:
        validate_header(header)
    except LightError as e:
        raise LightError(f"invalid header: {e}") from None
    try:
        validate_commit(commit)
    except LightError as e:
        raise LightError(f"invalid commit: {e}") from None
    if header.chain_id != chain_id:
        raise LightError(f'header belongs to another chain "{header.chain_id}", not "{chain_id}"')
    if commit.height != header.height:
        raise LightError(f"header and commit height mismatch: {header.height} vs {commit.height}")
    computed = header_hash(header)
    if computed != commit.block_id.hash:
        raise LightError(f"commit signs block {commit.block_id.hash.hex().upper()}, header is block "
                         f"{computed.hex().upper()}")


def _vote_sign_bytes(chain_id, commit, sig):
    """Commit.VoteSignBytes of one commit sig (a precommit for the commit's block)."""
    block_id = commit.block_id if sig.block_id_flag == COMMIT else types_pb2.BlockID()
    ours = BlockId(block_id.hash, block_id.part_set_header.total, block_id.part_set_header.hash)
    return votes.sign_bytes(chain_id, commit.height, commit.round, ours, time_ns(sig.timestamp))


def _same_block_id(a, b):
    return (a.hash == b.hash and a.part_set_header.total == b.part_set_header.total
            and a.part_set_header.hash == b.part_set_header.hash)


def verify_commit_light(chain_id, vals, block_id, height, commit):
    """VerifyCommitLight: more than 2/3 of `vals`' power signed this block, each signature checked until then."""
    if len(vals.validators) != len(commit.signatures):
        raise LightError(f"Invalid commit -- wrong set size: {len(vals.validators)} vs {len(commit.signatures)}")
    if height != commit.height:
        raise LightError(f"Invalid commit -- wrong height: {height} vs {commit.height}")
    if not _same_block_id(block_id, commit.block_id):
        raise LightError(f"invalid commit -- wrong block ID: want {_block_id_text(block_id)}, got "
                         f"{_block_id_text(commit.block_id)}")
    _tally(chain_id, vals, commit, vals.total_power * 2 // 3, by_index=True)


def verify_commit_light_trusting(chain_id, vals, commit, trust_level):
    """VerifyCommitLightTrusting: more than trust_level of a trusted set's power signed, its validators found in
    the commit by address (the signing set may have changed)."""
    numerator, denominator = trust_level
    if denominator == 0:
        raise LightError("trustLevel has zero Denominator")
    product = vals.total_power * numerator
    if product > 2**63 - 1:
        raise LightError("int64 overflow while calculating voting power needed. please provide smaller trustLevel "
                         "numerator")
    _tally(chain_id, vals, commit, product // denominator, by_index=False)


def _tally(chain_id, vals, commit, needed, by_index):
    tallied, seen = 0, {}
    for index, sig in enumerate(commit.signatures):
        if sig.block_id_flag != COMMIT:
            continue
        try:
            validate_commit_sig(sig)
        except LightError:
            raise LightError(f"invalid signatures from validator at index {index}") from None
        if by_index:
            validator = vals.validators[index]
        else:
            found, validator = vals.by_address(sig.validator_address)
            if validator is None:
                continue
            if found in seen:
                raise LightError(f"double vote from {validator.address.hex().upper()} ({seen[found]} and {index})")
            seen[found] = index
        if not validator.verify(_vote_sign_bytes(chain_id, commit, sig), sig.signature):
            raise LightError(f"wrong signature (#{index}): {sig.signature.hex().upper()}")
        tallied += validator.power
        if tallied > needed:
            return
    raise NotEnoughVotingPowerSigned(tallied, needed)


def _block_id_text(block_id):
    return (f"{block_id.hash.hex().upper()}:{block_id.part_set_header.total}:"
            f"{block_id.part_set_header.hash.hex().upper()[:12]}")


# Verification against a trusted header.

def validate_trust_level(trust_level):
    numerator, denominator = trust_level
    if numerator * 3 < denominator or numerator > denominator or denominator == 0:
        raise LightError(f"trustLevel must be within [1/3, 1], given {numerator}/{denominator}")


def header_expired(signed, trusting_period_ns, now_ns):
    return not time_ns(signed.header.time) + trusting_period_ns > now_ns


def verify(trusted, trusted_vals, untrusted, untrusted_vals, trusting_period_ns, now_ns, max_clock_drift_ns,
           trust_level=DEFAULT_TRUST_LEVEL):
    """light.Verify: an adjacent header must be signed by the validators the trusted one named next; a later one
    by more than trust_level of the trusted set and more than 2/3 of its own."""
    if untrusted.header.height != trusted.header.height + 1:
        verify_non_adjacent(trusted, trusted_vals, untrusted, untrusted_vals, trusting_period_ns, now_ns,
                            max_clock_drift_ns, trust_level)
    else:
        verify_adjacent(trusted, untrusted, untrusted_vals, trusting_period_ns, now_ns, max_clock_drift_ns)


def verify_non_adjacent(trusted, trusted_vals, untrusted, untrusted_vals, trusting_period_ns, now_ns,
                        max_clock_drift_ns, trust_level=DEFAULT_TRUST_LEVEL):
    if untrusted.header.height == trusted.header.height + 1:
        raise LightError("headers must be non adjacent in height")
    _check_not_expired(trusted, trusting_period_ns, now_ns)
    _check_new_header(untrusted, untrusted_vals, trusted, now_ns, max_clock_drift_ns)
    try:
        verify_commit_light_trusting(trusted.header.chain_id, trusted_vals, untrusted.commit, trust_level)
    except NotEnoughVotingPowerSigned as e:
        raise NewValSetCantBeTrusted(e) from None
    try:
        verify_commit_light(trusted.header.chain_id, untrusted_vals, untrusted.commit.block_id,
                            untrusted.header.height, untrusted.commit)
    except LightError as e:
        raise InvalidHeader(e) from None


def verify_adjacent(trusted, untrusted, untrusted_vals, trusting_period_ns, now_ns, max_clock_drift_ns):
    if untrusted.header.height != trusted.header.height + 1:
        raise LightError("headers must be adjacent in height")
    _check_not_expired(trusted, trusting_period_ns, now_ns)
    _check_new_header(untrusted, untrusted_vals, trusted, now_ns, max_clock_drift_ns)
    if untrusted.header.validators_hash != trusted.header.next_validators_hash:
        raise LightError(f"expected old header next validators ({trusted.header.next_validators_hash.hex().upper()})"
                         f" to match those from new header ({untrusted.header.validators_hash.hex().upper()})")
    try:
        verify_commit_light(trusted.header.chain_id, untrusted_vals, untrusted.commit.block_id,
                            untrusted.header.height, untrusted.commit)
    except LightError as e:
        raise InvalidHeader(e) from None


def _check_not_expired(trusted, trusting_period_ns, now_ns):
    if header_expired(trusted, trusting_period_ns, now_ns):
        raise OldHeaderExpired(time_ns(trusted.header.time) + trusting_period_ns, now_ns)


def _check_new_header(untrusted, untrusted_vals, trusted, now_ns, max_clock_drift_ns):
    """verifyNewHeaderAndVals, its failures reported as an invalid header."""
    try:
        try:
            validate_signed_header(untrusted, trusted.header.chain_id)
        except LightError as e:
            raise LightError(f"untrustedHeader.ValidateBasic failed: {e}") from None
        new, old = untrusted.header, trusted.header
        if new.height <= old.height:
            raise LightError(f"expected new header height {new.height} to be greater than one of old header "
                             f"{old.height}")
        if not time_ns(new.time) > time_ns(old.time):
            raise LightError(f"expected new header time {go_time(time_ns(new.time))} to be after old header time "
                             f"{go_time(time_ns(old.time))}")
        if not time_ns(new.time) < now_ns + max_clock_drift_ns:
            raise LightError(f"new header has a time from the future {go_time(time_ns(new.time))} (now: "
                             f"{go_time(now_ns)}; max clock drift: {max_clock_drift_ns}ns)")
        if new.validators_hash != untrusted_vals.hash():
            raise LightError(f"expected new header validators ({new.validators_hash.hex().upper()}) to match those "
                             f"that were supplied ({untrusted_vals.hash().hex().upper()}) at height {new.height}")
    except LightError as e:
        raise InvalidHeader(e) from None
