"""debug_trace* against a real node: replay semantics, tracers, streaming, limits and bad input."""

import http.client
import json
import threading
import time

import orjson
import pytest
import pytest_twisted
from websockets.sync.client import connect

from contracts import INIT, SPIN, STORED, init_code
from evm_client import DEV0, OTHER, post, rpc, send, w3
from helpers import in_thread, until, ws_url

DEBUG = {"api": "eth,net,web3,txpool,debug"}

SSTORE_FILTER = """{
    retVal: [],
    step: function(log, db) {
        if (log.op.toNumber() == 0x55)
            this.retVal.push(log.getPC() + ": SSTORE " + log.stack.peek(0).toString(16) + " <- " +
                             log.stack.peek(1).toString(16));
    },
    fault: function(log, db) { this.retVal.push("FAULT: " + JSON.stringify(log)); },
    result: function(ctx, db) { return this.retVal; }
}"""


def word(n):
    return "0x" + n.to_bytes(32, "big").hex()


def deploy_and_store(web3, value):
    contract = send(web3, {"data": "0x" + INIT.hex(), "gas": 200000, "nonce": 0}).contractAddress
    stored = send(web3, {"to": contract, "data": word(value), "gas": 100000, "nonce": 1})
    return contract, stored


@pytest_twisted.inlineCallbacks
def test_struct_logs_match_the_receipt(node_factory):
    node = node_factory(json_rpc=DEBUG)
    web3 = w3(node)
    contract, stored = yield in_thread(deploy_and_store, web3, 9)
    _, reply = yield rpc(node, "debug_traceTransaction", stored.transactionHash.to_0x_hex())
    trace = reply["result"]
    assert trace["gas"] == stored.gasUsed and trace["failed"] is False and trace["returnValue"] == ""
    logs = trace["structLogs"]
    assert logs[0]["op"] == "CALLDATASIZE" and logs[0]["pc"] == 0 and logs[0]["depth"] == 1
    assert logs[0]["gas"] == stored.gasUsed and False or logs[0]["gas"] == 100000 - 21000 - 16 * 1 - 4 * 31
    sstore = next(entry for entry in logs if entry["op"] == "SSTORE")
    assert sstore["gasCost"] == 22100
    assert sstore["stack"][-1] == "0" * 64 and sstore["stack"][-2] == "0" * 63 + "9"
    assert sstore["storage"] == {"0" * 64: "0" * 63 + "9"}
    assert all(entry["error"] is None for entry in logs)
    _, reply = yield rpc(node, "debug_traceTransaction", stored.transactionHash.to_0x_hex(),
                         {"disableStack": True, "disableStorage": True, "limit": 3})
    assert len(reply["result"]["structLogs"]) == 3 and "stack" not in reply["result"]["structLogs"][0]
    # A failed (reverted) tx replays to the same failure.
    failed = yield in_thread(send, web3, {"to": contract, "data": word(0), "gas": 100000, "nonce": 2})
    _, reply = yield rpc(node, "debug_traceTransaction", failed.transactionHash.to_0x_hex())
    assert reply["result"]["failed"] is True and reply["result"]["gas"] == failed.gasUsed
    assert reply["result"]["returnValue"] == (42).to_bytes(32, "big").hex()


