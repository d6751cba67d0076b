"""The call pool under a batch of endless loops: other requests' calls, on every face that uses it, wait behind
at most one of them; the waiting calls are bounded, in all and per request, with the busy errors of each face."""

import re
import time

import pytest
import pytest_twisted
from twisted.internet import defer

from contracts import SPIN as LOOP
from evm_client import OTHER, post, rpc
from helpers import comet, in_thread, rest, rest_sync, until_height

EMPTY = "0x" + "33" * 20
# A loop that outlasts any deadline here: the fast interpreter spends a 25M gas cap in well under a second, so the
# nodes of these tests have none ([json-rpc] gas-cap = 0) and the calls ask for 10^12 gas.
LOOP_CALL = [{"to": EMPTY, "data": "0x", "gas": hex(10**12)}, "latest", {EMPTY: {"code": "0x" + LOOP.hex()}}]
PROMPT = 3.0      # seconds: an answer not made to wait behind a batch of 1 s loops


def batch_of_loops(count, first_id=0):
    return [{"jsonrpc": "2.0", "id": first_id + i, "method": "eth_call", "params": LOOP_CALL} for i in range(count)]


def timed(fn, *args, **kwargs):
    start = time.monotonic()
    return fn(*args, **kwargs), time.monotonic() - start


def timed_rpc(node, method, *params):
    return in_thread(timed, post, node, {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)})


def started(node_factory, **json_rpc):
    """A node past its first block."""
    node = node_factory(json_rpc={"gas_cap": 0, **json_rpc})
    yield until_height(node, 1)
    return node


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_a_batch_of_endless_loops_delays_no_other_request(node_factory):
    node = yield from started(node_factory, evm_timeout=1.0)
    # Ten loops held both call threads for 5 s: every other call on every face waited.
    attack = in_thread(timed, post, node, batch_of_loops(10))
    yield in_thread(time.sleep, 0.5)
    # PROMPT is far below the 10 s the batch holds its thread: the loops share the GIL with every answer, so on a
    # loaded box an answer takes longer than on a quiet one (1.76 s seen at load 6-10), never the batch's time.
    (_, reply), took = yield timed_rpc(node, "eth_call", {"to": OTHER, "data": "0x"}, "latest")
    assert reply["result"] == "0x" and took < PROMPT
    (_, reply), took = yield timed_rpc(node, "eth_estimateGas", {"to": OTHER}, "latest")
    assert reply["result"] == "0x5208" and took < PROMPT
    (_, reply), took = yield timed_rpc(node, "eth_getLogs", {"fromBlock": "0x1", "toBlock": "latest"})
    assert reply["result"] == [] and took < PROMPT
    (status, _, block), took = yield in_thread(timed, rest_sync, node, "/cosmos/base/tendermint/v1beta1/blocks/latest")
    assert status == 200 and block["block"]["header"]["height"] and took < PROMPT
    found, took = yield in_thread(timed, comet, node, "tx_search", query="tx.height>0")
    assert found["result"]["total_count"] == "0" and took < PROMPT
    (_, reply), took = yield timed_rpc(node, "eth_blockNumber")
    assert int(reply["result"], 16) >= 1 and took < 0.5
    (_, replies), took = yield attack
    # Each loop ran its full evm-timeout from when it started, one after another: none was cut short by
    # the time it waited.
    assert [r["error"] for r in replies] == [{"code": -32000, "message": "execution aborted (timeout = 1s)"}] * 10
    assert took >= 10 * 1.0


@pytest_twisted.inlineCallbacks
def test_calls_of_one_request_beyond_its_bound_are_refused(node_factory):
    node = yield from started(node_factory, evm_timeout=0.3, max_calls_per_request=3)
    _, replies = yield in_thread(post, node, batch_of_loops(5) + [
        {"jsonrpc": "2.0", "id": 5, "method": "eth_blockNumber", "params": []}])
    by_id = {r["id"]: r for r in replies}
    for i in range(3):
        assert by_id[i]["error"] == {"code": -32000, "message": "execution aborted (timeout = 0.3s)"}
    for i in (3, 4):
        assert by_id[i]["error"] == {"code": -32005, "message": "limit exceeded: this request holds 3 calls, at "
                                     "most 3 ([json-rpc] max-calls-per-request); send the rest later"}
    assert by_id[5]["result"].startswith("0x")      # a method that needs no call thread is answered


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_calls_beyond_the_queue_bound_are_refused_on_every_face(node_factory):
    node = yield from started(node_factory, evm_timeout=3.0, max_queued_calls=4)
    # Two batches hold both threads, four of their calls wait until the first loop ends, 3 s later.
    attacks = [in_thread(post, node, batch_of_loops(3)) for _ in range(2)]
    yield in_thread(time.sleep, 0.4)
    full = re.compile(r"^limit exceeded: \d+ calls wait for a call thread, at most 4 "
                      r"\(\[json-rpc\] max-queued-calls\); retry later$")
    _, reply = yield rpc(node, "eth_call", {"to": OTHER, "data": "0x"}, "latest")
    assert reply["error"]["code"] == -32005 and full.match(reply["error"]["message"])
    _, reply = yield rpc(node, "eth_getLogs", {"fromBlock": "0x1"})
    assert reply["error"]["code"] == -32005
    status, _, body = yield rest(node, "/cosmos/base/tendermint/v1beta1/blocks/latest")
    # grpc-gateway's answer to RESOURCE_EXHAUSTED.
    assert status == 429 and body["code"] == 8 and full.match(body["message"])
    found = yield in_thread(comet, node, "tx_search", query="tx.height>0")
    assert found["error"]["code"] == -32603 and full.match(found["error"]["data"])
    _, reply = yield rpc(node, "eth_blockNumber")
    assert reply["result"].startswith("0x")
    results = yield defer.gatherResults(attacks)
    assert all(r["error"]["message"] == "execution aborted (timeout = 3s)" for _, replies in results for r in replies)
    # Once they are done, calls run again.
    _, reply = yield rpc(node, "eth_call", {"to": OTHER, "data": "0x"}, "latest")
    assert reply["result"] == "0x"
