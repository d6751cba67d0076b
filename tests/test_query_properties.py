"""The event query language (chaind/events/query.py) against its grammar: CometBFT v0.38's error texts, and
hypothesis-generated queries that must parse, print back, and match what they describe; garbage must fail cleanly.
"""

import datetime
import decimal
import os
import re
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chaind.events import query as q

# Under CI the examples are the same every run (a red build names a real regression); locally they vary.
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                derandomize=bool(os.environ.get("CI")))

# Tags: a letter or "_", then letters, digits, ".", "-", "_" (keywords cannot be tags; TIME/DATE before
# a space start a literal).
_TAG_FIRST = st.sampled_from("abcxyzABCXYZ_éλ")
_TAG_REST = st.text(alphabet="abcz09._-ÄßΩ", max_size=12)
TAGS = st.builds(lambda first, rest: first + rest, _TAG_FIRST, _TAG_REST).filter(
    lambda tag: tag not in ("AND", "CONTAINS", "EXISTS", "TIME", "DATE"))
SPACE = st.sampled_from([" ", "  ", "\t", "\n", " \u00a0"])
GAP = st.one_of(st.just(""), SPACE)       # where a token boundary needs no space


@st.composite
def numbers(draw):
    whole = draw(st.integers(min_value=0, max_value=10**30))
    text = str(whole).zfill(draw(st.integers(0, 3)) + len(str(whole)))
    fraction = draw(st.one_of(st.none(), st.text(alphabet="0123456789", max_size=6)))
    return text if fraction is None else f"{text}.{fraction}"


DATES = st.dates(min_value=datetime.date(1900, 1, 1), max_value=datetime.date(2999, 12, 31))


@st.composite
def times(draw):
    moment = draw(st.datetimes(min_value=datetime.datetime(1900, 1, 2), max_value=datetime.datetime(2999, 12, 30)))
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    offset = draw(st.one_of(st.just("Z"), st.builds(lambda sign, h, m: f"{sign}{h:02}:{m:02}",
                                                    st.sampled_from("+-"), st.integers(0, 14), st.integers(0, 59))))
    return text + offset


@st.composite
def conditions(draw):
    """(text, tag, op, kind, argument text) of one condition the grammar allows."""
    tag = draw(TAGS)
    kind = draw(st.sampled_from([None, q.STRING, q.NUMBER, q.DATE, q.TIME]))
    if kind is None:
        return f"{tag}{draw(SPACE)}EXISTS", tag, q.EXISTS, None, None
    if kind == q.STRING:
        op = draw(st.sampled_from([q.EQ, q.CONTAINS]))
        arg = draw(st.text(alphabet=st.characters(blacklist_characters="'", blacklist_categories=["Cs"]),
                           max_size=20))
        written = f"'{arg}'"
    else:
        op = draw(st.sampled_from([q.EQ, q.LT, q.LEQ, q.GT, q.GEQ]))
        arg = {q.NUMBER: numbers, q.DATE: lambda: DATES.map(str), q.TIME: times}[kind]()
        arg = draw(arg)
        written = {q.NUMBER: arg, q.DATE: f"DATE {arg}", q.TIME: f"TIME {arg}"}[kind]
    symbol = {q.EQ: "=", q.LT: "<", q.LEQ: "<=", q.GT: ">", q.GEQ: ">=", q.CONTAINS: "CONTAINS"}[op]
    # Keywords need a space on both sides; symbols need none.
    around = SPACE if op == q.CONTAINS else GAP
    return f"{tag}{draw(around)}{symbol}{draw(around)}{written}", tag, op, kind, arg


@st.composite
def queries(draw):
    parts = draw(st.lists(conditions(), min_size=1, max_size=5))
    joins = [f"{draw(SPACE)}AND{draw(SPACE)}" for _ in parts[1:]]
    text = draw(GAP) + parts[0][0] + "".join(j + p[0] for j, p in zip(joins, parts[1:], strict=True)) + draw(GAP)
    return text, [p[1:] for p in parts]


@pytest.mark.slow
@FAST
@given(queries())
def test_generated_queries_parse_to_what_was_written(generated):
    text, parts = generated
    parsed = q.parse(text)
    assert [(c.tag, c.op, c.kind, c.text) for c in parsed.conditions] == parts
    assert parsed.text == text


@pytest.mark.slow
@FAST
@given(queries())
def test_normalized_form_parses_back_to_itself(generated):
    parsed = q.parse(generated[0])
    again = q.parse(str(parsed))
    assert again.conditions == parsed.conditions and str(again) == str(parsed)


