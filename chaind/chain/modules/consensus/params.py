"""x/consensus's params: CometBFT's ConsensusParams (its keeper keeps them in the consensus store, the SDK's
"Consensus" Item), from genesis' consensus_params; beside them, the node's record of the params each height runs
with (CometBFT's)."""

import functools
import hashlib

from google.protobuf import duration_pb2

from chaind.pb.tendermint.types import params_pb2
from chaind.store import keys

# CometBFT's types.MaxBlockSizeBytes and the ABCI key types ValidateBasic knows.
MAX_BLOCK_SIZE_BYTES = 104857600
PUB_KEY_TYPES = ("ed25519", "secp256k1")
# A block whose max_gas is -1 has no gas limit: the EVM sees MaxUint64 (Evmos' BlockGasLimit).
UNLIMITED_GAS = 2**64 - 1
_PAST = b"\xff" * 8 + b"\x00"


def of_document(document):
    """The genesis document's consensus_params (CometBFT's JSON: int64s as strings, durations in
    nanoseconds) as tendermint.types.ConsensusParams."""
    return of_section(document["consensus_params"])


def of_section(params):
    """tendermint.types.ConsensusParams of a genesis document's consensus_params (CometBFT's JSON)."""
    block, evidence = params["block"], params["evidence"]
    seconds, nanos = divmod(int(evidence["max_age_duration"]), 10**9)
    return params_pb2.ConsensusParams(
        block=params_pb2.BlockParams(max_bytes=int(block["max_bytes"]), max_gas=int(block["max_gas"])),
        evidence=params_pb2.EvidenceParams(max_age_num_blocks=int(evidence["max_age_num_blocks"]),
                                           max_age_duration=duration_pb2.Duration(seconds=seconds, nanos=nanos),
                                           max_bytes=int(evidence.get("max_bytes", 0))),
        validator=params_pb2.ValidatorParams(pub_key_types=params["validator"]["pub_key_types"]),
        version=params_pb2.VersionParams(app=int(params.get("version", {}).get("app", 0))),
        abci=params_pb2.ABCIParams(vote_extensions_enable_height=int(
            params.get("abci", {}).get("vote_extensions_enable_height", 0))))


def to_section(params):
    """A genesis document's consensus_params (CometBFT's JSON) of tendermint.types.ConsensusParams."""
    evidence = params.evidence
    return {"block": {"max_bytes": str(params.block.max_bytes), "max_gas": str(params.block.max_gas)},
            "evidence": {"max_age_num_blocks": str(evidence.max_age_num_blocks),
                         "max_age_duration": str(evidence.max_age_duration.ToNanoseconds()),
                         "max_bytes": str(evidence.max_bytes)},
            "validator": {"pub_key_types": list(params.validator.pub_key_types)},
            "version": {"app": str(params.version.app)},
            "abci": {"vote_extensions_enable_height": str(params.abci.vote_extensions_enable_height)}}


@functools.lru_cache(maxsize=16)
def decoded(raw):
    """ConsensusParams of their bytes; a record is read by every block and check: decoded once (do not mutate)."""
    return params_pb2.ConsensusParams.FromString(raw)


def key(height):
    """The node's record of the params blocks from `height` on run with (written when they change)."""
    return keys.CONSENSUS_PARAMS + keys.inverted_height(height)


def raw_at(db, height):
    """The bytes of the params block `height` runs with, or None before the first record."""
    found = db.seek_first(key(height), keys.CONSENSUS_PARAMS + _PAST)
    return None if found is None else found[1]


def gas_limit(params):
    """The block gas limit these params give (max_gas; -1 is no limit)."""
    max_gas = params.block.max_gas
    return UNLIMITED_GAS if max_gas == -1 else max(max_gas, 0)


def hash_of(params):
    """ConsensusParams.Hash(): SHA-256 of HashedParams (block max bytes and max gas), the header's consensus_hash."""
    return hashlib.sha256(params_pb2.HashedParams(block_max_bytes=params.block.max_bytes,
                                                  block_max_gas=params.block.max_gas).SerializeToString()).digest()


def duration_ns(duration):
    return duration.seconds * 10**9 + duration.nanos


def updated(params, update):
    """ConsensusParams.Update: `params` with every section `update` carries replaced."""
    out = params_pb2.ConsensusParams()
    out.CopyFrom(params)
    for section in ("block", "evidence", "validator", "version", "abci"):
        if update.HasField(section):
            getattr(out, section).CopyFrom(getattr(update, section))
    return out


