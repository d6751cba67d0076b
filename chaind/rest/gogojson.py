"""Protobuf messages as JSON the way the SDK's gogoproto gateway writes them: protobuf's json_format with
gogo's differences (unset bytes and messages as null, LegacyDec fields as decimals, inside Any values too).

A message type made only of plain fields (strings, integers, bools, bytes, enums and such messages, repeated
or not) gets an encoder compiled once from its descriptor, which writes the same JSON in a fraction of
json_format's time (a balance read's answer is mostly this encoding); any other type goes through json_format.
"""

import base64
import functools

from google.protobuf import descriptor, descriptor_pool, json_format, message_factory

from chaind.chain import legacy_dec
from chaind.pb.rest_routes import DECIMALS

_FD = descriptor.FieldDescriptor
_AS_NUMBER = {_FD.TYPE_INT32, _FD.TYPE_SINT32, _FD.TYPE_SFIXED32, _FD.TYPE_UINT32, _FD.TYPE_FIXED32}
_AS_STRING = {_FD.TYPE_INT64, _FD.TYPE_SINT64, _FD.TYPE_SFIXED64, _FD.TYPE_UINT64, _FD.TYPE_FIXED64}


def to_dict(message):
    """The gogoproto gateway's JSON object of `message`."""
    encode = _encoder(message.DESCRIPTOR)
    return general_dict(message) if encode is None else encode(message)


def compiled(message_descriptor):
    """Whether messages of this type are written by a compiled encoder."""
    return _encoder(message_descriptor) is not None


def general_dict(message):
    """to_dict through json_format, for any message type (what every compiled encoder must equal)."""
    body = json_format.MessageToDict(message, preserving_proto_field_name=True,
                                     always_print_fields_with_no_presence=True)
    _gogo_json(message, body)
    return body


# -- compiled encoders -------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def _encoder(message_descriptor):
    """A function message -> dict equal to json_format plus _gogo_json, or None when the type has a field
    it does not handle (well-known types, maps, oneofs, optional scalars, floats)."""
    return _compile(message_descriptor, ())


def _compile(message_descriptor, seen):
    if message_descriptor.full_name.startswith("google.protobuf.") or message_descriptor in seen:
        return None
    if message_descriptor.oneofs:
        return None
    fields = []
    for field in message_descriptor.fields:
        value = _value_encoder(field, seen + (message_descriptor,))
        if value is None:
            return None
        fields.append((field, value))
    return _message_encoder(fields)


def _value_encoder(field, seen):
    """(is_set(value), encode(value), unset value) for one field, or None."""
    repeated = field.is_repeated
    if field.message_type is not None:
        if field.message_type.GetOptions().map_entry:
            return None
        inner = _compile(field.message_type, seen)
        if inner is None:
            return None
        if repeated:
            return lambda items: [inner(item) for item in items]
        return inner
    if field.has_presence and not repeated:
        return None                     # proto3 optional: printed only when set
    if field.full_name in DECIMALS:
        one = legacy_dec.text_of_wire
    elif field.type == _FD.TYPE_STRING or field.type in _AS_NUMBER or field.type == _FD.TYPE_BOOL:
        one = None
    elif field.type in _AS_STRING:
        one = str
    elif field.type == _FD.TYPE_BYTES:
        one = _base64
    elif field.type == _FD.TYPE_ENUM:
        names = {v.number: v.name for v in field.enum_type.values}
        one = lambda number: names.get(number, number)      # noqa: E731 (an unknown number prints as itself)
    else:
        return None                     # floats: json_format's NaN and infinity spellings
    if repeated:
        return list if one is None else (lambda items: [one(item) for item in items])
    return one or _same


def _same(value):
    return value


def _base64(value):
    return base64.b64encode(value).decode()


def _message_encoder(fields):
    """json_format writes the fields set, by number, then the unset ones it prints anyway (declaration order:
    defaults, [] and "" for bytes); gogo then writes unset bytes as null and appends unset messages as null."""
    plan = []
    for declared, (field, encode) in enumerate(fields):
        if field.message_type is not None and not field.is_repeated:
            kind, unset = _MESSAGE, None
        elif field.is_repeated:
            kind, unset = _REPEATED, []
        elif field.type == _FD.TYPE_BYTES and field.full_name not in DECIMALS:
            kind, unset = _BYTES, None
        else:
            kind, unset = _SCALAR, encode(field.default_value)
        plan.append((field.number, declared, field.name, kind, encode, field.default_value, unset))
    plan.sort()

    def encode(message):
        out, defaults, absent = {}, [], []
        for _, declared, name, kind, value_of, default, unset in plan:
            if kind is _MESSAGE:
                if message.HasField(name):
                    out[name] = value_of(getattr(message, name))
                else:
                    absent.append((declared, name))
                continue
            value = getattr(message, name)
            if value if kind is not _SCALAR else value != default:
                out[name] = value_of(value)
            else:
                defaults.append((declared, name, unset))
        for _, name, unset in sorted(defaults):
            # A fresh [] each time: the caller may change what it gets.
            out[name] = [] if unset == [] else unset
        for _, name in sorted(absent):
            out[name] = None
        return out

    return encode


_MESSAGE, _REPEATED, _BYTES, _SCALAR = "message", "repeated", "bytes", "scalar"


# -- the general road ---------------------------------------------------------------------------------


def _gogo_json(message, body):
    """What gogoproto's jsonpb writes differently from protobuf's json_format, in place: unset bytes as null
    where json_format writes "" (next_key), an unset message as null where json_format leaves it out
    (a deprecated pagination), LegacyDec fields as decimals; inside Any values too."""
    if message.DESCRIPTOR.full_name == "google.protobuf.Any":
        inner = any_descriptor(message.type_url)
        if inner is None:
            return
        unpacked = message_factory.GetMessageClass(inner)()
        message.Unpack(unpacked)
        message = unpacked
    for field in message.DESCRIPTOR.fields:
        if field.name not in body:
            if field.message_type is not None and not field.is_repeated and field.containing_oneof is None:
                body[field.name] = None
            continue
        if field.full_name in DECIMALS:
            value = getattr(message, field.name)
            body[field.name] = ([legacy_dec.text_of_wire(v) for v in value] if field.is_repeated
                                else legacy_dec.text_of_wire(value))
            continue
        if field.message_type is not None and field.message_type.full_name.startswith("google.protobuf.") \
                and field.message_type.full_name != "google.protobuf.Any":
            continue
        value = getattr(message, field.name)
        if field.type == descriptor.FieldDescriptor.TYPE_BYTES and not field.is_repeated:
            if not value:
                body[field.name] = None
        elif field.message_type is not None and not field.message_type.GetOptions().map_entry:
            if field.is_repeated:
                for item, item_body in zip(value, body[field.name], strict=True):
                    _gogo_json(item, item_body)
            elif isinstance(body[field.name], dict):
                _gogo_json(value, body[field.name])


def any_descriptor(type_url):
    """The descriptor of an Any's type, None for a well-known or unknown one."""
    if not isinstance(type_url, str):
        return None
    name = type_url.rpartition("/")[2]
    if name.startswith("google.protobuf."):
        return None     # well-known types carry a "value" of their own JSON form, no LegacyDec
    try:
        return descriptor_pool.Default().FindMessageTypeByName(name)
    except KeyError:
        return None
