"""CometBFT's event query language (v0.38 libs/pubsub/query/syntax): parse, print, match.

Shared by the event search (store/search.py) and subscriptions (CometBFT /websocket); errors read as CometBFT's do.
"""

import datetime
import re
from decimal import Decimal, InvalidOperation

import attrs

from chaind.gocompat import parse_rfc3339

# Token kinds, named as CometBFT prints them in errors.
TAG, STRING, NUMBER, TIME, DATE = "tag", "string", "number", "timestamp", "datestamp"
AND, CONTAINS, EXISTS = "AND operator", "CONTAINS operator", "EXISTS operator"
EQ, LT, LEQ, GT, GEQ = "= operator", "< operator", "<= operator", "> operator", ">= operator"
INVALID = "invalid token"

_OP_TEXT = {EQ: "=", LT: "<", LEQ: "<=", GT: ">", GEQ: ">=", CONTAINS: "CONTAINS", EXISTS: "EXISTS"}
_KEYWORDS = {"AND": AND, "CONTAINS": CONTAINS, "EXISTS": EXISTS}
_TIME_CHARS = frozenset("0123456789-T:+Z")
_LEADING_NUMBER = re.compile(r"^\d+(\.\d+)?")
RANGE_OPS = (LT, LEQ, GT, GEQ)


class QueryError(ValueError):
    """A query that does not parse; the message is CometBFT's (offset, what was found, what was wanted)."""


class _EOF(Exception):
    pass


@attrs.frozen
class Condition:
    tag: str
    op: str
    kind: str | None = None         # NUMBER, STRING, TIME or DATE; None for EXISTS
    text: str | None = None         # the argument as written (without quotes or keyword)
    value: object = None    # Decimal, str, or an aware datetime

    def __str__(self):
        if self.op == EXISTS:
            return f"{self.tag} EXISTS"
        forms: dict[str | None, str] = {STRING: f"'{self.text}'", TIME: f"TIME {self.text}", DATE: f"DATE {self.text}"}
        arg = forms.get(self.kind, self.text)
        return f"{self.tag} {_OP_TEXT[self.op]} {arg}"

    def matches_value(self, value, strict=False):
        """Whether one attribute value satisfies this condition.

        Numbers compare by the value's leading number (so `amount > 100` matches "250aevmos"), as
        subscriptions do; `strict` (the indexer's ranges) wants the whole value to be a number.
        """
        op = self.op
        if op == EXISTS:
            return True
        if op == CONTAINS:
            return self.value in value
        if self.kind == STRING:
            return value == self.value
        if self.kind == NUMBER:
            found = _number(value, strict)
        elif self.kind == DATE:
            found = _parse_date(value)
        else:
            found = _parse_time(value)
        if found is None:
            return False
        want = self.value
        try:
            return {EQ: found == want, LT: found < want, LEQ: found <= want, GT: found > want,
                    GEQ: found >= want}[op]
        except TypeError:
            return False


@attrs.frozen
class Query:
    conditions: tuple
    text: str               # as the client wrote it

    def __str__(self):
        """The normalized form: subscriptions are keyed by it, so spacing does not matter."""
        return " AND ".join(str(c) for c in self.conditions)

    def matches(self, events):
        """Whether `events` ({composite key: [values]}) satisfies every condition (across events)."""
        for cond in self.conditions:
            values = events.get(cond.tag)
            if values is None:
                return False
            if not any(cond.matches_value(v) for v in values):
                return False
        return True


def parse(text):
    """A Query from its text, or QueryError."""
    return Query(tuple(_Parser(text).parse()), text)


def _number(value, strict):
    if strict:
        try:
            number = Decimal(value)
        except InvalidOperation:
            return None
        return number if number.is_finite() else None
    match = _LEADING_NUMBER.match(value)
    return Decimal(match.group(0)) if match else None


def _parse_date(value):
    try:
        return datetime.datetime.strptime(value, "%Y-%m-%d").replace(tzinfo=datetime.timezone.utc)
    except ValueError:
        return None


def _parse_time(value):
    try:
        return parse_rfc3339(value)
    except ValueError:
        return None


