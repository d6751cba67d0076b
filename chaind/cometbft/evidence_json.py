"""CometBFT's evidence in JSON (cmtjson, amino-style {"type", "value"}): written in /block, NewEvidence and
read by broadcast_evidence. Only DuplicateVoteEvidence is served; votes as types.Vote writes them.
"""

import base64
import binascii
import re

from chaind.chain.block import BlockId
from chaind.cometbft.encode import b64, block_id, hexu
from chaind.cometbft.params import ParamError
from chaind.gocompat import format_time, json_type, parse_rfc3339
from chaind.pb.tendermint.types import evidence_pb2, types_pb2

DUPLICATE_VOTE = "tendermint/DuplicateVoteEvidence"
LIGHT_CLIENT_ATTACK = "tendermint/LightClientAttackEvidence"
_DIGITS = re.compile(r"^-?[0-9]+$")
_FRACTION = re.compile(r"T\d\d:\d\d:\d\d\.(\d{1,9})")


def _ns(timestamp):
    return timestamp.seconds * 10**9 + timestamp.nanos


def _bytes_b64(data):
    return b64(data) if data else None


def vote(v):
    return {"type": v.type, "height": str(v.height), "round": v.round,
            "block_id": block_id(_block_id(v.block_id)), "timestamp": format_time(_ns(v.timestamp)),
            "validator_address": hexu(v.validator_address), "validator_index": v.validator_index,
            "signature": _bytes_b64(v.signature), "extension": _bytes_b64(v.extension),
            "extension_signature": _bytes_b64(v.extension_signature)}


def _block_id(bid):
    return BlockId(bid.hash, bid.part_set_header.total, bid.part_set_header.hash)


def evidence(dve):
    """A DuplicateVoteEvidence as cmtjson writes the Evidence interface (its abci fields keep Go's names)."""
    return {"type": DUPLICATE_VOTE, "value": {
        "vote_a": vote(dve.vote_a), "vote_b": vote(dve.vote_b), "TotalVotingPower": str(dve.total_voting_power),
        "ValidatorPower": str(dve.validator_power), "Timestamp": format_time(_ns(dve.timestamp))}}


# -- reading -------------------------------------------------------------------------------------


def parse(value):
    """broadcast_evidence's `evidence`: a DuplicateVoteEvidence proto; ParamError says what does not decode."""
    if not isinstance(value, dict):
        raise ParamError(f"json: cannot unmarshal {json_type(value)} into Go value of type types.Evidence")
    kind = value.get("type")
    if kind == LIGHT_CLIENT_ATTACK:
        raise ParamError("light client attack evidence is not served: this node verifies duplicate votes only")
    if kind != DUPLICATE_VOTE:
        raise ParamError(f"failed to decode interface: unknown type {kind!r} for types.Evidence (expected "
                         f"{DUPLICATE_VOTE!r})")
    body = value.get("value")
    if not isinstance(body, dict):
        raise ParamError(f"json: cannot unmarshal {json_type(body)} into Go value of type types.DuplicateVoteEvidence")
    dve = evidence_pb2.DuplicateVoteEvidence()
    for name in ("vote_a", "vote_b"):
        if body.get(name) is not None:
            getattr(dve, name).CopyFrom(_vote(body[name], name))
    dve.total_voting_power = _int64(body.get("TotalVotingPower"), "TotalVotingPower")
    dve.validator_power = _int64(body.get("ValidatorPower"), "ValidatorPower")
    _set_time(dve.timestamp, body.get("Timestamp"), "Timestamp")
    return dve


def _vote(obj, where):
    if not isinstance(obj, dict):
        raise ParamError(f"{where}: json: cannot unmarshal {json_type(obj)} into Go value of type types.Vote")
    v = types_pb2.Vote()
    kind = obj.get("type", 0)
    if not isinstance(kind, int) or isinstance(kind, bool):
        raise ParamError(f"{where}.type: json: cannot unmarshal {json_type(kind)} into Go value of type "
                         "types.SignedMsgType")
    v.type = kind
    v.height = _int64(obj.get("height"), f"{where}.height")
    v.round = _int32(obj.get("round"), f"{where}.round")
    v.validator_index = _int32(obj.get("validator_index"), f"{where}.validator_index")
    bid = obj.get("block_id") or {}
    if not isinstance(bid, dict):
        raise ParamError(f"{where}.block_id: json: cannot unmarshal {json_type(bid)} into Go value of type "
                         "types.BlockID")
    parts = bid.get("parts") or {}
    v.block_id.hash = _hex(bid.get("hash"), f"{where}.block_id.hash")
    v.block_id.part_set_header.total = _int32(parts.get("total"), f"{where}.block_id.parts.total")
    v.block_id.part_set_header.hash = _hex(parts.get("hash"), f"{where}.block_id.parts.hash")
    _set_time(v.timestamp, obj.get("timestamp"), f"{where}.timestamp")
    v.validator_address = _hex(obj.get("validator_address"), f"{where}.validator_address")
    for name in ("signature", "extension", "extension_signature"):
        setattr(v, name, _b64(obj.get(name), f"{where}.{name}"))
    return v


def _int64(value, where):
    if value is None:
        return 0
    if isinstance(value, str) and _DIGITS.match(value):
        return int(value)
    raise ParamError(f"{where}: invalid 64-bit integer encoding {value!r}, expected string")


def _int32(value, where):
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and -2**31 <= value < 2**31:
        return value
    raise ParamError(f"{where}: json: cannot unmarshal {json_type(value)} into Go value of type int32")


def _hex(value, where):
    if value is None or value == "":
        return b""
    if not isinstance(value, str):
        raise ParamError(f"{where}: json: cannot unmarshal {json_type(value)} into Go value of type bytes.HexBytes")
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise ParamError(f"{where}: encoding/hex: invalid hex string {value[:40]!r}") from None


def _b64(value, where):
    if value is None:
        return b""
    if not isinstance(value, str):
        raise ParamError(f"{where}: json: cannot unmarshal {json_type(value)} into Go value of type []uint8")
    try:
        return base64.b64decode(value, validate=True)
    except binascii.Error:
        raise ParamError(f"{where}: illegal base64 data") from None


def _set_time(timestamp, value, where):
    if value is None:
        return
    if not isinstance(value, str):
        raise ParamError(f"{where}: json: cannot unmarshal {json_type(value)} into Go value of type time.Time")
    try:
        moment = parse_rfc3339(value)
    except ValueError as e:
        raise ParamError(f"{where}: {e}") from None
    match = _FRACTION.search(value)
    timestamp.seconds = int(moment.replace(microsecond=0).timestamp())
    timestamp.nanos = int(match.group(1).ljust(9, "0")) if match else 0
