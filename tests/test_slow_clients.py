"""Slow clients cannot hold the HTTP faces: a request must arrive whole within [face] read-timeout, a keep-alive
connection waits idle-timeout for its next request, and max-open-connections bounds the connections (and file
descriptors) a face holds, a connection holding no request giving way to a newcomer. The node keeps answering.
"""

import json
import os
import socket
import time
import urllib.request

import pytest
import pytest_twisted

from helpers import in_thread
from http_client import call

FACES = {
    "json-rpc": "json_rpc",
    "cometbft": "cometbft_rpc",
    "rest": "rest",
    "explorer": "explorer",
    "metrics": "instrumentation",
}
ON = {"explorer": {"enable": True, "address": "127.0.0.1:0"},
      "metrics": {"prometheus": True, "prometheus_listen_addr": "127.0.0.1:0"}}


def trickle(port, seconds=6.0, every=0.2):
    """Send a request head a byte at a time; the seconds until the server closed the connection (None: it never
    did within `seconds`)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    start = time.monotonic()
    head = b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"a" * 200
    try:
        for byte in head:
            if time.monotonic() - start > seconds:
                return None
            try:
                sock.sendall(bytes((byte,)))
                sock.settimeout(every)
                if sock.recv(1) == b"":
                    return time.monotonic() - start
            except TimeoutError:
                continue
            except OSError:
                return time.monotonic() - start
        return None
    finally:
        sock.close()


def block_number(node):
    """(seconds, result) of one eth_blockNumber on a new connection."""
    start = time.monotonic()
    request = urllib.request.Request(f"http://127.0.0.1:{node.port_of('json-rpc')}", data=call("eth_blockNumber"),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return time.monotonic() - start, json.loads(response.read())["result"]


def slow_node(node_factory, face, **limits):
    sections = {section: dict(ON.get(name, {})) for name, section in FACES.items()}
    sections[FACES[face]].update(limits)
    return node_factory(**sections)


@pytest.mark.parametrize("face", list(FACES))
@pytest_twisted.inlineCallbacks
def test_a_request_trickling_in_is_dropped_at_the_read_timeout(node_factory, face):
    node = slow_node(node_factory, face, read_timeout=1.0)
    closed = in_thread(trickle, node.port_of(face))
    seconds, _ = yield in_thread(block_number, node)
    assert seconds < 1.0
    closed = yield closed
    assert closed is not None and 0.9 < closed < 3.0, closed


# 8545 had its idle timeout already (test_http_face.py's test_idle_connections_are_closed).
@pytest.mark.parametrize("face", [face for face in FACES if face != "json-rpc"])
@pytest_twisted.inlineCallbacks
def test_an_idle_keep_alive_connection_is_closed_at_the_idle_timeout(node_factory, face):
    node = slow_node(node_factory, face, idle_timeout=0.5)
    path = {"json-rpc": "/", "cometbft": "/health", "rest": "/cosmos/base/tendermint/v1beta1/syncing",
            "explorer": "/", "metrics": "/metrics"}[face]

    def idle():
        sock = socket.create_connection(("127.0.0.1", node.port_of(face)), timeout=5)
        try:
            body = call("eth_blockNumber") if face == "json-rpc" else b""
            method = b"POST" if face == "json-rpc" else b"GET"
            sock.sendall(b"%s %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n%s" % (method, path.encode(), len(body), body))
            answered = sock.recv(65536)
            start = time.monotonic()
            while sock.recv(65536):
                pass
            return answered, time.monotonic() - start
        finally:
            sock.close()

    answered, closed_after = yield in_thread(idle)
    assert answered.startswith(b"HTTP/1.1 200")
    assert closed_after < 2.5


@pytest_twisted.inlineCallbacks
def test_three_slow_clients_no_longer_lock_out_metrics(node_factory):
    node = slow_node(node_factory, "metrics", read_timeout=1.0)
    port = node.port_of("metrics")
    slow = [in_thread(trickle, port) for _ in range(3)]
    yield in_thread(time.sleep, 0.3)

    def scrape():
        start = time.monotonic()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
            assert b"cometbft_consensus_height" in response.read()
        return time.monotonic() - start

    seconds = yield in_thread(scrape)
    assert seconds < 1.0        # a slow one gave way
    for d in slow:
        assert (yield d) is not None


@pytest_twisted.inlineCallbacks
def test_a_connection_flood_holds_no_more_descriptors_than_the_cap_nor_locks_out_a_new_client(node_factory):
    node = slow_node(node_factory, "json-rpc", max_open_connections=10)
    before = len(os.listdir("/proc/self/fd"))

    def flood():
        socks = []
        try:
            for _ in range(300):
                sock = socket.socket()
                sock.setblocking(False)         # beyond the backlog a connect waits: the flood goes on
                sock.connect_ex(("127.0.0.1", node.port_of("json-rpc")))
                socks.append(sock)
            time.sleep(0.5)
            held = len(os.listdir("/proc/self/fd")) - 300
            # A new client is served at once: a connection of the flood, holding no request, gives way to it.
            return held, block_number(node)[0]
        finally:
            for s in socks:
                s.close()

    held, seconds = yield in_thread(flood)
    # The node's share: the served ones, and those closing as they gave way.
    assert held - before <= 10 + 20, held - before
    assert seconds < 1.0


@pytest_twisted.inlineCallbacks
def test_at_the_cap_connections_being_answered_are_never_cut_and_newcomers_wait(node_factory):
    node = slow_node(node_factory, "json-rpc", max_open_connections=2, evm_timeout=1.0)
    loop = {"data": "0x5b600056"}       # JUMPDEST PUSH1 0 JUMP: runs until evm-timeout

    def busy():
        request = urllib.request.Request(f"http://127.0.0.1:{node.port_of('json-rpc')}",
                                         data=call("eth_call", loop, "latest"),
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    calls = [in_thread(busy) for _ in range(2)]
    yield in_thread(time.sleep, 0.3)
    seconds, _ = yield in_thread(block_number, node)
    assert 0.3 < seconds < 5.0          # served once a busy one was done
    for d in calls:
        assert "error" in (yield d)     # each call's own answer (its timeout), not a cut connection
