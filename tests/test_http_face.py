"""The HTTP/1.1 face of the EVM JSON-RPC, spoken to over raw sockets: keep-alive, pipelining, limits, bad HTTP.

Each exchange runs in a thread, as a separate client process would.
"""

import json
import threading
import time

import pytest_twisted
from web3 import Web3

from evm_client import OTHER, sign
from helpers import in_thread
from http_client import Client, call, post

DEV0 = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"


def exchange(node, data, count=1, head=False):
    """Send `data`, read `count` responses and whether the server then closed the connection."""
    client = Client(node)
    try:
        client.send(data)
        responses = [client.response(head) for _ in range(count)]
        return responses, client.closed()
    finally:
        client.close()


@pytest_twisted.inlineCallbacks
def test_keep_alive_serves_several_requests_on_one_connection(node):
    def run():
        client = Client(node)
        try:
            replies = []
            for i in range(5):
                client.send(post(call("eth_getBalance", DEV0, "latest", id=i)))
                replies.append(client.response())
            return replies
        finally:
            client.close()

    replies = yield in_thread(run)
    for i, (status, headers, body) in enumerate(replies):
        assert status == 200 and headers["content-type"] == "application/json" and "date" in headers
        assert json.loads(body) == {"jsonrpc": "2.0", "id": i, "result": hex(10**26)}


@pytest_twisted.inlineCallbacks
def test_pipelined_requests_are_answered_in_order(node):
    # eth_call answers later (on the call pool); the requests after it still come back after it.
    requests = [call("eth_blockNumber", id=1), call("eth_call", {"to": DEV0}, "latest", id=2),
                call("eth_chainId", id=3), b"[" + call("eth_call", {"to": DEV0}, id=4) + b"," +
                call("eth_blockNumber", id=5) + b"]"]
    responses, closed = yield in_thread(exchange, node, b"".join(post(r) for r in requests), 4)
    bodies = [json.loads(body) for _, _, body in responses]
    assert [b["id"] for b in bodies[:3]] == [1, 2, 3]
    assert bodies[1]["result"] == "0x" and bodies[2]["result"] == hex(9000)
    assert [b["id"] for b in bodies[3]] == [4, 5]
    assert not closed


@pytest_twisted.inlineCallbacks
def test_requests_pipelined_past_one_requests_worth_wait_and_are_answered_in_order(node_factory):
    # While an answer is pending, reading goes on up to one request of the largest size (header and body
    # limits), then pauses: 80 requests behind a slow one, far more than that, all come back in order.
    node = node_factory(json_rpc={"max_body_bytes": 200, "max_header_bytes": 1024})
    requests = [call("eth_call", {"to": DEV0}, "latest", id=0)] + [call("eth_chainId", id=i) for i in range(1, 81)]
    data = b"".join(post(r) for r in requests)
    assert len(data) > 3 * (200 + 1024)
    responses, closed = yield in_thread(exchange, node, data, len(requests))
    bodies = [json.loads(body) for _, _, body in responses]
    assert [b["id"] for b in bodies] == list(range(81)) and bodies[0]["result"] == "0x"
    assert all(b["result"] == hex(9000) for b in bodies[1:]) and not closed