@pytest_twisted.inlineCallbacks
def test_tracers_blocks_and_calls(node_factory):
    node = node_factory(json_rpc=DEBUG)
    web3 = w3(node)
    contract, stored = yield in_thread(deploy_and_store, web3, 7)
    tx_hash = stored.transactionHash.to_0x_hex()
    _, reply = yield rpc(node, "debug_traceTransaction", tx_hash, {"tracer": SSTORE_FILTER})
    assert reply["result"] == ["37: SSTORE 0 <- 7"]
    _, reply = yield rpc(node, "debug_traceTransaction", tx_hash, {"tracer": "callTracer"})
    call = reply["result"]
    assert call["type"] == "CALL" and call["from"].lower() == DEV0.lower() and call["to"].lower() == contract.lower()
    assert int(call["gasUsed"], 16) == stored.gasUsed
    _, reply = yield rpc(node, "debug_traceTransaction", tx_hash, {"tracer": "callTracer",
                                                                   "tracerConfig": '{"withLog": true}'})
    assert reply["result"]["logs"][0]["topics"] == ["0x" + STORED.hex()]
    _, reply = yield rpc(node, "debug_traceTransaction", tx_hash, {"tracer": "prestateTracer"})
    assert contract.lower() in {a.lower() for a in reply["result"]}
    # Blocks: by number, by hash, and a hash given to ...ByNumber.
    for method, block in (("debug_traceBlockByNumber", hex(stored.blockNumber)),
                          ("debug_traceBlockByHash", stored.blockHash.to_0x_hex()),
                          ("debug_traceBlockByNumber", stored.blockHash.to_0x_hex())):
        _, reply = yield rpc(node, method, block, {"tracer": SSTORE_FILTER})
        assert reply["result"] == [{"txHash": tx_hash, "result": ["37: SSTORE 0 <- 7"]}], method
    _, reply = yield rpc(node, "debug_traceBlockByNumber", hex(stored.blockNumber))
    assert reply["result"][0]["result"]["gas"] == stored.gasUsed
    # A call on the latest state, with a state override.
    _, reply = yield rpc(node, "debug_traceCall", {"from": DEV0, "to": contract, "data": word(5)}, "latest",
                         {"tracer": SSTORE_FILTER})
    assert reply["result"] == ["37: SSTORE 0 <- 5"]
    _, reply = yield rpc(node, "debug_traceCall", {"to": contract, "data": "0x"}, "latest",
                         {"stateOverrides": {contract: {"stateDiff": {word(0): word(3)}}}})
    assert reply["result"]["returnValue"] == (3).to_bytes(32, "big").hex()
    # In a batch and over WebSocket the result is held whole; it is the same.
    _, batch = yield in_thread(post, node, [{"jsonrpc": "2.0", "id": 1, "method": "debug_traceTransaction",
                                             "params": [tx_hash, {"tracer": SSTORE_FILTER}]}])
    assert batch[0]["result"] == ["37: SSTORE 0 <- 7"]

    def over_ws():
        with connect(ws_url(node)) as ws:
            ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "debug_traceTransaction",
                                "params": [tx_hash, {"tracer": "callTracer"}]}))
            return json.loads(ws.recv(timeout=10))

    assert (yield in_thread(over_ws))["result"] == call


@pytest_twisted.inlineCallbacks
def test_bad_requests_and_tracers(node_factory):
    node = node_factory(json_rpc=DEBUG)
    web3 = w3(node)
    _, stored = yield in_thread(deploy_and_store, web3, 1)
    tx_hash = stored.transactionHash.to_0x_hex()
    cases = [
        (["0x" + "00" * 32], "transaction not found"),
        ([tx_hash, {"tracer": "{ result: function() { return 1 "}], None),
        ([tx_hash, {"tracer": "{ step: function() {} }"}], "trace object must expose a function result()"),
        ([tx_hash, {"tracer": "{ result: function() {}, fault: function() {}, step: function() { while (true) {} }}",
                    "timeout": "200ms"}], "timeout"),
        ([tx_hash, {"tracer": "callTracer", "tracerConfig": {"onlyTopCall": "x"}}],
         "json: cannot unmarshal string into Go struct field callTracerConfig.onlyTopCall of type bool"),
        ([tx_hash, {"timeout": "soon"}], "time: invalid duration"),
    ]
    for params, message in cases:
        _, reply = yield rpc(node, "debug_traceTransaction", *params)
        assert reply["error"]["code"] == -32000, params
        if message:
            assert message in reply["error"]["message"], (params, reply)
    _, reply = yield rpc(node, "debug_traceBlockByNumber", "0x0")
    assert reply["error"]["message"] == "genesis is not traceable"
    _, reply = yield rpc(node, "debug_traceBlockByNumber", "0x999")
    assert reply["error"]["message"] == "block #2457 not found"
    # The node is healthy after all of it.
    _, reply = yield rpc(node, "debug_traceTransaction", tx_hash, {"tracer": "noopTracer"})
    assert reply["result"] == {}
    _, reply = yield rpc(node, "debug_traceTransaction", tx_hash, {"tracer": "4byteTracer"})
    assert reply["result"] == {"0x00000000-28": 1}


