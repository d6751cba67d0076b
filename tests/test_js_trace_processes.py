"""JavaScript tracers run in trace processes the node kills past their deadline (issue 35 item 6): a tracer stuck
in a native built-in (a catastrophic regex, a search over 2**53 indexes), where QuickJS checks no deadline, is
answered geth's "execution timeout" at its deadline and [tracing] js-kill-grace while the node keeps serving; any
number of them leave JavaScript tracers served; the node never waits for one when it stops."""

import json
import os
import pathlib
import socket
import time

import pytest
import pytest_twisted

from chaind import config
from chaind.home import Home
from evm_client import DEBUG, OTHER, post, rpc, send, w3
from helpers import in_thread, until, until_height, wait_until
from node_process import NodeProcess

# Minutes of backtracking in the engine's C regex code (26 characters took 11 s on the 2-core box).
REGEX = '/(a+)+$/.test("%s" + "b")' % ("a" * 30)
SEARCH = "Array.prototype.indexOf.call({length: 2**53 - 1}, 1)"    # never ends
IN_STEP = "{step: function() { %s; }, fault: function() {}, result: function() { return 1; }}" % REGEX
IN_LITERAL = "{found: %s, fault: function() {}, result: function() { return 1; }}" % SEARCH
IN_RESULT = "{fault: function() {}, result: function() { return %s; }}" % SEARCH
COUNT_OPS = "{n: 0, step: function() { this.n++; }, fault: function() {}, result: function() { return this.n; }}"
TIMEOUT = "execution timeout: tracing took longer than 0.5s"
GRACE = 0.5
SLACK = 2.0         # a loaded 2-core box: the kill, the reply and the client's thread


