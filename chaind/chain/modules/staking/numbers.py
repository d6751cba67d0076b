"""staking's numbers: LegacyDec arithmetic on atomics, and the SDK's JSON durations."""

import re

from chaind.chain import errors, legacy_dec

PRECISION = legacy_dec.ONE        # LegacyDec: a decimal is an integer of 10^-18 units ("atomics")
_DURATION = re.compile(r"^(\d+)(?:\.(\d{1,9}))?s$")


def dec_from_wire(text, what):
    """A LegacyDec field of a message: protobuf carries its atomics as an integer string."""
    if not re.fullmatch(r"-?\d+", text or ""):
        raise errors.invalid_request(f"invalid {what} {text!r}: not a decimal (atomics expected)")
    return int(text)


def _round_half_even(numerator, denominator):
    quotient, remainder = divmod(numerator, denominator)
    twice = 2 * remainder
    if twice > denominator or (twice == denominator and quotient % 2):
        quotient += 1
    return quotient


def dec_quo(a, b):
    """LegacyDec.Quo: a / b with banker's rounding at 18 decimals (both in atomics)."""
    return _round_half_even(a * PRECISION * PRECISION // b, PRECISION)


def parse_duration(text):
    match = _DURATION.match(text or "")
    if not match:
        raise ValueError(f"duration {text!r} must look like 1814400s")
    return int(match.group(1)) * 10**9 + int((match.group(2) or "0").ljust(9, "0"))


def format_duration(ns):
    seconds, nanos = divmod(ns, 10**9)
    return f"{seconds}.{nanos:09d}".rstrip("0").rstrip(".") + "s"
