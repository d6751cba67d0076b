"""The node's text log lines (chaind/logs.py, consensus/block_log.py) are Twisted's classic lines, made cheaper: the
time text once a second, the block line formatted by the caller with its fields kept in the event."""

import io

from twisted.logger import Logger, LogLevel, LogPublisher, textFileLogObserver

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
    ours, twisteds = io.StringIO(), io.StringIO()
    observer, reference = logs.text_file_observer(ours), textFileLogObserver(twisteds)
    for event in events:
        observer(event)
        reference(event)
    assert ours.getvalue() == twisteds.getvalue()
    assert ours.getvalue().count("\n") == len(events)
