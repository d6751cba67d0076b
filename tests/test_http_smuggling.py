"""8545 refuses a bare CR, LF or NUL inside the request line, a header, a chunk size line or a trailer with 400,
as the twisted.web faces do: such a byte lets the node and a proxy read different headers (a hidden
Content-Length), or puts a client's text into our headers (an Origin echoed into Access-Control-Allow-Origin).
"""

import json

import pytest
import pytest_twisted

from helpers import in_thread
from http_client import Client, call

BODY = call("eth_chainId")


def exchange(node, data):
    """The responses to `data` sent on one connection, and whether the server then closed it."""
    client = Client(node)
    try:
        client.send(data)
        responses = []
        while (response := client.response()) is not None:
            responses.append(response)
        return responses
    finally:
        client.close()


def head(extra):
    return b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n%s\r\n" % extra


@pytest.mark.parametrize("request_bytes", [
    # Origin carrying a header of its own: before, echoed into Access-Control-Allow-Origin as a Set-Cookie line.
    head(b"Origin: https://app.example/\nSet-Cookie: session=stolen\r\nContent-Length: %d\r\n" % len(BODY)) + BODY,
    head(b"Origin: https://app.example/\rSet-Cookie: session=stolen\r\nContent-Length: %d\r\n" % len(BODY)) + BODY,
    # A Content-Length a proxy splitting on LF sees and we did not: the two would cut requests differently.
    head(b"X-Note: a\nContent-Length: 0\r\nContent-Length: %d\r\n" % len(BODY)) + BODY,
    head(b"X-Note: a\x00b\r\nContent-Length: %d\r\n" % len(BODY)) + BODY,
    b"POST /\n HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
    % (len(BODY), BODY),
    head(b"Transfer-Encoding: chunked\r\n") + b"%x;a\nb\r\n%s\r\n0\r\n\r\n" % (len(BODY), BODY),
    head(b"Transfer-Encoding: chunked\r\n") + b"%x\r\n%s\r\n0\r\nX-T: a\nContent-Length: 5\r\n\r\n" % (len(BODY), BODY),
], ids=["origin-lf-set-cookie", "origin-cr-set-cookie", "hidden-content-length", "nul", "request-line",
        "chunk-line", "trailer"])
@pytest_twisted.inlineCallbacks
def test_a_bare_cr_or_lf_in_the_head_is_refused_with_400(node_factory, request_bytes):
    node = node_factory(json_rpc={"cors_domains": "https://app.example"})
    responses = yield in_thread(exchange, node, request_bytes)
    assert [status for status, _, _ in responses] == [400]
    assert not any("set-cookie" in headers for _, headers, _ in responses)
    # The node still answers the next client.
    responses = yield in_thread(exchange, node, head(b"Connection: close\r\nContent-Length: %d\r\n" % len(BODY)) + BODY)
    assert responses[0][0] == 200 and json.loads(responses[0][2])["result"] == "0x2328"
