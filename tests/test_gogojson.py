"""The REST gateway's compiled JSON encoders write exactly what json_format plus gogo's differences write, key
order included, for every message type in protos/ (random contents)."""

import importlib
import pkgutil
import random

import orjson
import pytest
from google.protobuf import descriptor, message_factory

import chaind.pb
from chaind.pb.rest_routes import DECIMALS
from chaind.rest import gogojson

_FD = descriptor.FieldDescriptor


def _all_types():
    def walk(message_descriptor):
        yield message_descriptor
        for nested in message_descriptor.nested_types:
            yield from walk(nested)

    for info in pkgutil.walk_packages(chaind.pb.__path__, "chaind.pb."):
        if info.name.endswith("_pb2"):
            for message_descriptor in importlib.import_module(info.name).DESCRIPTOR.message_types_by_name.values():
                yield from walk(message_descriptor)


# Every message type of protos/ (answers are written from the top, but each type's encoder stands alone too).
MESSAGE_TYPES = sorted({t.full_name: t for t in _all_types() if not t.GetOptions().map_entry}.items())


def _fill(message, rng, depth):
    for field in message.DESCRIPTOR.fields:
        if field.containing_oneof is not None and rng.random() < 0.5:
            continue
        count = rng.choice((0, 1, 2)) if field.is_repeated else 1
        for _ in range(count):
            if field.message_type is not None:
                if field.message_type.GetOptions().map_entry or depth > 3 or \
                        field.message_type.full_name.startswith("google.protobuf."):
                    break
                if not field.is_repeated and rng.random() < 0.3:
                    break       # left unset
                target = getattr(message, field.name).add() if field.is_repeated else getattr(message, field.name)
                target.SetInParent()
                _fill(target, rng, depth + 1)
                continue
            value = _scalar(field, rng)
            if field.is_repeated:
                getattr(message, field.name).append(value)
            else:
                setattr(message, field.name, value)


def _scalar(field, rng):
    zero = rng.random() < 0.3     # the default value: printed anyway, or null for bytes
    if field.full_name in DECIMALS:     # a LegacyDec: digits on the wire, as a string or as bytes
        digits = str(rng.randint(1, 10**30))
        return ("" if zero else digits) if field.type == _FD.TYPE_STRING else (b"" if zero else digits.encode())
    if field.type == _FD.TYPE_STRING:
        return "" if zero else rng.choice(("achain", "12345", "0.5", "héllo", "1000000000000000000"))
    if field.type == _FD.TYPE_BYTES:
        return b"" if zero else rng.randbytes(rng.randint(1, 40))
    if field.type == _FD.TYPE_BOOL:
        return not zero
    if field.type == _FD.TYPE_ENUM:
        return 0 if zero else rng.choice([v.number for v in field.enum_type.values])
    if field.type in (_FD.TYPE_FLOAT, _FD.TYPE_DOUBLE):
        return 0.0 if zero else 1.5
    if field.type in (_FD.TYPE_UINT64, _FD.TYPE_FIXED64, _FD.TYPE_UINT32, _FD.TYPE_FIXED32):
        return 0 if zero else rng.randint(1, 2**31)
    return 0 if zero else rng.randint(-2**31, 2**31)


@pytest.mark.parametrize("name, message_descriptor", MESSAGE_TYPES, ids=[n for n, _ in MESSAGE_TYPES])
def test_compiled_json_equals_json_format(name, message_descriptor):
    message_class = message_factory.GetMessageClass(message_descriptor)
    rng = random.Random(name)
    for _ in range(10):
        message = message_class()
        _fill(message, rng, 0)
        assert orjson.dumps(gogojson.to_dict(message)) == orjson.dumps(gogojson.general_dict(message))


def test_most_answers_are_compiled():
    compiled = [name for name, d in MESSAGE_TYPES if gogojson.compiled(d)]
    assert len(compiled) > len(MESSAGE_TYPES) // 2
    assert "cosmos.bank.v1beta1.QueryAllBalancesResponse" in compiled
