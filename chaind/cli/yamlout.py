"""JSON values as YAML text the way the SDK's `--output text` prints them (yaml.JSONToYAML, go-yaml v2).

Keys sorted as go-yaml sorts them, sequences not indented under their key, strings quoted when
they would read back as another type, long lines folded past column 80.
"""

import functools
import re

WIDTH = 80          # go-yaml's best_width: a scalar breaks at the first space past this column
INDENT = 2

_NULLS = {"", "~", "null", "Null", "NULL"}
_BOOLS = {"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false", "False",
          "FALSE", "on", "On", "ON", "off", "Off", "OFF"}
_SPECIAL_FLOATS = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN",
                   ".NAN", "<<"}
_NUMBER = re.compile(r"[-+]?((\d+\.?\d*|\.\d+)([eE][-+]?\d+)?"
                     r"|0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][-+]?\d+|inf|infinity|nan)\Z",
                     re.IGNORECASE)
# Go's ParseInt/ParseUint with base 0 read these too, but only within 64 bits.
_PREFIXED_INT = re.compile(r"([-+]?)0([xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)\Z")
_BASE60 = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?\Z")
_TIMESTAMP = re.compile(r"\d{4}-\d{1,2}-\d{1,2}([Tt ]\d{1,2}:\d{1,2}:\d{1,2}(\.\d+)?(Z|[-+]\d{2}:\d{2})?)?\Z")
_FIRST_INDICATORS = set("#,[]{}&*!|>'\"%@`")


def dump(value):
    """The YAML document for a JSON value (dicts, lists, str, int, float, bool, None)."""
    lines = []
    if isinstance(value, dict) and value:
        _mapping(value, 0, lines)
    elif isinstance(value, list) and value:
        _sequence(value, 0, lines)
    else:
        lines.append(_scalar(value, 0, 0))
    return "\n".join(lines) + "\n"


def _key_order(a, b):
    """go-yaml v2's keyList.Less: letters after other runes, digit runs compared as numbers."""
    for i in range(min(len(a), len(b))):
        x, y = a[i], b[i]
        if x == y:
            continue
        xl, yl = x.isalpha(), y.isalpha()
        if xl and yl:
            return -1 if x < y else 1
        if xl or yl:
            return -1 if yl else 1
        xn, xi = _digits(a, i)
        yn, yi = _digits(b, i)
        if xn != yn:
            return -1 if xn < yn else 1
        if xi != yi:
            return -1 if xi < yi else 1
        return -1 if x < y else 1
    return (len(a) > len(b)) - (len(a) < len(b))


def _digits(text, i):
    end = i
    while end < len(text) and text[end].isdigit():
        end += 1
    return (int(text[i:end]) if end > i else 0), end


def _mapping(mapping, indent, lines, first_prefix=None):
    """Lines of a block mapping whose keys start at column `indent`; the first may follow a "- "."""
    for n, key in enumerate(sorted(mapping, key=functools.cmp_to_key(_key_order))):
        prefix = first_prefix if n == 0 and first_prefix is not None else " " * indent
        head = prefix + _scalar(key, len(prefix), indent, key=True) + ":"
        _entry(head, mapping[key], indent, lines, sequence_indent=indent)


def _sequence(items, indent, lines, first_prefix=None):
    for n, item in enumerate(items):
        prefix = (first_prefix if n == 0 and first_prefix is not None else " " * indent) + "-"
        _entry(prefix, item, indent, lines, sequence_indent=indent + INDENT, in_sequence=True)


def _entry(head, value, indent, lines, sequence_indent, in_sequence=False):
    if isinstance(value, dict) and value:
        if in_sequence:
            _mapping(value, indent + INDENT, lines, first_prefix=head + " ")
        else:
            lines.append(head)
            _mapping(value, indent + INDENT, lines)
    elif isinstance(value, list) and value:
        if in_sequence:
            _sequence(value, indent + INDENT, lines, first_prefix=head + " ")
        else:
            # go-yaml writes a mapping's sequence at the mapping's own indent.
            lines.append(head)
            _sequence(value, indent, lines)
    else:
        lines.append(head + " " + _scalar(value, len(head) + 1, indent + INDENT))


