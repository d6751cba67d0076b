"""Proto messages as the SDK's PrintProto writes them: gogo jsonpb with OrigName and EmitDefaults.

snake_case names in field order, 64-bit integers as strings, bytes as base64 (empty: null), enums
by name, unset messages null, Any as {"@type": url, ...fields}, Timestamp as RFC 3339; LegacyDec
fields (18-decimal fixed point, atomics on the wire) as the decimal strings math.LegacyDec prints.
"""

import base64
import importlib

from google.protobuf import descriptor_pool, message_factory
from google.protobuf.descriptor import FieldDescriptor as F

from chaind.chain import legacy_dec
from chaind.pb.rest_routes import DECIMALS

_INT64 = {F.TYPE_INT64, F.TYPE_UINT64, F.TYPE_SINT64, F.TYPE_FIXED64, F.TYPE_SFIXED64}
_WELL_KNOWN = {"google.protobuf.Timestamp", "google.protobuf.Duration"}

# Generated modules whose messages travel in Any fields (txs, accounts, keys): loaded when an
# Any names a type the pool does not hold yet, so plain queries never import them.
ANY_MODULES = (
    "cosmos.tx.v1beta1.tx_pb2", "cosmos.bank.v1beta1.tx_pb2", "cosmos.staking.v1beta1.tx_pb2",
    "evmos.erc20.v1.tx_pb2", "ethermint.evm.v1.tx_pb2", "ethermint.types.v1.account_pb2",
    "ethermint.crypto.v1.ethsecp256k1.keys_pb2", "cosmos.crypto.ed25519.keys_pb2",
    "cosmos.crypto.secp256k1.keys_pb2", "cosmos.crypto.multisig.keys_pb2", "cosmos.auth.v1beta1.auth_pb2",
    "ethermint.feemarket.v1.tx_pb2", "cosmos.auth.v1beta1.tx_pb2", "cosmos.bank.v1beta1.bank_pb2",
    "cosmos.gov.v1.tx_pb2", "cosmos.authz.v1beta1.tx_pb2", "cosmos.authz.v1beta1.authz_pb2",
    "cosmos.bank.v1beta1.authz_pb2", "cosmos.staking.v1beta1.authz_pb2", "cosmos.vesting.v1beta1.tx_pb2",
    "cosmos.vesting.v1beta1.vesting_pb2", "cosmos.nft.v1beta1.tx_pb2",
)


def message_class(type_url):
    """The generated class of an Any's type URL, or None when no known module defines it."""
    name = type_url.rsplit("/", 1)[-1]
    pool = descriptor_pool.Default()
    for attempt in range(2):
        try:
            return message_factory.GetMessageClass(pool.FindMessageTypeByName(name))
        except KeyError:
            if attempt == 0:
                for module in ANY_MODULES:
                    importlib.import_module("chaind.pb." + module)
    return None


def to_dict(message):
    full_name = message.DESCRIPTOR.full_name
    if full_name in _WELL_KNOWN:
        return message.ToJsonString()
    if full_name == "google.protobuf.Any":
        return _any(message)
    out = {}
    for field in message.DESCRIPTOR.fields:
        oneof = field.containing_oneof
        if oneof is not None and message.WhichOneof(oneof.name) != field.name:
            continue        # Go holds a oneof as one interface value: only the set member prints
        value = getattr(message, field.name)
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value_field = field.message_type.fields_by_name["value"]
            out[field.name] = {str(k): _value(value_field, v) for k, v in value.items()}
        elif field.is_repeated:
            out[field.name] = [_value(field, v) for v in value]
        elif field.type == F.TYPE_MESSAGE and not message.HasField(field.name):
            out[field.name] = None
        elif field.full_name in DECIMALS:
            out[field.name] = legacy_dec.text_of_wire(value)
        else:
            out[field.name] = _value(field, value)
    return out


def from_dict(value, message):
    """Fill `message` from JSON as to_dict writes it (the reverse of its LegacyDec rendering)."""
    from google.protobuf import json_format

    json_format.ParseDict(_decs_to_wire(value, message.DESCRIPTOR), message)
    return message


def _decs_to_wire(value, descriptor):
    if not isinstance(value, dict):
        return value
    if descriptor.full_name == "google.protobuf.Any" and "@type" in value:
        cls = message_class(value["@type"])
        return value if cls is None else _decs_to_wire(value, cls.DESCRIPTOR)
    out = dict(value)
    for name, item in value.items():
        field = descriptor.fields_by_name.get(name)
        if field is None or item is None:
            continue
        if field.full_name in DECIMALS and isinstance(item, str) and item:
            out[name] = legacy_dec.wire_of_text(item)
        elif field.message_type is not None and not field.message_type.GetOptions().map_entry:
            out[name] = [_decs_to_wire(i, field.message_type) for i in item] if isinstance(item, list) \
                else _decs_to_wire(item, field.message_type)
    return out


def _value(field, value):
    kind = field.type
    if kind == F.TYPE_MESSAGE:
        return to_dict(value)
    if kind in _INT64:
        return str(value)
    if kind == F.TYPE_BYTES:
        return base64.b64encode(value).decode() if value else None
    if kind == F.TYPE_ENUM:
        found = field.enum_type.values_by_number.get(value)
        return found.name if found is not None else value
    return value


def _any(message):
    cls = message_class(message.type_url)
    if cls is None:
        return {"@type": message.type_url, "value": base64.b64encode(message.value).decode()}
    inner = to_dict(cls.FromString(message.value))
    if not isinstance(inner, dict):          # a well-known type: its JSON goes under "value"
        inner = {"value": inner}
    return {"@type": message.type_url, **inner}
