"""SIGN_MODE_LEGACY_AMINO_JSON: the SDK's StdSignDoc of a native tx, as Ledger, Keplr and @cosmjs sign it.

Messages are written by the SDK's amino JSON rules (cosmos-sdk v0.50 x/tx/signing/aminojson): empty fields
omitted unless kept, 64-bit integers as strings, bytes as base64, an Any as {"type": amino name, "value"},
timestamps in RFC 3339, durations as nanoseconds;
then the whole document with sorted keys, compact, as Go's encoding/json escapes it.
"""

import base64
import datetime
import json
import re

import attrs
from google.protobuf import descriptor

from chaind.chain import errors, legacy_dec
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.crypto.ed25519 import keys_pb2 as ed25519
from chaind.pb.cosmos.crypto.secp256k1 import keys_pb2 as secp256k1
from chaind.pb.ethermint.crypto.v1.ethsecp256k1 import keys_pb2 as ethsecp256k1

_FD = descriptor.FieldDescriptor


@attrs.frozen
class Amino:
    """How one proto message is written in amino JSON: what the SDK's protos say in their amino and
    cosmos_proto options (our protos drop them). A module declares one per message it handles
    (MsgHandler.amino, with the name) and one per nested message type of its own (Module.amino_shapes).

    name: amino.name, the {"type": name, "value": ...} wrapper a message gets inside an Any (the tx's
    messages); keep: fields with amino.dont_omitempty; coins: amino.encoding=legacy_coins (an empty list is
    written as []); ints / decs: cosmos.Int and cosmos.Dec scalars (an empty Int is "0"; a Dec's wire atomics
    are written as an 18-place decimal); renames: amino.field_name; key_field: amino.message_encoding=key_field
    (a public key written as its key bytes alone); oneofs: {member field: amino.oneof_name}, a set member
    written under its oneof's CamelCase name as {"type": oneof_name, "value": {field: value}}.
    """

    name: str | None = None
    keep: tuple = ()
    coins: tuple = ()
    ints: tuple = ()
    decs: tuple = ()
    renames: dict = attrs.field(factory=dict)
    key_field: bool = False
    oneofs: dict = attrs.field(factory=dict)


# Shapes of the types every module shares: coins, and the public keys an Any may carry.
BASE_SHAPES = {
    coin_pb2.Coin: Amino(keep=("amount",), ints=("amount",)),
    coin_pb2.DecCoin: Amino(keep=("amount",), decs=("amount",)),
    secp256k1.PubKey: Amino(name="tendermint/PubKeySecp256k1", key_field=True),
    ed25519.PubKey: Amino(name="tendermint/PubKeyEd25519", key_field=True),
    ethsecp256k1.PubKey: Amino(name="ethermint/PubKeyEthSecp256k1", key_field=True),
}
# Type URLs of the keys an Any may carry (Evmos' and cosmos/evm's eth_secp256k1 are one message).
BASE_ANY_TYPES = {
    "/cosmos.crypto.secp256k1.PubKey": secp256k1.PubKey,
    "/cosmos.crypto.ed25519.PubKey": ed25519.PubKey,
    "/ethermint.crypto.v1.ethsecp256k1.PubKey": ethsecp256k1.PubKey,
    "/cosmos.evm.crypto.v1.ethsecp256k1.PubKey": ethsecp256k1.PubKey,
}


class AminoError(Exception):
    """A message the amino JSON rules cannot write (no amino name, a kept field left nil)."""


