"""Evmos' legacy EIP-712 wrapping of the amino sign doc (ethereum/eip712 LegacyWrapTxToTypedData): the doc's JSON
as the message, the fee with a feePayer, and one type MsgValue for every message, built from the first message.

Evmos builds MsgValue by reflection over the message's Go struct (legacyTraverseFields): fields in declaration
order under their proto names, empty ones left out, Any as {type, value}, nested messages named from their path
(value.amount: TypeAmount). This module derives the same types from the proto descriptor and gogoproto's Go
types: cosmos Int/Dec and timestamps are strings, durations int64, enums int32, bytes uint8[], and a message
holding only `bytes key` (a public key) a string.
"""


import orjson
from google.protobuf import descriptor

from chaind.chain import eip712

_FD = descriptor.FieldDescriptor
BASE_TYPES = {
    "EIP712Domain": eip712.DOMAIN_TYPES,
    "Tx": (("account_number", "string"), ("chain_id", "string"), ("fee", "Fee"), ("memo", "string"),
           ("msgs", "Msg[]"), ("sequence", "string")),
    "Fee": (("feePayer", "string"), ("amount", "Coin[]"), ("gas", "string")),
    "Coin": (("denom", "string"), ("amount", "string")),
    "Msg": (("type", "string"), ("value", "MsgValue")),
}
_ROOT = "MsgValue"
# Go kinds of proto scalars, as typToEth names them (float and double have no EIP-712 type and are left out).
_SCALARS = {
    _FD.TYPE_STRING: "string", _FD.TYPE_BOOL: "bool", _FD.TYPE_ENUM: "int32",
    _FD.TYPE_INT32: "int32", _FD.TYPE_SINT32: "int32", _FD.TYPE_SFIXED32: "int32",
    _FD.TYPE_INT64: "int64", _FD.TYPE_SINT64: "int64", _FD.TYPE_SFIXED64: "int64",
    _FD.TYPE_UINT32: "uint32", _FD.TYPE_FIXED32: "uint32", _FD.TYPE_UINT64: "uint64", _FD.TYPE_FIXED64: "uint64",
    _FD.TYPE_BYTES: "uint8[]",
}
# Well-known messages gogoproto turns into Go values of another kind (stdtime, stdduration).
_MESSAGE_SCALARS = {"google.protobuf.Timestamp": "string", "google.protobuf.Duration": "int64"}
_ANY = "google.protobuf.Any"


def digest(sign_bytes, chain_id, message, fee_payer, any_types):
    """The EIP-712 digest of an amino sign doc (bytes) in Evmos' legacy form: `message` is the tx's first message
    (a decoded proto), `fee_payer` the bech32 address written as fee.feePayer, `chain_id` the domain's number;
    `any_types` maps the type URLs an Any may carry to their classes. TypedDataError when it has no such form."""
    try:
        payload = orjson.loads(sign_bytes)
    except ValueError:
        payload = None
    if not isinstance(payload, dict):
        raise eip712.TypedDataError("failed to JSON unmarshal data")
    fee = payload.get("fee")
    if not isinstance(fee, dict):
        raise eip712.TypedDataError("cannot parse fee from tx data")
    fee["feePayer"] = fee_payer
    return eip712.hash_typed_data(chain_id, types_of(message, any_types), payload)


def types_of(message, any_types):
    """The legacy typed data's types for a tx whose first message is `message`."""
    types = {name: list(fields) for name, fields in BASE_TYPES.items()}
    types[_ROOT] = []
    _traverse(types, any_types, "_", _Struct.of(message))
    return types


class _Struct:
    """A Go struct as legacyTraverseFields walks it: (json name, proto field or None, value) per field."""

    def __init__(self, fields):
        self.fields = fields

    @classmethod
    def of(cls, message):
        return cls([(f.name, f, getattr(message, f.name)) for f in message.DESCRIPTOR.fields])


def _traverse(types, any_types, prefix, struct):
    type_def = _ROOT if prefix == "_" else eip712.sanitize(prefix)
    if len(types.get(type_def, ())) == len(struct.fields):
        return
    for name, field, value in struct.fields:
        if field is not None and field.containing_oneof is not None and not _synthetic(field):
            if _is_zero(field, value):
                continue
            raise eip712.TypedDataError(f"no legacy EIP-712 type for the oneof field {name}")
        if field is not None and field.type == _FD.TYPE_MESSAGE and field.message_type.GetOptions().map_entry:
            continue                # a Go map: typToEth has no type for it, and it is no struct
        if field is None:           # the value of an Any's {type, value}: the packed message itself
            kind, element = "message", value
        elif _is_zero(field, value):
            continue
        else:
            kind, element = _kind(field), value
        collection = field is not None and field.is_repeated
        if collection:
            element = value[0]
        if kind == "any":
            element, kind = _unpack(any_types, element), "wrapper"
        eth_type = _eth_type(field, kind, element)
        if eth_type:
            if collection and not eth_type.endswith("[]"):
                eth_type += "[]"
            types.setdefault(type_def, []).append((name, eth_type))
            continue
        path = f"{prefix}.{name}"
        types.setdefault(type_def, []).append((name, eip712.sanitize(path) + ("[]" if collection else "")))
        _traverse(types, any_types, path, element if isinstance(element, _Struct) else _Struct.of(element))


def _kind(field):
    if field.type != _FD.TYPE_MESSAGE:
        return "scalar"
    return "any" if field.message_type.full_name == _ANY else "message"


def _eth_type(field, kind, element):
    """typToEth of a field's Go type ("" for a struct to walk)."""
    if kind == "scalar":
        return _SCALARS.get(field.type, "")
    if kind == "wrapper":
        return ""
    full_name = element.DESCRIPTOR.full_name
    if full_name in _MESSAGE_SCALARS:
        return _MESSAGE_SCALARS[full_name]
    # A struct convertible to ed25519.PubKey (one field, Key []byte) is written as a string.
    if [(f.name, f.type) for f in element.DESCRIPTOR.fields] == [("key", _FD.TYPE_BYTES)]:
        return "string"
    return ""


def _unpack(any_types, packed):
    """cosmosAnyWrapper{Type: the type URL, Value: the packed message}."""
    cls = any_types.get(packed.type_url)
    if cls is None:
        raise eip712.TypedDataError(f"failed to unpack Any in msg struct: no concrete type for {packed.type_url!r}")
    return _Struct([("type", _TYPE_URL, packed.type_url), ("value", None, cls.FromString(packed.value))])


class _TypeUrlField:
    """The wrapper's Type field: a plain Go string."""

    type = _FD.TYPE_STRING
    is_repeated = False
    containing_oneof = None
    default_value = ""


_TYPE_URL = _TypeUrlField()


def _synthetic(field):
    oneof = field.containing_oneof
    return getattr(oneof, "is_synthetic", False) or (len(oneof.fields) == 1 and oneof.name == "_" + field.name)


def _is_zero(field, value):
    """reflect's IsZero of the field's Go value: an empty list or string, 0, false, an absent or empty message."""
    if field.is_repeated:
        return len(value) == 0
    if field.type == _FD.TYPE_MESSAGE:
        if field.message_type.full_name == _ANY:
            if not value.type_url:
                # Evmos reads the nil Any's type URL and fails (recovered from the panic).
                raise eip712.TypedDataError("runtime error: invalid memory address or nil pointer dereference")
            return False
        return value.ByteSize() == 0
    return value == field.default_value