@pytest_twisted.inlineCallbacks
def test_pruned_state_is_refused_at_once(node_factory):
    node = node_factory(json_rpc=DEBUG, storage={"pruning": 2, "prune_interval": 1})
    web3 = w3(node)
    first = yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": 0})
    for nonce in range(1, 5):
        yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": nonce})
    _, reply = yield rpc(node, "debug_traceTransaction", first.transactionHash.to_0x_hex())
    message = reply["error"]["message"]
    assert f"state at height {first.blockNumber - 1} is pruned" in message and "keeps the last 2 heights" in message


def big_trace_tx(web3, gas=1_000_000):
    """A committed tx that spins until out of gas: about gas / 4 struct-log entries."""
    spinner = send(web3, {"data": "0x" + init_code(SPIN).hex(), "gas": 100000, "nonce": 0}).contractAddress
    return send(web3, {"to": spinner, "gas": gas, "nonce": 1})


def raw_trace(node, tx_hash, config, read_bytes=None):
    """POST a trace and read the raw HTTP response (all of it, or only `read_bytes` then hang up)."""
    conn = http.client.HTTPConnection("127.0.0.1", node.port_of("json-rpc"), timeout=60)
    conn.request("POST", "/", orjson.dumps({"jsonrpc": "2.0", "id": 7, "method": "debug_traceTransaction",
                                            "params": [tx_hash, config]}), {"content-type": "application/json"})
    response = conn.getresponse()
    if read_bytes is not None:
        response.read(read_bytes)
        conn.sock.close()
        return response.getheader("transfer-encoding"), None
    return response.getheader("transfer-encoding"), response.read()


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_big_trace_streams_and_a_hangup_cancels_it(node_factory):
    node = node_factory(json_rpc={**DEBUG, "stream_buffer_bytes": 4096})
    web3 = w3(node)
    spin = yield in_thread(big_trace_tx, web3, 4_000_000)   # a million entries: seconds to trace whole
    assert spin.status == 0
    tx_hash = spin.transactionHash.to_0x_hex()
    # The whole 4M-gas tx still runs under a limited struct log: geth's default 5 s timeout is too short for
    # it on a loaded box.
    config = {"disableStack": True, "limit": 2000, "timeout": "60s"}
    coding, body = yield in_thread(raw_trace, node, tx_hash, config)
    assert coding == "chunked"
    reply = orjson.loads(body)
    assert reply["id"] == 7 and len(reply["result"]["structLogs"]) == 2000
    whole = yield in_thread(post, node, [{"jsonrpc": "2.0", "id": 7, "method": "debug_traceTransaction",
                                          "params": [tx_hash, config]}])
    assert whole[1][0]["result"] == reply["result"]
    # A client that hangs up midway stops the trace: the pool is free again long before it would end.
    started = time.monotonic()
    yield in_thread(raw_trace, node, tx_hash, {}, 100_000)
    debug = node.ws_factory.methods["debug_traceTransaction"].__self__
    yield until(lambda: debug.in_flight == 0, "the hung-up trace to stop", timeout=5)
    assert debug.in_flight == 0 and time.monotonic() - started < 2
    _, reply = yield rpc(node, "eth_blockNumber")
    assert int(reply["result"], 16) >= spin.blockNumber


