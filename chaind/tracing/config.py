"""Trace configuration decoding with geth's rules and error texts (Go encoding/json).

Keys match case-insensitively and unknown keys are ignored, as Go's decoder does.
"""

import math

import orjson

from chaind.gocompat import json_type


class ConfigError(ValueError):
    """A bad tracer config; str() is geth's error text."""


def load(raw):
    """A config given as an object, a JSON string (Evmos clients), or nothing, as a dict or None."""
    if raw is None:
        return None
    if isinstance(raw, (str, bytes)):
        text = raw.strip() if isinstance(raw, str) else raw.decode("utf-8", "replace").strip()
        if text in ("", "null"):
            return None
        try:
            raw = orjson.loads(text)
        except orjson.JSONDecodeError as e:
            raise ConfigError(f"invalid character in tracer config: {e}") from None
    return raw


def decode(raw, struct, fields):
    """Decode `raw` into a dict of `fields` ({json name: (python name, "bool" | "int", default)}).

    struct: the Go type geth decodes into (e.g. "callTracerConfig"), for its error texts.
    """
    out = {python: default for python, _, default in fields.values()}
    raw = load(raw)
    if raw is None:
        return out
    if not isinstance(raw, dict):
        raise ConfigError(f"json: cannot unmarshal {json_type(raw)} into Go value of type native.{struct}")
    by_lower = {name.lower(): name for name in fields}
    for key, value in raw.items():
        name = key if key in fields else by_lower.get(key.lower())
        if name is None or value is None:
            continue
        python, kind, _ = fields[name]
        if kind == "bool":
            if not isinstance(value, bool):
                raise ConfigError(f"json: cannot unmarshal {json_type(value)} into Go struct field "
                                  f"{struct}.{name} of type bool")
        elif kind == "int":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ConfigError(f"json: cannot unmarshal {json_type(value)} into Go struct field "
                                  f"{struct}.{name} of type int")
            # Go's int is 64 bits: a fraction, or a number out of its range, does not decode.
            if not math.isfinite(value) or value != int(value) or not -2**63 <= value < 2**63:
                raise ConfigError(f"json: cannot unmarshal number {value} into Go struct field "
                                  f"{struct}.{name} of type int")
            value = int(value)
        out[python] = value
    return out