def trace(node, method, target, tracer, timeout="0.5s"):
    config = {"tracer": tracer, "timeout": timeout}
    if method == "debug_traceCall":
        # The callee gets code (JUMPDEST, STOP): a tracer's step runs twice.
        params = [target, "latest", {**config, "stateOverrides": {OTHER: {"code": "0x5b00"}}}]
    else:
        params = [target, config]
    start = time.monotonic()
    _, reply = post(node, {"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    return reply, time.monotonic() - start


def alive(pid):
    return os.path.exists(f"/proc/{pid}")


def warm(node):
    """Until a trace process is ready: the first ones wait for the server they fork from to start (seconds)."""
    return until(lambda: node.traces.processes.ready() >= 1, "a trace process ready", timeout=60)


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_a_tracer_stuck_in_a_native_built_in_is_killed_at_its_deadline(node_factory):
    node = node_factory(json_rpc=DEBUG, tracing={"js_kill_grace": GRACE, "js_processes": 1})
    yield until_height(node, 1)
    yield warm(node)
    processes = node.traces.processes
    pending = in_thread(trace, node, "debug_traceCall", {"to": OTHER}, IN_STEP)
    # The node answers while the tracer's process backtracks (it never holds the node's GIL).
    running = yield until(processes.pids, "a trace process running", timeout=20)
    for _ in range(5):
        start = time.monotonic()
        _, reply = yield rpc(node, "eth_blockNumber")
        assert reply["result"].startswith("0x") and time.monotonic() - start < 0.5
        yield in_thread(time.sleep, 0.1)
    reply, took = yield pending
    assert reply.get("error") == {"code": -32000, "message": TIMEOUT}, reply
    assert took < 0.5 + GRACE + SLACK, took
    # Its process is gone; the warm ones are not.
    assert (yield until(lambda: not any(alive(pid) for pid in running - processes.pids()), "the killed process gone",
                        timeout=5))


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_runaway_tracers_in_a_row_leave_javascript_tracers_served(node_factory):
    node = node_factory(json_rpc=DEBUG, tracing={"js_kill_grace": GRACE, "js_processes": 1})
    web3 = w3(node)
    receipt = yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": 0})
    yield warm(node)
    tx_hash = receipt.transactionHash.to_0x_hex()
    # More than the two the given-up threads of old allowed, in the literal, in result() and in the step.
    for method, target, tracer in [("debug_traceTransaction", tx_hash, IN_LITERAL),
                                   ("debug_traceTransaction", tx_hash, IN_RESULT),
                                   ("debug_traceCall", {"to": OTHER}, IN_STEP)] * 2:
        reply, took = yield in_thread(trace, node, method, target, tracer)
        assert reply.get("error") == {"code": -32000, "message": TIMEOUT}, (tracer, reply)
        assert took < 0.5 + GRACE + SLACK, took
    reply, _ = yield in_thread(trace, node, "debug_traceTransaction", tx_hash, COUNT_OPS)
    assert reply.get("result") == 0, reply          # a plain transfer runs no opcode
    reply, _ = yield in_thread(trace, node, "debug_traceCall", {"to": OTHER}, COUNT_OPS)
    assert reply.get("result") == 2, reply
    reply, _ = yield in_thread(trace, node, "debug_traceCall", {"to": OTHER}, "callTracer")
    assert reply["result"]["to"] == OTHER


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_the_node_stops_at_once_and_kills_a_running_tracer(node_factory):
    node = node_factory(json_rpc=DEBUG)
    yield until_height(node, 1)
    pending = in_thread(trace, node, "debug_traceCall", {"to": OTHER}, IN_LITERAL, "60s")
    running = yield until(lambda: node.traces.processes.pids(), "a trace process running", timeout=20)
    yield in_thread(time.sleep, 0.3)
    start = time.monotonic()
    yield node.stopService()
    assert time.monotonic() - start < 2.0
    reply, _ = yield pending
    assert "error" in reply
    assert (yield until(lambda: not any(alive(pid) for pid in running), "the trace processes gone", timeout=5))


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_a_tracer_whose_client_goes_away_is_killed(node_factory):
    node = node_factory(json_rpc=DEBUG, tracing={"js_processes": 1})
    yield until_height(node, 1)
    yield warm(node)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "debug_traceCall",
                       "params": [{"to": OTHER}, "latest", {"tracer": IN_LITERAL, "timeout": "60s"}]}).encode()
    port = node.port_of("json-rpc")
    client = socket.create_connection(("127.0.0.1", port))
    client.sendall(b"POST / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                   b"Content-Length: %d\r\n\r\n%s" % (port, len(body), body))
    yield until(lambda: node.traces.in_flight == 1, "the trace running", timeout=20)
    yield in_thread(time.sleep, 0.5)
    running = node.traces.processes.pids()      # its process and the ready ones
    client.close()
    # Its process is killed well before the tracer's 60 s deadline; the ready ones stay.
    start = time.monotonic()
    yield until(lambda: node.traces.in_flight == 0, "the trace ended", timeout=10)
    ended = running - node.traces.processes.pids()
    assert len(ended) == 1 and time.monotonic() - start < 3.0
    assert (yield until(lambda: not alive(next(iter(ended))), "the trace process killed", timeout=5))


@pytest.mark.slow
def test_a_node_killed_outright_leaves_no_tracer_running(tmp_path):
    home = tmp_path / "home"
    Home(home).init("test", dev=True)
    config = tmp_path / "chaind.toml"
    config.write_text('[json-rpc]\naddress = "127.0.0.1:0"\nws-address = "127.0.0.1:0"\napi = "eth,debug"\n'
                      '[cometbft-rpc]\naddress = "127.0.0.1:0"\n[grpc]\naddress = "127.0.0.1:0"\n'
                      '[rest]\naddress = "127.0.0.1:0"\n[tracing]\njs-processes = 0\n')
    node = NodeProcess(home, config, tmp_path)
    port = node.start()["json-rpc"]
    try:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "debug_traceCall",
                           "params": [{"to": OTHER}, "latest", {"tracer": IN_LITERAL, "timeout": "60s"}]}).encode()
        client = socket.create_connection(("127.0.0.1", port))
        client.sendall(b"POST / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                       b"Content-Length: %d\r\n\r\n%s" % (port, len(body), body))
        # The node's one trace process (a child of its fork server) searching, at full speed.
        tracer = wait_until(lambda: [pid for server in children(node.process.pid) for pid in children(server)
                                     if busy(pid)], "a trace process searching", timeout=60)
    finally:
        node.kill()
    wait_until(lambda: not any(alive(pid) and not zombie(pid) for pid in tracer), "the trace process ended",
               timeout=10)


def children(pid):
    """The child processes of `pid`, whichever of its threads started them."""
    found = []
    for task in pathlib.Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def busy(pid):
    """Whether `pid` has used more than a second of CPU."""
    try:
        fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") > 1.0


def zombie(pid):
    try:
        return pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


@pytest_twisted.inlineCallbacks
def test_trace_processes_kept_ready_are_a_setting(node_factory):
    node = node_factory(json_rpc=DEBUG, tracing={"js_processes": 2})
    # Started with the node.
    assert (yield until(lambda: node.traces.processes.ready() == 2, "two trace processes ready", timeout=60))
    started = node.traces.processes.started
    reply, _ = yield in_thread(trace, node, "debug_traceCall", {"to": OTHER}, COUNT_OPS)
    assert reply.get("result") == 2, reply
    # One was taken and one started in its place.
    assert (yield until(lambda: node.traces.processes.started == started + 1 and node.traces.processes.ready() == 2,
                        "the taken process replaced", timeout=20))

    cold = node_factory("cold", json_rpc=DEBUG, tracing={"js_processes": 0})
    yield until_height(cold, 1)
    reply, _ = yield in_thread(trace, cold, "debug_traceCall", {"to": OTHER}, COUNT_OPS)
    assert reply.get("result") == 2, reply
    assert cold.traces.processes.ready() == 0 and cold.traces.processes.started == 1    # none at start


@pytest.mark.parametrize("text, message", [
    ("[tracing]\njs-kill-grace = -1\n", "[tracing] js-kill-grace must be at least 0, got -1"),
    ("[tracing]\njs-processes = -1\n", "[tracing] js-processes must be at least 0, got -1"),
    ("[tracing]\nmax-runaway = 2\n", "unknown key 'max-runaway' in [tracing]"),
])
def test_trace_process_settings_are_checked(text, message):
    with pytest.raises(config.ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        config.load(text=text)
