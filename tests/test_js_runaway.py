"""JavaScript tracers that outrun their deadline inside a native built-in, on a real node: the request is answered
at the deadline, the node keeps serving, the thread is left to finish at idle priority and the node never waits
for it; while max-runaway of them still run, JavaScript tracers are refused."""

import os
import threading
import time

import pytest
import pytest_twisted

from evm_client import OTHER, post, rpc
from helpers import in_thread

# About five seconds of Array.prototype.indexOf in C on a quiet 2-core box (120M indexes took 1.4 s there, less than
# the deadline and the watch's second: longer under load), where the engine checks no deadline.
SEARCH = "Array.prototype.indexOf.call({length: 450000000}, 1)"
IN_RESULT = "{result: function() { %s; return 1; }, fault: function() {}}" % SEARCH
IN_LITERAL = "{found: %s, result: function() { return 1; }, fault: function() {}}" % SEARCH
GIVEN_UP = "execution timeout: the tracer was still inside a native built-in 1 s past its deadline"


def trace_call(node, tracer):
    start = time.monotonic()
    _, reply = post(node, {"jsonrpc": "2.0", "id": 1, "method": "debug_traceCall",
                           "params": [{"to": OTHER}, "latest", {"tracer": tracer, "timeout": "0.5s"}]})
    return reply, time.monotonic() - start


def runaway_threads():
    return [t for t in threading.enumerate() if t.name == "chaind-trace"]


@pytest_twisted.inlineCallbacks
def wait_until(condition, seconds):
    for _ in range(int(seconds / 0.05)):
        if condition():
            return True
        yield in_thread(time.sleep, 0.05)
    return condition()


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_runaway_js_tracers_are_given_up_and_never_hold_the_node(node_factory):
    node = node_factory(tracing={"max_runaway": 2})
    assert (yield wait_until(lambda: node.app.height >= 1, 10))
    traces = [in_thread(trace_call, node, IN_RESULT) for _ in range(2)]
    yield in_thread(time.sleep, 0.3)
    _, reply = yield rpc(node, "eth_blockNumber")
    assert reply["result"].startswith("0x")
    for reply, took in (yield traces[0]), (yield traces[1]):
        assert reply.get("error") == {"code": -32000, "message": GIVEN_UP} and took < 3.0, (reply, took)
    assert node.traces.runaway == 2
    for thread in runaway_threads():
        assert os.sched_getscheduler(thread.native_id) == os.SCHED_IDLE
    # Two still run: JavaScript tracers wait for them to end; the native tracers do not.
    reply, _ = yield in_thread(trace_call, node, IN_RESULT)
    assert reply["error"]["message"].startswith("2 JavaScript tracers ran past their deadline")
    reply, _ = yield in_thread(trace_call, node, "callTracer")
    assert reply["result"]["to"] == OTHER
    assert (yield wait_until(lambda: node.traces.runaway == 0, 90))

    # The tracer's own literal runs a search: made on a trace thread under the watch, never on the reactor.
    pending = in_thread(trace_call, node, IN_LITERAL)
    yield in_thread(time.sleep, 0.3)
    start = time.monotonic()
    _, reply = yield rpc(node, "eth_blockNumber")
    assert reply["result"].startswith("0x") and time.monotonic() - start < 0.5
    reply, took = yield pending
    assert reply["error"]["message"] == GIVEN_UP and took < 3.0
    # The node stops at once, the given-up thread still searching.
    assert runaway_threads()
    start = time.monotonic()
    yield node.stopService()
    assert time.monotonic() - start < 2.0