def _scalar(value, column, indent, key=False):
    """A scalar written from `column`; folded lines continue at `indent`."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    text = value
    if "\n" in text and not key:
        return _literal(text, indent)
    if _resolves_to_other_type(text):
        return _double_quoted(text, column, indent, not key)
    plain, single = _allowed_styles(text)
    if plain:
        return _folded(text, column, indent, not key, "plain")
    if single:
        return _folded(text, column, indent, not key, "single")
    return _double_quoted(text, column, indent, not key)


def _resolves_to_other_type(text):
    if text in _NULLS or text in _BOOLS or text in _SPECIAL_FLOATS:
        return True
    if text[0] in "0123456789+-.":
        plain = text.replace("_", "")
        if _NUMBER.match(plain) or _BASE60.match(text) or _TIMESTAMP.match(text):
            return True
        prefixed = _PREFIXED_INT.match(plain)
        if prefixed:
            value = int(plain[len(prefixed.group(1)):], 0)
            return value < 2 ** 64 if prefixed.group(1) != "-" else value <= 2 ** 63
    return False


def _printable(c):
    o = ord(c)
    return (o == 0x0A or 0x20 <= o <= 0x7E or o == 0x85 or 0xA0 <= o <= 0xD7FF
            or (0xE000 <= o <= 0xFFFD and o != 0xFEFF) or 0x10000 <= o <= 0x10FFFF)


def _allowed_styles(text):
    """(plain allowed, single-quoted allowed) in block context, as go-yaml's analyze_scalar finds them."""
    if text.startswith(("---", "...")):
        return False, True
    indicators = special = False
    previous_space = True
    for i, c in enumerate(text):
        following_space = i + 1 == len(text) or text[i + 1] in " \t\n"
        if i == 0:
            if c in _FIRST_INDICATORS or (c in "?:-" and following_space):
                indicators = True
        elif (c == ":" and following_space) or (c == "#" and previous_space):
            indicators = True
        if not _printable(c):
            special = True
        previous_space = c == " "
    edge_space = text[0] == " " or text[-1] == " "
    return not (indicators or special or edge_space), not special


def _folded(text, column, indent, allow_breaks, style):
    out = []
    if style == "single":
        out.append("'")
        column += 1
    spaces = False
    last = len(text) - 1
    for i, c in enumerate(text):
        if c == " ":
            following_space = i < last and text[i + 1] == " "
            inner = style == "plain" or (i != 0 and i != last)
            if allow_breaks and not spaces and column > WIDTH and inner and not following_space:
                out.append("\n" + " " * indent)
                column = indent
            else:
                out.append(c)
                column += 1
            spaces = True
        else:
            piece = "''" if style == "single" and c == "'" else c
            out.append(piece)
            column += len(piece)
            spaces = False
    if style == "single":
        out.append("'")
    return "".join(out)


_ESCAPES = {"\0": "\\0", "\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f",
            "\r": "\\r", "\x1b": "\\e", '"': '\\"', "\\": "\\\\", "\x85": "\\N", "\xa0": "\\_",
            "\u2028": "\\L", "\u2029": "\\P"}


def _double_quoted(text, column, indent, allow_breaks):
    out = ['"']
    column += 1
    spaces = False
    last = len(text) - 1
    for i, c in enumerate(text):
        if c in _ESCAPES or not _printable(c) or c == "\ufeff":
            piece = _ESCAPES.get(c)
            if piece is None:
                o = ord(c)
                piece = "\\x%02X" % o if o <= 0xFF else "\\u%04X" % o if o <= 0xFFFF else "\\U%08X" % o
            out.append(piece)
            column += len(piece)
            spaces = False
        elif c == " ":
            if allow_breaks and not spaces and column > WIDTH and i != 0 and i != last:
                out.append("\n" + " " * indent)
                column = indent
                if text[i + 1] == " ":
                    out.append("\\")
                    column += 1
            else:
                out.append(c)
                column += 1
            spaces = True
        else:
            out.append(c)
            column += 1
            spaces = False
    out.append('"')
    return "".join(out)


def _literal(text, indent):
    chomp = "-" if not text.endswith("\n") else ("+" if text.endswith("\n\n") else "")
    hint = str(INDENT) if text[0] in " \n" else ""
    body = text[:-1] if text.endswith("\n") else text
    lines = ["|" + hint + chomp]
    for line in body.split("\n"):
        lines.append(" " * indent + line if line else "")
    return "\n".join(lines)