@pytest_twisted.inlineCallbacks
def test_a_pipelining_client_is_not_read_past_one_requests_worth_while_an_answer_is_pending(node_factory):
    # The writer is held, so a sent tx's answer is pending; 40 MB of requests pipelined behind it stay in the
    # sockets (what the kernel buffers, a few MB) instead of the node's memory.
    node = node_factory(json_rpc={"max_body_bytes": 2000, "max_header_bytes": 1024})
    hold = threading.Event()
    node.producer.writer.callInThread(hold.wait, 10)
    raw = Web3.to_hex(sign({"to": OTHER, "value": 1, "nonce": 0}).raw_transaction)
    filler = post(call("eth_chainId")) * (40 * 2**20 // len(post(call("eth_chainId"))))

    def run():
        client = Client(node)
        try:
            client.send(post(call("eth_sendRawTransaction", raw)))
            time.sleep(0.2)
            client.sock.settimeout(1.0)
            sent = 0
            try:
                while sent < len(filler):
                    sent += client.sock.send(filler[sent:sent + 65536])
            except TimeoutError:
                pass
            return sent
        finally:
            hold.set()
            client.close()

    sent = yield in_thread(run)
    assert 0 < sent < len(filler) // 2


@pytest_twisted.inlineCallbacks
def test_a_client_gone_before_its_answer_leaves_the_node_serving(node):
    def run():
        client = Client(node)
        client.send(post(call("eth_call", {"to": DEV0}, "latest")))
        client.close()
        time.sleep(0.2)
        return exchange(node, post(call("eth_chainId")))

    responses, _ = yield in_thread(run)
    assert json.loads(responses[0][2])["result"] == hex(9000)


@pytest_twisted.inlineCallbacks
def test_notifications_only_get_an_empty_200(node):
    note = json.dumps({"jsonrpc": "2.0", "method": "eth_blockNumber", "params": []}).encode()
    responses, _ = yield in_thread(exchange, node, post(note))
    assert responses[0][0] == 200 and responses[0][2] == b""


@pytest_twisted.inlineCallbacks
def test_chunked_request_body(node):
    body = call("eth_chainId", id=7)
    chunked = b"%x;ext=1\r\n%s\r\n%x\r\n%s\r\n0\r\nX-Trailer: y\r\n\r\n" % (10, body[:10], len(body) - 10, body[10:])
    request = b"POST / HTTP/1.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked
    responses, closed = yield in_thread(exchange, node, request + post(call("eth_blockNumber", id=8)), 2)
    assert json.loads(responses[0][2]) == {"jsonrpc": "2.0", "id": 7, "result": hex(9000)}
    assert json.loads(responses[1][2])["id"] == 8 and not closed


@pytest_twisted.inlineCallbacks
def test_expect_100_continue(node):
    body = call("eth_chainId")
    def run():
        client = Client(node)
        try:
            client.send(b"POST / HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                        b"Expect: 100-continue\r\n\r\n" % len(body))
            interim = client.response()
            client.send(body)
            return interim, client.response()
        finally:
            client.close()

    interim, final = yield in_thread(run)
    assert interim[0] == 100
    assert final[0] == 200 and json.loads(final[2])["result"] == hex(9000)


@pytest_twisted.inlineCallbacks
def test_other_methods_get_405_and_options_is_answered(node):
    responses, closed = yield in_thread(
        exchange, node,
        b"GET / HTTP/1.1\r\n\r\nOPTIONS / HTTP/1.1\r\n\r\nPUT / HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", 3)
    (get_status, get_headers, get_body), options, put = responses
    assert get_status == 405 and get_headers["allow"] == "POST, OPTIONS" and b"POST" in get_body
    assert options[0] == 200 and options[1]["allow"] == "POST, OPTIONS" and options[2] == b""
    assert put[0] == 405 and not closed
    responses, _ = yield in_thread(exchange, node, b"HEAD / HTTP/1.1\r\n\r\n" + post(call("eth_chainId")), 2, True)
    assert responses[0][0] == 405 and int(responses[0][1]["content-length"]) > 0
    assert responses[1][0] == 200     # the HEAD answer had no body: the next response follows at once


@pytest_twisted.inlineCallbacks
def test_oversize_bodies_get_413(node_factory):
    node = node_factory(json_rpc={"max_body_bytes": 100})
    # Refused from the Content-Length, before the body is sent.
    responses, closed = yield in_thread(
        exchange, node, b"POST / HTTP/1.1\r\nContent-Length: 101\r\nExpect: 100-continue\r\n\r\n")
    status, headers, body = responses[0]
    assert status == 413 and headers["connection"] == "close" and closed
    assert json.loads(body)["error"] == {"code": -32600, "message": "content length too large: more than 100 bytes"}
    chunks = b"40\r\n" + b" " * 64 + b"\r\n" + b"40\r\n" + b" " * 64 + b"\r\n0\r\n\r\n"
    responses, closed = yield in_thread(
        exchange, node, b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks)
    assert responses[0][0] == 413 and closed
    # A client that sends the whole oversize body anyway still reads the 413.
    responses, closed = yield in_thread(exchange, node, post(b" " * 20_000_000))
    assert responses[0][0] == 413 and closed
    responses, _ = yield in_thread(exchange, node, post(b" " * 90 + call("eth_chainId")[:10]))
    assert responses[0][0] == 200       # at the limit: answered (a parse error, as JSON-RPC)


@pytest_twisted.inlineCallbacks
def test_oversize_headers_get_431(node_factory):
    node = node_factory(json_rpc={"max_header_bytes": 1024})
    big = post(call("eth_chainId"), b"X-Filler: " + b"a" * 1100 + b"\r\n")
    responses, closed = yield in_thread(exchange, node, big)
    assert responses[0][0] == 431 and closed
    fits = post(call("eth_chainId"), b"X-Filler: " + b"a" * 800 + b"\r\n")
    responses, _ = yield in_thread(exchange, node, fits)
    assert responses[0][0] == 200


@pytest_twisted.inlineCallbacks
def test_malformed_http_gets_400_and_the_connection_closes(node):
    cases = [
        (b"POST /\r\n\r\n", 400),                                               # no version
        (b"POST  / HTTP/1.1\r\n\r\n", 400),                                     # two spaces
        (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 400),        # a TLS hello
        (b"POST / HTTP/1.1\r\nContent-Length: 5x\r\n\r\n", 400),
        (b"POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}", 400),
        (b"POST / HTTP/1.1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}", 400),
        (b"POST / HTTP/1.1\r\nContent-Length : 2\r\n\r\n{}", 400),              # space before the colon
        (b"POST / HTTP/1.1\r\nno colon here\r\n\r\n", 400),
        (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        (b"POST / HTTP/1.1\nContent-Length: 2\n\n{}", 400),                      # bare LF
        (b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        (b"POST / HTTP/2.0\r\n\r\n", 505),
    ]
    for request, expected in cases:
        responses, closed = yield in_thread(exchange, node, request)
        assert responses[0][0] == expected, request
        assert responses[0][1]["connection"] == "close" and closed, request
    responses, _ = yield in_thread(exchange, node, post(call("eth_chainId")))
    assert responses[0][0] == 200


@pytest_twisted.inlineCallbacks
def test_http_1_0_closes_unless_asked_to_keep_alive(node):
    body = call("eth_chainId")
    responses, closed = yield in_thread(
        exchange, node, b"POST / HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
        % (len(body), body))
    assert responses[0][0] == 200 and responses[0][1]["connection"] == "close" and closed
    request = (b"POST / HTTP/1.0\r\nConnection: keep-alive\r\nContent-Type: application/json\r\n"
               b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    responses, closed = yield in_thread(exchange, node, request + request, 2)
    assert [r[1]["connection"] for r in responses] == ["keep-alive", "keep-alive"]
    responses, closed = yield in_thread(exchange, node, post(body, b"Connection: close\r\n") + post(body), 2)
    assert responses[0][0] == 200 and responses[1] is None
    # Also when the answer is bigger than the transport's write buffer.
    big = json.dumps([json.loads(call("eth_getBlockByNumber", "latest", False, id=i)) for i in range(1000)]).encode()
    responses, closed = yield in_thread(exchange, node, post(big, b"Connection: close\r\n"))
    assert len(responses[0][2]) > 256 * 1024 and closed


@pytest_twisted.inlineCallbacks
def test_idle_connections_are_closed(node_factory):
    node = node_factory(json_rpc={"idle_timeout": 0.3})

    def run():
        client = Client(node)
        try:
            client.send(post(call("eth_chainId")))
            first = client.response()
            started = time.monotonic()
            return first, client.closed(wait=5), time.monotonic() - started
        finally:
            client.close()

    first, closed, waited = yield in_thread(run)
    assert first[0] == 200 and closed and 0.2 < waited < 5
