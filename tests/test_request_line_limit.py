"""The request-line and header limit of 26657 and 9091 ([cometbft-rpc] and [rest] max-header-bytes): an
over-long URL is 414 and over-long headers 431, each with the face's JSON error, never a silently closed
connection; the node keeps serving."""

import json
import socket

import pytest_twisted

from helpers import in_thread


def raw_request(port, head):
    """(status, headers, body) of one raw HTTP/1.1 request; the server must answer, then close."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        try:
            s.sendall(head)
        except (BrokenPipeError, ConnectionResetError):
            pass        # the server answered and closed before all of an over-long request went out
        data = b""
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
    head_part, _, body = data.partition(b"\r\n\r\n")
    lines = head_part.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return status, headers, body


def over_long(port, size):
    query = "tx.height>" + "1" * size
    return raw_request(port, f"GET /tx_search?query=%22{query}%22 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                             f"\r\n".encode())


@pytest_twisted.inlineCallbacks
def test_an_over_long_url_is_414_with_a_json_error_on_26657_and_9091(node_factory):
    node = node_factory()
    comet, rest = node.port_of("cometbft"), node.port_of("rest")
    # A 1 MB tx_search query, over the 1 MB default.
    status, headers, body = yield in_thread(over_long, comet, 1 << 20)
    assert status == 414 and headers["content-type"] == "application/json"
    error = json.loads(body)
    assert error["jsonrpc"] == "2.0" and error["error"]["code"] == -32600
    assert error["error"]["data"] == ("request line (the URL) longer than 1048576 bytes "
                                      "([cometbft-rpc] max-header-bytes)")
    path = "/cosmos/bank/v1beta1/balances/" + "a" * (1 << 20)
    status, headers, body = yield in_thread(raw_request, rest, f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert status == 414 and json.loads(body) == {
        "code": 3, "message": "request line (the URL) longer than 1048576 bytes ([rest] max-header-bytes)",
        "details": []}
    # The faces still serve.
    status, _, body = yield in_thread(raw_request, comet,
                                      b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert status == 200 and json.loads(body)["result"] == {}


@pytest_twisted.inlineCallbacks
def test_the_limit_is_a_setting_and_headers_over_it_are_431(node_factory):
    node = node_factory(cometbft_rpc={"max_header_bytes": 2048}, rest={"max_header_bytes": 2048})
    comet, rest = node.port_of("cometbft"), node.port_of("rest")
    status, _, body = yield in_thread(over_long, comet, 3000)
    assert status == 414 and "longer than 2048 bytes" in json.loads(body)["error"]["data"]
    # A URL under the limit is served (here: a query over max-query-length, which the route refuses).
    status, _, body = yield in_thread(over_long, comet, 1000)
    assert status != 414 and "error" in json.loads(body)
    many = "".join(f"X-Filler-{i}: {'v' * 100}\r\n" for i in range(30))
    status, _, body = yield in_thread(raw_request, rest, f"GET /cosmos/bank/v1beta1/supply HTTP/1.1\r\nHost: x\r\n"
                                                         f"{many}\r\n".encode())
    assert status == 431 and json.loads(body)["message"] == \
        "request line and headers longer than 2048 bytes ([rest] max-header-bytes)"
    status, _, body = yield in_thread(raw_request, rest, b"GET /cosmos/bank/v1beta1/supply HTTP/1.1\r\nHost: x\r\n"
                                                         b"Connection: close\r\n\r\n")
    assert status == 200 and b"\"supply\"" in body
