"""parse_duration: Go's duration strings, as the `timeout` of a trace config, with Go's error texts."""

import pytest

from chaind.tracing.js import parse_duration
from chaind.tracing.js.tracer import go_duration


@pytest.mark.parametrize("text,seconds", [("5s", 5), ("500ms", 0.5), ("1m", 60), ("1m30s", 90), ("1.5h", 5400),
                                          ("0", 0), ("10us", 1e-5), ("10µs", 1e-5), ("250ns", 2.5e-7), (".5s", 0.5),
                                          ("-1s", -1), ("1h2m3.5s", 3723.5)])
def test_parse(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text,message", [
    ("x", 'time: invalid duration "x"'),
    ("", 'time: invalid duration ""'),
    ("10", 'time: missing unit in duration "10"'),
    ("10x", 'time: unknown unit "x" in duration "10x"'),
    ("1s2", 'time: missing unit in duration "1s2"'),
])
def test_errors(text, message):
    with pytest.raises(ValueError) as e:
        parse_duration(text)
    assert str(e.value) == message


@pytest.mark.parametrize("seconds,text", [(2.5e-7, "250ns"), (2.5e-5, "25µs"), (0.001234, "1.234ms"),
                                          (1.5, "1.5s"), (62.5, "1m2.5s"), (3600, "1h0m0s")])
def test_go_duration(seconds, text):
    assert go_duration(seconds) == text
