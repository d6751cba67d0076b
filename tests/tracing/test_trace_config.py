"""Go-compatible decoding of trace configs: durations and JSON-string configs."""

import pytest

from chaind.gocompat import parse_duration
from chaind.tracing.config import ConfigError, decode


@pytest.mark.parametrize("text, seconds", [
    ("5s", 5.0), ("500ms", 0.5), ("1m30s", 90.0), ("1.5h", 5400.0), ("0", 0.0), ("250us", 0.00025),
    ("10µs", 0.00001), ("+2s", 2.0),
])
def test_durations(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text, message", [
    ("x", 'time: invalid duration "x"'),
    ("10", 'time: missing unit in duration "10"'),
    ("10x", 'time: unknown unit "x" in duration "10x"'),
    ("", 'time: invalid duration ""'),
])
def test_bad_durations(text, message):
    with pytest.raises(ValueError) as raised:
        parse_duration(text)
    assert str(raised.value) == message


def test_decode_string_object_and_defaults():
    fields = {"diffMode": ("diff_mode", "bool", False)}
    assert decode('{"diffMode":true}', "prestateTracerConfig", fields) == {"diff_mode": True}
    assert decode({"DiffMode": True, "other": 1}, "prestateTracerConfig", fields) == {"diff_mode": True}
    assert decode(None, "prestateTracerConfig", fields) == {"diff_mode": False}
    assert decode("", "prestateTracerConfig", fields) == {"diff_mode": False}
    with pytest.raises(ConfigError, match="into Go value of type native.prestateTracerConfig"):
        decode("5", "prestateTracerConfig", fields)
