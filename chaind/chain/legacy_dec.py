"""cosmossdk.io/math.LegacyDec: the SDK's 18-place fixed-point decimal, in its three forms.

In state it is an integer of 10^-18 units ("atomics"); on the protobuf wire that integer as a
decimal string; in JSON and text the decimal itself ("0.100000000000000000"). Bounds and error
texts are math/dec.go's.
"""

PLACES = 18
ONE = 10 ** PLACES
_MAX_BITS = 256 + 59


def parse(text):
    """LegacyNewDecFromStr: "0.5" -> 5 * 10^17 atomics. Raises ValueError with its message."""
    if not isinstance(text, str):
        raise ValueError(f"a decimal must be a JSON string, got {text!r}")
    negative = text.startswith("-")
    digits = text[1:] if negative else text
    if not digits:
        raise ValueError("decimal string cannot be empty")
    parts = digits.split(".")
    if len(parts) > 2:
        raise ValueError("invalid decimal string")
    fraction = parts[1] if len(parts) == 2 else ""
    if len(parts) == 2 and not (fraction and parts[0]):
        raise ValueError("invalid decimal length")
    if len(fraction) > PLACES:
        raise ValueError(f"value '{digits}' exceeds max precision by {PLACES - len(fraction)} decimal "
                         f"places: max precision {PLACES}")
    combined = parts[0] + fraction + "0" * (PLACES - len(fraction))
    if not (combined.isascii() and combined.isdigit()):
        raise ValueError(f"failed to set decimal string with base 10: {combined}")
    value = int(combined)
    if value.bit_length() > _MAX_BITS:
        raise ValueError(f"decimal '{digits}' out of range; bitLen: got {value.bit_length()}, max {_MAX_BITS}")
    return -value if negative else value


def format(atomics):
    """LegacyDec.String(): always 18 places ("-0.000000000000000005")."""
    if atomics < 0:
        return "-" + format(-atomics)
    # The digits once, the point put in (about twice as fast as divmod and a padded fraction: every block
    # prints each validator's allocation twice).
    digits = str(atomics).rjust(PLACES + 1, "0")
    return digits[:-PLACES] + "." + digits[-PLACES:]


def text_of_wire(wire):
    """The JSON text of a wire string; nothing on the wire is a nil LegacyDec, which marshals as "0"."""
    return format(int(wire)) if wire else "0"


def wire_of_text(text):
    """The wire string of a decimal text ("0.5" -> "500000000000000000")."""
    return str(parse(text))
