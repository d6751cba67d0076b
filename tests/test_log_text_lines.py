"""The node's text log lines (chaind/logs.py, consensus/block_log.py) are Twisted's classic lines, made cheaper: the
time text once a second, the block line formatted by the caller with its fields kept in the event."""

import io

from twisted.logger import Logger, LogLevel, LogPublisher, textFileLogObserver
from twisted.python.failure import Failure

from chaind import logs
from chaind.consensus import block_log


class _Meta:
    num_txs, gas_used = 3, 63000


class _Block:
    height, meta = 17, _Meta()


def _events():
    caught = []
    publisher = LogPublisher(caught.append)
    block_log.log = Logger(namespace="chaind.consensus", observer=publisher)
    try:
        block_log.committed(_Block(), (0.0012, 0.00034))
    finally:
        block_log.log = Logger(namespace="chaind.consensus")
    return caught


def test_block_line_keeps_its_text_and_fields():
    (event,) = _events()
    assert event["log_level"] == LogLevel.info
    assert (event["height"], event["txs"], event["gas"]) == (17, 3, 63000)
    out = io.StringIO()
    logs.text_file_observer(out)(event)
    assert out.getvalue().endswith("[chaind.consensus#info] committed block height=17 txs=3 gas=63000 "
                                   "took=1.5ms (execute 1.2ms, commit 0.3ms)\n")


def test_text_lines_are_twisteds_across_seconds():
    (block_event,) = _events()
    events = []
    # Within a second, across seconds, and one without a time: each line as Twisted's observer writes it.
    for when in (1_700_000_000.1, 1_700_000_000.9, 1_700_000_001.0, 1_700_000_059.99, 1_700_003_600.5, None):
        event = dict(block_event, log_time=when)
        if when is None:
            del event["log_time"]
        events.append(event)
    events.append({"log_format": "plain {x}", "x": 1, "log_level": LogLevel.warn, "log_namespace": "n",
                   "log_time": 1_700_003_600.7})
    # "{line}" events, which skip Twisted's formatting: two lines in one, a system of their own, no level or
    # namespace, an empty text (no line at all), a text that is not a str, a failure's.
    line = {"log_format": "{line}", "log_time": 1_700_003_601.2}
    events += [dict(line, line="first\nsecond", log_namespace="chaind.banner", log_level=LogLevel.info),
               dict(line, line="sys", log_system="-"), dict(line, line="bare"), dict(line, line=""),
               dict(line, line=17, log_level=LogLevel.info)]
    try:
        raise ValueError("boom")
    except ValueError:
        events.append(dict(line, line="failed", log_failure=Failure(), log_level=LogLevel.error))
    ours, twisteds = io.StringIO(), io.StringIO()
    observer, reference = logs.text_file_observer(ours), textFileLogObserver(twisteds)
    for event in events:
        observer(event)
        reference(event)
    assert ours.getvalue() == twisteds.getvalue()
    assert "first\n\tsecond" in ours.getvalue() and "Traceback" in ours.getvalue()


def test_block_line_skips_twisteds_formatting(monkeypatch):
    (event,) = _events()

    def refused(*args, **kwargs):
        raise AssertionError("a {line} event went through Twisted's formatting")

    out = io.StringIO()
    observer = logs.text_file_observer(out)
    monkeypatch.setattr(logs, "formatEventAsClassicLogText", refused)
    observer(event)
    assert out.getvalue().endswith("took=1.5ms (execute 1.2ms, commit 0.3ms)\n")
