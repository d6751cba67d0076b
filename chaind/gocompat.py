"""Go's wording and formats that geth and CometBFT put on the wire as they are: JSON kinds, durations, times.

Shared by every face and service that must read or write them the way Go does.
"""

import datetime
import re

GO_ZERO_TIME_NS = -62135596800 * 10**9   # Go's zero time.Time (0001-01-01T00:00:00Z), in Unix nanoseconds


def json_type(value):
    """Go's name for a JSON value's kind in "json: cannot unmarshal <kind> into ..." errors."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"(\d*)(\.\d*)?([^\d.]*)")


def parse_duration(text):
    """Go's time.ParseDuration ("5s", "1m30s", "500ms") in seconds, with Go's error texts."""
    quoted = '"' + text + '"'
    rest = text
    sign = 1.0
    if rest[:1] in ("-", "+"):
        sign = -1.0 if rest[0] == "-" else 1.0
        rest = rest[1:]
    if rest == "0":
        return 0.0
    if not rest:
        raise ValueError(f"time: invalid duration {quoted}")
    total = 0.0
    while rest:
        match = _PART.match(rest)
        whole, fraction, unit = match.group(1), match.group(2), match.group(3)
        if not whole and (not fraction or fraction == "."):
            raise ValueError(f"time: invalid duration {quoted}")
        if not unit:
            raise ValueError(f"time: missing unit in duration {quoted}")
        if unit not in _UNITS:
            raise ValueError(f'time: unknown unit "{unit}" in duration {quoted}')
        total += float((whole or "0") + (fraction or "")) * _UNITS[unit]
        rest = rest[match.end():]
    return sign * total


def go_duration(seconds):
    """Go's time.Duration.String() for ctx.time, e.g. "1.234567ms", "25µs", "1m2.5s"."""
    ns = int(round(seconds * 1e9))
    if ns < 1000:
        return "%dns" % ns
    if ns < 1_000_000:
        return _trim("%.3f" % (ns / 1e3)) + "\u00b5s"
    if ns < 1_000_000_000:
        return _trim("%.6f" % (ns / 1e6)) + "ms"
    hours, rest = divmod(ns, 3_600_000_000_000)
    minutes, rest = divmod(rest, 60_000_000_000)
    text = _trim("%.9f" % (rest / 1e9)) + "s"
    if hours:
        return "%dh%dm%s" % (hours, minutes, text)
    return ("%dm" % minutes + text) if minutes else text


def _trim(number):
    return number.rstrip("0").rstrip(".") if "." in number else number


def format_time(ns):
    """RFC 3339 with nanoseconds and a Z, as CometBFT writes times."""
    seconds, nanos = divmod(ns, 10**9)
    base = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    frac = f".{nanos:09d}".rstrip("0").rstrip(".")
    return f"{base}{frac}Z"


def format_time_seconds(ns):
    """Go's time.RFC3339: whole seconds and a Z (the SDK's event completion times; Go's zero time included)."""
    if ns == GO_ZERO_TIME_NS:
        return "0001-01-01T00:00:00Z"
    return format_time(ns - ns % 10**9)


def rfc3339_seconds(text):
    """An RFC 3339 time as CometBFT writes it (nanoseconds), cut to Go's time.RFC3339 (whole seconds)."""
    if "." in text:
        head, rest = text.split(".", 1)
        zone = rest.lstrip("0123456789")
        return head + (zone or "Z")
    return text


def parse_rfc3339(text):
    """Go's time.Parse(time.RFC3339, text); the ValueError reads as Go's error does."""
    layout = "2006-01-02T15:04:05Z07:00"
    # Go walks the layout chunk by chunk; a mismatch names the rest of the value and the chunk.
    chunks = [("2006", 4), ("-", 0), ("01", 2), ("-", 0), ("02", 2), ("T", 0), ("15", 2), (":", 0),
              ("04", 2), (":", 0), ("05", 2)]
    rest, fields = text, []

    def fail(chunk):
        raise ValueError(f'parsing time "{text}" as "{layout}": cannot parse "{rest}" as "{chunk}"')

    for chunk, width in chunks:
        if width == 0:
            if not rest.startswith(chunk):
                fail(chunk)
            rest = rest[len(chunk):]
            continue
        digits = rest[:width]
        if len(digits) != width or not digits.isdigit():
            fail(chunk)
        fields.append(int(digits))
        rest = rest[width:]
    nanos = 0
    match = re.match(r"\.(\d{1,9})", rest)
    if match:
        nanos = int(match.group(1).ljust(9, "0"))
        rest = rest[match.end():]
    if rest == "Z":
        offset = 0
    else:
        match = re.fullmatch(r"([+-])(\d\d):(\d\d)", rest)
        if not match:
            fail("Z07:00")
        offset = (int(match.group(2)) * 60 + int(match.group(3))) * (-1 if match.group(1) == "-" else 1)
    year, month, day, hour, minute, second = fields
    try:
        moment = datetime.datetime(year, month, day, hour, minute, second,
                                   tzinfo=datetime.timezone(datetime.timedelta(minutes=offset)))
    except ValueError:
        raise ValueError(f'parsing time "{text}": day or month out of range') from None
    return moment + datetime.timedelta(microseconds=nanos // 1000)