@attrs.frozen
class Encoder:
    """The amino JSON writer of one app's messages: shapes by proto full name, Any classes by type URL."""

    shapes: dict = attrs.field(repr=False)
    any_types: dict = attrs.field(repr=False)

    @classmethod
    def of_modules(cls, modules):
        shapes = {c.DESCRIPTOR.full_name: a for c, a in BASE_SHAPES.items()}
        any_types = dict(BASE_ANY_TYPES)
        for module in modules:
            shapes.update((c.DESCRIPTOR.full_name, a) for c, a in module.amino_shapes.items())
            # A named nested type travels in an Any (an allowance, an authorization): its URL is its full name.
            any_types.update(("/" + c.DESCRIPTOR.full_name, c) for c, a in module.amino_shapes.items() if a.name)
            for handler in module.messages:
                if handler.amino is not None:
                    shapes[handler.message_class.DESCRIPTOR.full_name] = handler.amino
                    any_types[handler.type_url] = handler.message_class
        return cls(shapes, any_types)

    def named(self, message):
        """{"type": amino name, "value": message} of a message inside an Any (a tx's message)."""
        shape = self.shapes.get(message.DESCRIPTOR.full_name)
        if shape is None or shape.name is None:
            raise AminoError(f"no amino JSON name for {message.DESCRIPTOR.full_name}")
        return {"type": shape.name, "value": self.value(message)}

    def value(self, message):
        shape = self.shapes.get(message.DESCRIPTOR.full_name, _PLAIN)
        if shape.key_field:
            return base64.b64encode(message.key).decode() if message.key else None
        out = {}
        for field in message.DESCRIPTOR.fields:
            name = shape.renames.get(field.name, field.name)
            repeated = field.is_repeated
            value = getattr(message, field.name)
            present = len(value) > 0 if repeated else (
                message.HasField(field.name) if field.type == _FD.TYPE_MESSAGE else value != field.default_value)
            if not present:
                if field.name not in shape.keep:
                    continue
                if field.type == _FD.TYPE_MESSAGE and not repeated:
                    raise AminoError(f"not supported: dont_omit_empty=true on invalid (nil?) message field: {name}")
            if repeated:
                out[name] = [self._scalar(field, shape, item) for item in value]
            elif field.name in shape.oneofs:
                camel = "".join(part.capitalize() for part in field.containing_oneof.name.split("_"))
                out[camel] = {"type": shape.oneofs[field.name], "value": {name: self._scalar(field, shape, value)}}
            else:
                out[name] = self._scalar(field, shape, value)
        return out

    def _scalar(self, field, shape, value):
        if field.type == _FD.TYPE_MESSAGE:
            if field.message_type.full_name in _WELL_KNOWN:
                return _WELL_KNOWN[field.message_type.full_name](value)
            if field.message_type.full_name == "google.protobuf.Any":
                cls = self.any_types.get(value.type_url)
                if cls is None:
                    raise AminoError(f"no amino JSON name for {value.type_url}")
                return self.named(cls.FromString(value.value))
            return self.value(value)
        if field.name in shape.ints:
            return value or "0"
        if field.name in shape.decs:
            return legacy_dec.format(int(value)) if value else "0"
        if field.type in (_FD.TYPE_INT64, _FD.TYPE_UINT64, _FD.TYPE_SINT64, _FD.TYPE_FIXED64, _FD.TYPE_SFIXED64):
            return str(value)
        if field.type == _FD.TYPE_BYTES:
            return base64.b64encode(value).decode()
        return value


_PLAIN = Amino()
# time.Duration's nanoseconds must fit an int64 (x/tx aminojson's MaxDurationSeconds).
_MAX_DURATION_SECONDS = (2**63 - 1) // 10**9 - 1


def _timestamp(value):
    """x/tx's timestamp: RFC 3339 in UTC, the fraction (trailing zeros dropped) only when there are nanos."""
    if value.nanos < 0 or not -62135596800 <= value.seconds <= 253402300799:
        raise AminoError(f"timestamp out of range: {value.seconds}s {value.nanos}ns")
    text = (datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=value.seconds)).isoformat(timespec="seconds")
    return text + (f".{value.nanos:09d}".rstrip("0") if value.nanos else "") + "Z"


def _duration(value):
    """x/tx's duration: its nanoseconds, as a string."""
    if value.seconds > _MAX_DURATION_SECONDS:
        raise AminoError(f"{value.seconds} seconds would overflow an int64 when represented as nanoseconds")
    return str(value.seconds * 10**9 + value.nanos)


_WELL_KNOWN = {"google.protobuf.Timestamp": _timestamp, "google.protobuf.Duration": _duration}


def sign_doc(encoder, body, fee, chain_id, account_number, sequence):
    """The StdSignDoc (a dict) one signer signs: legacy StdSignDoc's fields, timeout height only when set,
    the fee's payer and granter only when set."""
    try:
        msgs = [encoder.named(_unpack(encoder, m)) for m in body.messages]
    except AminoError as e:
        raise errors.unauthorized(f"cannot build the amino JSON sign doc: {e}") from None
    fee_doc = {"amount": [encoder.value(c) for c in fee.amount], "gas": str(fee.gas_limit)}
    if fee.payer:
        fee_doc["payer"] = fee.payer
    if fee.granter:
        fee_doc["granter"] = fee.granter
    doc = {"account_number": str(account_number), "chain_id": chain_id, "fee": fee_doc, "memo": body.memo,
           "msgs": msgs, "sequence": str(sequence)}
    if body.timeout_height:
        doc["timeout_height"] = str(body.timeout_height)
    return doc


def sign_bytes(encoder, body, fee, chain_id, account_number, sequence):
    return dumps(sign_doc(encoder, body, fee, chain_id, account_number, sequence)).encode()


def _unpack(encoder, any_msg):
    cls = encoder.any_types.get(any_msg.type_url)
    if cls is None:
        raise AminoError(f"no amino JSON name for {any_msg.type_url}")
    return cls.FromString(any_msg.value)


# Go's encoding/json escapes: quote, backslash, \n \r \t, other control characters as \u00xx, the HTML
# characters < > & and the line separators U+2028 and U+2029; everything else is written as is (UTF-8).
_ESCAPE = re.compile('["\\\\\x00-\x1f<>&\u2028\u2029]')
_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _string(text):
    return '"' + _ESCAPE.sub(lambda m: _SHORT.get(m.group(), "\\u%04x" % ord(m.group())), text) + '"'


def dumps(value):
    """Sorted, compact JSON with Go's escaping: the bytes a StdSignDoc is signed as."""
    if isinstance(value, dict):
        return "{" + ",".join(_string(k) + ":" + dumps(value[k]) for k in sorted(value)) + "}"
    if isinstance(value, list):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    if isinstance(value, str):
        return _string(value)
    return json.dumps(value)