def validate(params):
    """CometBFT v0.38 ConsensusParams.ValidateBasic, in its order; ValueError with its text."""
    block, evidence = params.block, params.evidence
    if block.max_bytes == 0:
        raise ValueError("block.MaxBytes cannot be 0")
    if block.max_bytes < -1:
        raise ValueError(f"block.MaxBytes must be -1 or greater than 0. Got {block.max_bytes}")
    if block.max_bytes > MAX_BLOCK_SIZE_BYTES:
        raise ValueError(f"block.MaxBytes is too big. {block.max_bytes} > {MAX_BLOCK_SIZE_BYTES}")
    if block.max_gas < -1:
        raise ValueError(f"block.MaxGas must be greater or equal to -1. Got {block.max_gas}")
    if evidence.max_age_num_blocks <= 0:
        raise ValueError(f"evidence.MaxAgeNumBlocks must be greater than 0. Got {evidence.max_age_num_blocks}")
    if duration_ns(evidence.max_age_duration) <= 0:
        raise ValueError("evidence.MaxAgeDuration must be grater than 0 if provided, Got "
                         f"{go_duration(duration_ns(evidence.max_age_duration))}")
    upper = MAX_BLOCK_SIZE_BYTES if block.max_bytes == -1 else block.max_bytes
    if evidence.max_bytes > upper:
        raise ValueError(f"evidence.MaxBytesEvidence is greater than upper bound, {evidence.max_bytes} > "
                         f"{block.max_bytes}")
    if evidence.max_bytes < 0:
        raise ValueError(f"evidence.MaxBytes must be non negative. Got: {evidence.max_bytes}")
    if params.abci.vote_extensions_enable_height < 0:
        raise ValueError("ABCI.VoteExtensionsEnableHeight cannot be negative. Got: "
                         f"{params.abci.vote_extensions_enable_height}")
    if not params.validator.pub_key_types:
        raise ValueError("len(Validator.PubKeyTypes) must be greater than 0")
    for i, key_type in enumerate(params.validator.pub_key_types):
        if key_type not in PUB_KEY_TYPES:
            raise ValueError(f"params.Validator.PubKeyTypes[{i}], {key_type}, is an unknown pubkey type")


def validate_update(params, update, height):
    """CometBFT v0.38 ConsensusParams.ValidateUpdate: when vote extensions may be enabled or changed."""
    if not update.HasField("abci"):
        return
    current, wanted = params.abci.vote_extensions_enable_height, update.abci.vote_extensions_enable_height
    if wanted < 0:
        raise ValueError("VoteExtensionsEnableHeight must be positive")
    if current <= 0 and wanted == 0 or current == wanted:
        return
    if current > 0 and wanted == 0:
        if current <= height:
            raise ValueError(f"vote extensions cannot be disabled once enabledold enable height: {current}, "
                             f"current height {height}")
        return
    if wanted <= height:
        raise ValueError(f"vote extensions cannot be updated to a past or current height, enable height: {wanted}, "
                         f"current height {height}")
    if current > 0 and current <= height:
        raise ValueError(f"vote extensions cannot be modified once enabledenable height: {current}, "
                         f"current height {height}")


def go_duration(ns):
    """Go's time.Duration.String() of a duration (the forms an error may show: whole or fractional units)."""
    if ns == 0:
        return "0s"
    sign, ns = ("-", -ns) if ns < 0 else ("", ns)
    if ns < 1000:
        return f"{sign}{ns}ns"
    if ns < 10**6:
        return f"{sign}{_fraction(ns, 10**3)}µs"
    if ns < 10**9:
        return f"{sign}{_fraction(ns, 10**6)}ms"
    hours, rest = divmod(ns, 3600 * 10**9)
    minutes, rest = divmod(rest, 60 * 10**9)
    text = f"{hours}h{minutes}m" if hours else (f"{minutes}m" if minutes else "")
    return f"{sign}{text}{_fraction(rest, 10**9)}s"


def _fraction(value, unit):
    whole, part = divmod(value, unit)
    digits = str(part).rjust(len(str(unit)) - 1, "0").rstrip("0")
    return f"{whole}.{digits}" if digits else str(whole)
