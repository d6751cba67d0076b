"""Route arguments decoded as CometBFT decodes them: from URI query strings and from JSON-RPC params.

URI strings must be JSON-quoted (or 0x-hex); JSON int64 must be strings, []byte base64, HexBytes hex.
"""

import base64
import binascii
import re

import attrs
import orjson

from chaind.gocompat import json_type

INT, BOOL, STR, BYTES, HEX, JSON = "int", "bool", "string", "bytes", "hexbytes", "json"
_DIGITS = re.compile(r"^-?[0-9]+$")
_GO_TYPES = {INT: "int64", BOOL: "bool", STR: "string", BYTES: "[]uint8", HEX: "bytes.HexBytes"}


class ParamError(ValueError):
    """Arguments that do not decode; the message is CometBFT's detail."""


@attrs.frozen
class Arg:
    """kind JSON takes any JSON value (a URI's text is parsed as JSON); decode(value), when given, turns the
    decoded value into the argument and raises ParamError when it cannot."""

    name: str
    kind: str
    decode: object = None


def from_uri(args, query):
    """Keyword arguments from a URI query ({name: [values]}); absent or empty means not given."""
    out = {}
    for arg in args:
        values = query.get(arg.name)
        text = values[0] if values else ""
        out[arg.name] = None if text == "" else _decoded(arg, _uri_value(arg.kind, text))
    return out


def _decoded(arg, value):
    return value if arg.decode is None or value is None else arg.decode(value)


def from_json(args, params):
    """Keyword arguments from JSON-RPC params: an object by name, or an array of exactly len(args)."""
    if params is None:
        params = {}
    if isinstance(params, list):
        if len(params) != len(args):
            names = " ".join(a.name for a in args)
            got = " ".join(orjson.dumps(p).decode() for p in params)
            raise ParamError(f"expected {len(args)} parameters ([{names}]), got {len(params)} ([{got}])")
        params = {a.name: v for a, v in zip(args, params, strict=True)}
    elif not isinstance(params, dict):
        raise ParamError("unmarshalling params: params must be an object or an array")
    return {a.name: _decoded(a, _json_value(a.kind, params.get(a.name))) for a in args}


def _uri_value(kind, text):
    if kind == INT and _DIGITS.match(text):
        return int(text)
    if kind in (STR, BYTES, HEX) and text.startswith("0x"):
        try:
            raw = bytes.fromhex(text[2:])
        except ValueError:
            raise ParamError(f"encoding/hex: invalid hex {text[2:][:40]!r}") from None
        return raw.decode(errors="replace") if kind == STR else raw
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        raise ParamError(f"invalid character {text[0]!r} looking for beginning of value") from None
    if kind == JSON:
        return value
    if kind in (BYTES, HEX):
        if not isinstance(value, str):
            raise ParamError(f"json: cannot unmarshal {json_type(value)} into Go value of type {_GO_TYPES[kind]}")
        return value.encode()
    return _json_value(kind, value)


def _json_value(kind, value):
    if value is None or kind == JSON:
        return value
    if kind == INT:
        if isinstance(value, str) and _DIGITS.match(value):
            return int(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            raise ParamError(f'invalid 64-bit integer encoding "{orjson.dumps(value).decode()}", expected string')
        raise ParamError(f"json: cannot unmarshal {json_type(value)} into Go value of type int64")
    if kind == BOOL:
        if isinstance(value, bool):
            return value
        raise ParamError(f"json: cannot unmarshal {json_type(value)} into Go value of type bool")
    if not isinstance(value, str):
        raise ParamError(f"json: cannot unmarshal {json_type(value)} into Go value of type {_GO_TYPES[kind]}")
    if kind == STR:
        return value
    if kind == BYTES:
        try:
            return base64.b64decode(value, validate=True)
        except binascii.Error:
            raise ParamError(f"illegal base64 data at input byte {_bad_b64_at(value)}") from None
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise ParamError(f"encoding/hex: invalid hex string {value[:40]!r}") from None


def _bad_b64_at(text):
    alphabet = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
    for i, ch in enumerate(text):
        if ch not in alphabet:
            return i
    return len(text)
