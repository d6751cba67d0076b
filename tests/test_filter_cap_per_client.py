"""One client cannot take every filter: besides [json-rpc] filter-cap, each WebSocket connection and each browser
origin over HTTP may hold filter-cap-per-client; HTTP clients without an Origin are bounded by the total alone.
"""

import json

import pytest_twisted
from websockets.sync.client import connect

from helpers import in_thread, ws_url
from http_client import call, face_post

LIMITS = {"filter_cap": 8, "filter_cap_per_client": 3, "cors_domains": "https://a.example, https://b.example"}


def install_over_websocket(node, count):
    """The answers to `count` eth_newBlockFilter calls on one connection."""
    with connect(ws_url(node), open_timeout=5) as ws:
        answers = []
        for i in range(count):
            ws.send(json.dumps({"jsonrpc": "2.0", "id": i, "method": "eth_newBlockFilter", "params": []}))
            answers.append(json.loads(ws.recv(timeout=5)))
        return answers


def install_over_http(node, origin, count):
    return [json.loads(face_post(node, "json-rpc", call("eth_newBlockFilter"), origin=origin)[2]) for _ in range(count)]


def refused(answers):
    return [a["error"]["message"] for a in answers if "error" in a]


@pytest_twisted.inlineCallbacks
def test_a_websocket_connection_cannot_take_every_filter(node_factory):
    node = node_factory(json_rpc=LIMITS)
    greedy = yield in_thread(install_over_websocket, node, 5)
    assert refused(greedy) == ["error creating filter: max limit reached for this client (3 filters)"] * 2
    assert [a["error"]["code"] for a in greedy[3:]] == [-32000, -32000]     # as the total cap answers
    other = yield in_thread(install_over_websocket, node, 3)
    assert refused(other) == []


@pytest_twisted.inlineCallbacks
def test_a_browser_origin_cannot_take_every_filter_over_http(node_factory):
    node = node_factory(json_rpc=LIMITS)
    greedy = yield in_thread(install_over_http, node, b"https://a.example", 4)
    assert refused(greedy) == ["error creating filter: max limit reached for this client (3 filters)"]
    assert refused((yield in_thread(install_over_http, node, b"https://b.example", 3))) == []
    # Uninstalling gives the share back.
    filter_id = greedy[0]["result"]
    status, _, body = yield in_thread(face_post, node, "json-rpc", call("eth_uninstallFilter", filter_id),
                                      origin=b"https://a.example")
    assert json.loads(body)["result"] is True
    assert refused((yield in_thread(install_over_http, node, b"https://a.example", 1))) == []
    # Clients without an Origin are told apart by nothing: the total (8) is their bound.
    plain = yield in_thread(install_over_http, node, None, 3)
    assert refused(plain) == ["error creating filter: max limit reached (8 filters)"] * 1