class _Scanner:
    def __init__(self, text):
        self.text = text
        self.pos = 0        # start of the current token
        self.end = 0        # just past it
        self.token = INVALID
        self.value = ""

    def next(self):
        """Scan the next token; raises _EOF at the end, QueryError-worthy ValueError on bad input."""
        text, i = self.text, self.end
        while i < len(text) and text[i].isspace():
            i += 1
        self.pos, self.token, self.value = i, INVALID, ""
        if i >= len(text):
            self.end = i
            raise _EOF()
        ch = text[i]
        if "0" <= ch <= "9":
            j = i
            while j < len(text) and text[j].isdigit() and text[j].isascii():
                j += 1
            if j < len(text) and text[j] == ".":
                j += 1
                while j < len(text) and text[j].isdigit() and text[j].isascii():
                    j += 1
            return self._set(NUMBER, j, text[i:j])
        if ch == "'":
            j = text.find("'", i + 1)
            if j < 0:
                self.end = len(text)
                raise _EOF()
            return self._set(STRING, j + 1, text[i + 1:j])
        if ch in "<>=":
            if ch != "=" and text[i + 1:i + 2] == "=":
                return self._set(LEQ if ch == "<" else GEQ, i + 2, ch + "=")
            return self._set({"<": LT, ">": GT, "=": EQ}[ch], i + 1, ch)
        if ch == "_" or ch.isalpha():
            j = i + 1
            while j < len(text) and (text[j] in "_.-" or text[j].isalnum()):
                j += 1
            word = text[i:j]
            if word in ("TIME", "DATE") and text[j:j + 1] == " ":
                k = j + 1
                while k < len(text) and text[k] in _TIME_CHARS:
                    k += 1
                return self._set(TIME if word == "TIME" else DATE, k, text[j + 1:k])
            return self._set(_KEYWORDS.get(word, TAG), j, word)
        self.end = i + 1
        raise ValueError(f"invalid input {ch} at offset {i + 1}")

    def _set(self, token, end, value):
        self.token, self.end, self.value = token, end, value


class _Parser:
    def __init__(self, text):
        self.scanner = _Scanner(text)

    def parse(self):
        conditions = [self._condition()]
        while True:
            try:
                self.scanner.next()
            except _EOF:
                return conditions
            except ValueError:
                pass        # an invalid token where AND belongs
            if self.scanner.token != AND:
                raise QueryError(f"offset {self.scanner.pos}: got {self.scanner.token}, want {AND}")
            conditions.append(self._condition())

    def _require(self, *tokens):
        s = self.scanner
        try:
            s.next()
        except _EOF:
            raise QueryError(f"offset {s.pos}: EOF") from None
        except ValueError as e:
            raise QueryError(f"offset {s.pos}: {e}") from None
        if s.token not in tokens:
            wanted = tokens[0] if len(tokens) == 1 else ", ".join(tokens[:-1]) + " or " + tokens[-1]
            raise QueryError(f"offset {s.pos}: got {s.token}, wanted {wanted}")
        return s.token, s.value

    def _condition(self):
        _, tag = self._require(TAG)
        op, _ = self._require(LEQ, GEQ, LT, GT, EQ, CONTAINS, EXISTS)
        if op == EXISTS:
            return Condition(tag, op)
        if op == CONTAINS:
            kind, text = self._require(STRING)
        elif op == EQ:
            kind, text = self._require(NUMBER, TIME, DATE, STRING)
        else:
            kind, text = self._require(NUMBER, TIME, DATE)
        return Condition(tag, op, kind, text, self._value(kind, text))

    def _value(self, kind, text):
        pos = self.scanner.pos
        if kind == STRING:
            return text
        if kind == NUMBER:
            return Decimal(text)
        try:
            if kind == DATE:
                value = datetime.datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=datetime.timezone.utc) \
                    if re.fullmatch(r"\d{4}-\d\d-\d\d", text) else _rfc3339_date_error(text)
            else:
                value = parse_rfc3339(text)
        except ValueError as e:
            raise QueryError(f"offset {pos}: invalid {'DATE' if kind == DATE else 'TIME'} value: {e}") from None
        if not 1900 <= value.year <= 2999:
            raise QueryError(f"offset {pos}: invalid {'DATE' if kind == DATE else 'TIME'} value: "
                             f"year {value.year} is outside 1900-2999")
        return value


def _rfc3339_date_error(text):
    raise ValueError(f'parsing time "{text}" as "2006-01-02": cannot parse "{text}" as "2006-01-02"')