def _witness(cond):
    """An attribute value that satisfies `cond`, or None when none can (e.g. `< 0` without signs)."""
    op, value = cond.op, cond.value
    if op == q.EXISTS:
        return "anything"
    if op == q.CONTAINS:
        return f"<{value}>"
    if cond.kind == q.STRING:
        return value
    if cond.kind == q.NUMBER:
        step = {q.EQ: 0, q.LEQ: 0, q.GEQ: 0, q.GT: 1, q.LT: -1}[op]
        # Exact arithmetic: the default 28-digit context would round a long number to a neighbour.
        with decimal.localcontext(prec=200):
            found = value + step
            if found < 0:
                found = value / 2 if value > 0 else None
        # Subscriptions read a value's leading number, so a denomination may follow it.
        return None if found is None else f"{found:f}aevmos"
    delta = {q.EQ: 0, q.LEQ: 0, q.GEQ: 0, q.GT: 1, q.LT: -1}[op]
    if cond.kind == q.DATE:
        return (value + datetime.timedelta(days=delta)).strftime("%Y-%m-%d")
    moment = (value + datetime.timedelta(seconds=delta)).astimezone(datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{moment.microsecond:06}Z"


@pytest.mark.slow
@FAST
@given(queries(), st.data())
def test_a_query_matches_the_events_it_describes_and_not_fewer(generated, data):
    parsed = q.parse(generated[0])
    witnesses = [(c.tag, _witness(c)) for c in parsed.conditions]
    if any(w is None for _, w in witnesses):
        return
    events = {}
    for tag, witness in witnesses:
        events.setdefault(tag, []).append(witness)
    # Unrelated keys and values beside them change nothing.
    events.setdefault("tm.event", []).append("Tx")
    assert parsed.matches(events)
    assert q.parse(str(parsed)).matches(events)
    missing = data.draw(st.sampled_from(sorted({tag for tag, _ in witnesses})))
    assert not parsed.matches({k: v for k, v in events.items() if k != missing})
    assert not parsed.matches({})


_OFFSET = re.compile(r"^offset (\d+): ")


def _fails_cleanly(text):
    try:
        q.parse(text)
    except q.QueryError as e:
        match = _OFFSET.match(str(e))
        assert match, str(e)
        assert 0 <= int(match.group(1)) <= len(text)


@pytest.mark.slow
@FAST
@given(st.text(max_size=60))
def test_any_text_parses_or_fails_with_a_position(text):
    _fails_cleanly(text)


@pytest.mark.slow
@FAST
@given(queries(), st.data())
def test_damaged_queries_parse_or_fail_with_a_position(generated, data):
    text = generated[0]
    at = data.draw(st.integers(0, len(text)))
    damage = data.draw(st.sampled_from(["delete", "insert", "truncate"]))
    if damage == "delete":
        text = text[:at] + text[at + 1:]
    elif damage == "insert":
        text = text[:at] + data.draw(st.sampled_from(list("'\"=<>()!-.5 aZ\u00a0\x00"))) + text[at:]
    else:
        text = text[:at]
    _fails_cleanly(text)


# CometBFT v0.38's own texts (reference: cometbft-cosmos-surface.md §3.4, a port of scanner.go/parser.go).
@pytest.mark.parametrize("text, error", [
    ("", "offset 0: EOF"),
    ("tx.height=", "offset 10: EOF"),
    ("a.b=5 AND", "offset 9: EOF"),
    ("a.b='x", "offset 4: EOF"),
    ("tx.height 5", "offset 10: got number, wanted <= operator, >= operator, < operator, > operator, = operator, "
                    "CONTAINS operator or EXISTS operator"),
    ("tx.height > 'abc'", "offset 12: got string, wanted number, timestamp or datestamp"),
    ("message.sender=cosmos1abc", "offset 15: got tag, wanted number, timestamp, datestamp or string"),
    ("a.b CONTAINS 5", "offset 13: got number, wanted string"),
    ("a.b='x' OR c.d='y'", "offset 8: got tag, want AND operator"),
    ('tm.event = "Tx"', 'offset 11: invalid input " at offset 12'),
    ("-a = 1", "offset 0: invalid input - at offset 1"),
])
def test_cometbft_error_texts(text, error):
    with pytest.raises(q.QueryError) as raised:
        q.parse(text)
    assert str(raised.value) == error


def test_time_literal_errors_name_go_layouts():
    with pytest.raises(q.QueryError) as raised:
        q.parse("a.b > TIME 2013-05-03")
    assert str(raised.value).startswith('offset 6: invalid TIME value: parsing time "2013-05-03" as '
                                        '"2006-01-02T15:04:05Z07:00": cannot parse')


@pytest.mark.parametrize("text", ["tm.event='Tx' AND tx.height>=5 AND transfer.amount>100",
                                  "account.owner CONTAINS 'an'", "app.key EXISTS", "a.b = 1.5",
                                  "a.b > DATE 2013-05-03", "a.b >= TIME 2013-05-03T14:45:00Z", "a.b = 5."])
def test_cometbft_valid_examples(text):
    assert q.parse(text).conditions


def test_numbers_compare_as_decimals():
    parsed = q.parse("a.b >= 1.50")
    assert parsed.conditions[0].value == Decimal("1.5")
    assert parsed.matches({"a.b": ["2aevmos"]}) and not parsed.matches({"a.b": ["1.49"]})