@pytest_twisted.inlineCallbacks
def test_trace_limits(node_factory):
    node = node_factory(json_rpc=DEBUG, tracing={"concurrency": 1, "max_queued": 0, "max_result_bytes": 100_000,
                                                 "max_buffered_bytes": 50_000})
    web3 = w3(node)
    spin = yield in_thread(big_trace_tx, web3)
    tx_hash = spin.transactionHash.to_0x_hex()
    coding, body = yield in_thread(raw_trace, node, tx_hash, {"limit": 100})
    assert orjson.loads(body)["result"]["structLogs"][99]["op"]
    # Too large to stream: the response is cut (it started streaming), and the node goes on.
    try:
        yield in_thread(raw_trace, node, tx_hash, {})
    except http.client.IncompleteRead:
        pass
    _, reply = yield in_thread(post, node, [{"jsonrpc": "2.0", "id": 1, "method": "debug_traceTransaction",
                                             "params": [tx_hash, {}]}])
    assert "result larger than 50000 bytes" in reply[0]["error"]["message"]
    _, reply = yield rpc(node, "eth_chainId")
    assert reply["result"] == hex(9000)


@pytest_twisted.inlineCallbacks
def test_node_stops_while_a_trace_waits_on_a_client_that_does_not_read(node_factory):
    import socket

    node = node_factory(json_rpc={**DEBUG, "stream_buffer_bytes": 4096})
    web3 = w3(node)
    spin = yield in_thread(big_trace_tx, web3, 4_000_000)
    body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "debug_traceTransaction",
                         "params": [spin.transactionHash.to_0x_hex(), {}]})
    client = socket.create_connection(("127.0.0.1", node.port_of("json-rpc")))
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    client.sendall(b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                   b"Content-Length: %d\r\n\r\n%s"
                   % (len(body), body))
    debug = node.ws_factory.methods["debug_traceTransaction"].__self__
    yield until(lambda: debug.in_flight, "the trace to start")
    yield in_thread(time.sleep, 0.5)     # long enough to fill the socket buffers and block the trace
    started = time.monotonic()
    yield node.stopService()
    assert time.monotonic() - started < 3
    # The node does not wait for trace threads; this one, aborted, ends on its own.
    for _ in range(100):
        if not any(thread.name == "chaind-trace" for thread in threading.enumerate()):
            break
        yield in_thread(time.sleep, 0.02)
    assert not any(thread.name == "chaind-trace" for thread in threading.enumerate())
    client.close()


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_time_waiting_on_a_slow_reader_is_not_tracing_time(node_factory):
    """The timeout bounds the tracing (as geth's, which holds the trace and sends it after): a streamed
    trace whose client stops reading for longer than the timeout still completes."""
    import socket

    node = node_factory(json_rpc={**DEBUG, "stream_buffer_bytes": 4096})
    web3 = w3(node)
    spin = yield in_thread(big_trace_tx, web3, 300_000)
    body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "debug_traceTransaction",
                         "params": [spin.transactionHash.to_0x_hex(), {"timeout": "2s"}]})

    def read_with_a_pause():
        client = socket.socket()
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        client.connect(("127.0.0.1", node.port_of("json-rpc")))
        client.sendall(b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                       b"\r\n%s" % (len(body), body))
        raw = client.recv(4096)
        time.sleep(3)                 # the trace waits on us, longer than its timeout
        while not raw.endswith(b"\r\n0\r\n\r\n"):
            data = client.recv(1 << 20)
            assert data, "the response broke off"
            raw += data
        client.close()
        return raw

    raw = yield in_thread(read_with_a_pause)
    head, _, chunked = raw.partition(b"\r\n\r\n")
    assert b"Transfer-Encoding: chunked" in head and chunked.endswith(b"0\r\n\r\n")
    payload, rest = b"", chunked
    while True:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line, 16)
        if not size:
            break
        payload, rest = payload + rest[:size], rest[size + 2:]
    trace = orjson.loads(payload)["result"]
    assert trace["failed"] is True and trace["gas"] == spin.gasUsed
    assert trace["structLogs"][-1]["error"] == "out of gas"
    # The tracing itself is still bounded (in a batch: held whole, so the timeout is a JSON-RPC error).
    _, reply = yield in_thread(post, node, [{"jsonrpc": "2.0", "id": 1, "method": "debug_traceTransaction",
                                             "params": [spin.transactionHash.to_0x_hex(), {"timeout": "1ms"}]}])
    assert reply[0]["error"]["message"] == "execution timeout: tracing took longer than 0.001s"


