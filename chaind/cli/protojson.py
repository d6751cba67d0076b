"""Proto messages as the SDK's PrintProto writes them: gogo jsonpb with OrigName and EmitDefaults.

snake_case names in field order, 64-bit integers as strings, bytes as base64 (empty: null), enums
by name, unset messages null, Any as {"@type": url, ...fields}, Timestamp as RFC 3339; LegacyDec
fields (18-decimal fixed point, atomics on the wire) as the decimal strings math.LegacyDec prints.
"""

import base64

from google.protobuf.descriptor import FieldDescriptor as F

from chaind.chain import legacy_dec
from chaind.chain.txjson import ANY_MODULES, from_dict, message_class  # noqa: F401 (the CLI's names for them)
from chaind.pb.rest_routes import DECIMALS

_INT64 = {F.TYPE_INT64, F.TYPE_UINT64, F.TYPE_SINT64, F.TYPE_FIXED64, F.TYPE_SFIXED64}
_WELL_KNOWN = {"google.protobuf.Timestamp", "google.protobuf.Duration"}

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
