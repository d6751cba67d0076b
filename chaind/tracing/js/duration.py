"""Go's time.ParseDuration, for the `timeout` of a trace config ("5s", "500ms", "1m30s").

Errors use Go's wording, which geth returns to the client as it is.
"""

import re

_UNITS = {"ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"(\d*)(?:\.(\d*))?([^\d.]*)")


def parse_duration(text):
    """Seconds (a float) for a Go duration string; ValueError with Go's message when it is not one."""
    quoted = '"%s"' % text
    rest, sign = text, 1.0
    if rest[:1] in ("-", "+"):
        sign = -1.0 if rest[0] == "-" else 1.0
        rest = rest[1:]
    if rest == "0":
        return 0.0
    if not rest:
        raise ValueError("time: invalid duration " + quoted)
    total = 0.0
    while rest:
        match = _PART.match(rest)
        whole, fraction, unit = match.group(1), match.group(2), match.group(3)
        if not whole and not fraction:
            raise ValueError("time: invalid duration " + quoted)
        if not unit:
            raise ValueError("time: missing unit in duration " + quoted)
        if unit not in _UNITS:
            raise ValueError('time: unknown unit "%s" in duration %s' % (unit, quoted))
        total += float((whole or "0") + "." + (fraction or "0")) * _UNITS[unit]
        rest = rest[match.end():]
    return sign * total