@pytest_twisted.inlineCallbacks
def test_mux_tracer_runs_several_native_tracers(node):
    web3 = w3(node)
    receipt = yield in_thread(send, web3, {"to": OTHER, "value": 9, "nonce": 0})
    tx_hash = "0x" + bytes(receipt.transactionHash).hex()
    config = {"tracer": "muxTracer", "tracerConfig": {"callTracer": {}, "4byteTracer": {}, "prestateTracer": {}}}
    _, reply = yield rpc(node, "debug_traceTransaction", tx_hash, config)
    result = reply["result"]
    assert set(result) == {"callTracer", "4byteTracer", "prestateTracer"}
    _, alone = yield rpc(node, "debug_traceTransaction", tx_hash, {"tracer": "callTracer"})
    assert result["callTracer"] == alone["result"]
    _, reply = yield rpc(node, "debug_traceTransaction", tx_hash,
                         {"tracer": "muxTracer", "tracerConfig": {"nopeTracer": {}}})
    assert "nopeTracer" in reply["error"]["message"]


@pytest_twisted.inlineCallbacks
def test_trace_block_rlp_and_intermediate_roots(node):
    web3 = w3(node)
    node.producer.set_automine(False)
    for nonce in range(2):
        yield in_thread(web3.eth.send_raw_transaction, __import__("evm_client").sign(
            {"to": OTHER, "value": 1 + nonce, "nonce": nonce}).raw_transaction)
    yield node.producer.mine(1)
    height = node.app.height
    block = yield in_thread(web3.eth.get_block, height)
    assert len(block.transactions) == 2
    _, raw = yield rpc(node, "debug_getRawBlock", hex(height))
    _, traced = yield rpc(node, "debug_traceBlock", raw["result"], {"tracer": "callTracer"})
    _, by_number = yield rpc(node, "debug_traceBlockByNumber", hex(height), {"tracer": "callTracer"})
    assert traced["result"] == by_number["result"] and len(traced["result"]) == 2
    _, reply = yield rpc(node, "debug_traceBlock", "0xc0")
    assert reply["error"]["code"] == -32000
    _, roots = yield rpc(node, "debug_intermediateRoots", "0x" + bytes(block.hash).hex())
    assert len(roots["result"]) == 2 and roots["result"][0] != roots["result"][1]
    # The root after the last tx, before the end blockers (which change no EVM state here): the block's.
    assert roots["result"][-1] == "0x" + bytes(block.stateRoot).hex()


@pytest_twisted.inlineCallbacks
def test_flat_call_tracer(node):
    from contracts import FORWARDER_INIT, RUNTIME

    web3 = w3(node)
    forwarder = (yield in_thread(send, web3, {"data": "0x" + FORWARDER_INIT.hex(), "gas": 300000,
                                              "nonce": 0})).contractAddress
    store = (yield in_thread(send, web3, {"data": "0x" + INIT.hex(), "gas": 300000, "nonce": 1})).contractAddress
    # Through the forwarder to the store (stores 7), and to the identity precompile (0x4).
    data = "0x" + "00" * 32 + "00" * 12 + store[2:].lower() + "00" * 31 + "07"
    receipt = yield in_thread(send, web3, {"to": forwarder, "data": data, "gas": 300000, "nonce": 2})
    tx_hash = "0x" + bytes(receipt.transactionHash).hex()
    _, reply = yield rpc(node, "debug_traceTransaction", tx_hash, {"tracer": "flatCallTracer"})
    top, child = reply["result"]
    assert top["type"] == "call" and top["action"]["callType"] == "call" and top["traceAddress"] == []
    assert top["subtraces"] == 1 and top["transactionHash"] == tx_hash
    assert top["blockNumber"] == receipt.blockNumber and top["transactionPosition"] == 0
    assert top["blockHash"] == "0x" + bytes(receipt.blockHash).hex()
    assert child["traceAddress"] == [0] and child["action"]["to"] == store.lower()
    assert child["action"]["value"] == "0x0" and "gasUsed" in child["result"]
    to_identity = "0x" + "00" * 32 + "00" * 31 + "04" + "ab" * 4
    _, reply = yield rpc(node, "debug_traceCall", {"from": DEV0, "to": forwarder, "data": to_identity}, "latest",
                         {"tracer": "flatCallTracer"})
    [only] = reply["result"]
    assert "error" not in only and only["subtraces"] == 0
    # Not a tx of a block: no block or tx fields, as geth's traceCall.
    assert only["transactionHash"] is None and only["blockHash"] is None and only["blockNumber"] == 0
    _, reply = yield rpc(node, "debug_traceCall", {"from": DEV0, "to": forwarder, "data": to_identity}, "latest",
                         {"tracer": "flatCallTracer", "tracerConfig": {"includePrecompiles": True}})
    assert len(reply["result"]) == 2 and reply["result"][1]["action"]["to"] == "0x" + "00" * 19 + "04"
    # A create, and a revert in Parity's words.
    _, reply = yield rpc(node, "debug_traceCall", {"from": DEV0, "data": "0x" + INIT.hex()}, "latest",
                         {"tracer": "flatCallTracer"})
    [created] = reply["result"]
    assert created["type"] == "create" and created["result"]["code"] == "0x" + RUNTIME.hex()
    reverting = "0x" + "00" * 31 + "01" + "00" * 12 + store[2:].lower() + "00" * 31 + "07"
    _, reply = yield rpc(node, "debug_traceCall", {"from": DEV0, "to": forwarder, "data": reverting}, "latest",
                         {"tracer": "flatCallTracer", "tracerConfig": {"convertParityErrors": True}})
    assert reply["result"][0]["error"] == "Reverted"


@pytest_twisted.inlineCallbacks
def test_storage_range_at(node):
    from eth_utils import keccak as keccak256

    web3 = w3(node)
    contract = (yield in_thread(send, web3, {"data": "0x" + INIT.hex(), "gas": 200000, "nonce": 0})).contractAddress
    first = yield in_thread(send, web3, {"to": contract, "data": "0x" + "00" * 31 + "05", "gas": 100000, "nonce": 1})
    second = yield in_thread(send, web3, {"to": contract, "data": "0x" + "00" * 31 + "06", "gas": 100000, "nonce": 2})
    slot0 = "0x" + keccak256(bytes(32)).hex()
    # Before the second store ran: the first's value.
    block = "0x" + bytes(second.blockHash).hex()
    _, reply = yield rpc(node, "debug_storageRangeAt", block, 0, contract, "0x", 10)
    assert reply["result"] == {"storage": {slot0: {"key": None, "value": "0x" + "00" * 31 + "05"}}, "nextKey": None}
    _, reply = yield rpc(node, "debug_storageRangeAt", "0x" + bytes(first.blockHash).hex(), 0, contract, "0x", 10)
    assert reply["result"]["storage"] == {}
    _, reply = yield rpc(node, "debug_storageRangeAt", block, 0, contract, "0x", 0)
    assert reply["result"] == {"storage": {}, "nextKey": slot0}
    _, reply = yield rpc(node, "debug_storageRangeAt", block, 5, contract, "0x", 10)
    assert reply["error"]["code"] == -32000
    _, reply = yield rpc(node, "debug_storageRangeAt", block, -1, contract, "0x", 10)
    assert reply["error"]["code"] == -32602
