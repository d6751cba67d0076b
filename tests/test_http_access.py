"""Who may use the EVM faces from a browser: virtual hosts, CORS on 8545 and WebSocket origins on 8546.

Non-browser clients (no Origin header, an IP address as Host) are never refused.
"""

import json

import pytest
import pytest_twisted
import websockets
from websockets.sync.client import connect

from chaind.rpc.origins import OriginPolicy, host_allowed
from helpers import in_thread
from http_client import Client, call

CHAIN_ID = call("eth_chainId")


def request(node, host, extra=b"", method=b"POST", body=CHAIN_ID):
    client = Client(node)
    try:
        client.send(b"%s / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n%s"
                    % (method, host, len(body), extra, body))
        return client.response()
    finally:
        client.close()


@pytest_twisted.inlineCallbacks
def test_a_host_name_not_listed_in_vhosts_is_refused(node):
    port = node.port_of("json-rpc")
    status, _, body = yield in_thread(request, node, b"rebind.attacker.example")
    assert status == 403 and body == b"invalid host specified\n"
    for host in (b"localhost:%d" % port, b"127.0.0.1:%d" % port, b"[::1]:%d" % port, b"LOCALHOST"):
        status, _, body = yield in_thread(request, node, host)
        assert status == 200 and json.loads(body)["result"] == "0x2328", host


@pytest_twisted.inlineCallbacks
def test_vhosts_star_serves_any_host_name(node_factory):
    node = node_factory(json_rpc={"vhosts": "*"})
    status, _, _ = yield in_thread(request, node, b"node.example")
    assert status == 200


@pytest_twisted.inlineCallbacks
def test_without_cors_domains_no_page_may_call(node):
    status, headers, body = yield in_thread(request, node, b"localhost", b"Origin: https://app.example\r\n")
    assert status == 403 and "access-control-allow-origin" not in headers
    assert body == b"origin not allowed: list it in [json-rpc] cors-domains\n"


@pytest_twisted.inlineCallbacks
def test_a_listed_origin_gets_cors_headers_and_its_preflight_answered(node_factory):
    node = node_factory(json_rpc={"cors_domains": "https://app.example, http://localhost:3000"})
    status, headers, _ = yield in_thread(request, node, b"localhost", b"Origin: https://app.example\r\n")
    assert status == 200 and headers["access-control-allow-origin"] == "https://app.example"
    assert headers["vary"] == "Origin"
    status, headers, _ = yield in_thread(request, node, b"localhost", b"Origin: https://other.example\r\n")
    assert status == 403 and "access-control-allow-origin" not in headers
    preflight = (b"Origin: http://localhost:3000\r\nAccess-Control-Request-Method: POST\r\n"
                 b"Access-Control-Request-Headers: content-type\r\n")
    status, headers, body = yield in_thread(request, node, b"localhost", preflight, b"OPTIONS", b"")
    assert status == 204 and body == b""
    assert headers["access-control-allow-origin"] == "http://localhost:3000"
    assert headers["access-control-allow-methods"] == "POST"
    assert headers["access-control-allow-headers"] == "content-type"
    assert headers["access-control-max-age"] == "600"


def open_socket(node, origin):
    headers = {} if origin is None else {"Origin": origin}
    with connect(f"ws://127.0.0.1:{node.port_of('websocket')}", additional_headers=headers, open_timeout=5) as ws:
        ws.send(CHAIN_ID.decode())
        return json.loads(ws.recv(timeout=5))["result"]


@pytest_twisted.inlineCallbacks
def test_websocket_origins_default_to_localhost(node):
    assert (yield in_thread(open_socket, node, None)) == "0x2328"
    assert (yield in_thread(open_socket, node, "http://localhost:5173")) == "0x2328"
    with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
        yield in_thread(open_socket, node, "https://evil.example")
    assert refused.value.response.status_code == 403


@pytest_twisted.inlineCallbacks
def test_ws_origins_setting_replaces_the_default(node_factory):
    node = node_factory(json_rpc={"ws_origins": "https://app.example"})
    assert (yield in_thread(open_socket, node, "https://app.example")) == "0x2328"
    with pytest.raises(websockets.exceptions.InvalidStatus):
        yield in_thread(open_socket, node, "http://localhost")


@pytest.mark.parametrize("rules, origin, allowed", [
    ("*", "https://anything.example", True),
    ("app.example", "https://app.example:8443", True),      # no scheme, no port: any
    ("https://app.example", "http://app.example", False),
    ("http://localhost:3000", "http://localhost:3001", False),
    ("http://localhost", "http://localhost.evil.example", False),
    ("http://localhost", "not a url", False),
])
def test_origin_rules(rules, origin, allowed):
    assert OriginPolicy.parse(rules).allows(origin) is allowed


@pytest.mark.parametrize("host, allowed", [
    ("", True), ("10.0.0.1:8545", True), ("[fe80::1]:8545", True), ("localhost", True),
    ("Localhost:8545", True), ("example.com", False), ("localhost.example.com:1", False),
])
def test_vhost_rules(host, allowed):
    assert host_allowed(["localhost"], host) is allowed


def test_every_face_listens_on_loopback_by_default():
    from chaind.config import Settings

    settings = Settings()
    addresses = [settings.json_rpc.address, settings.json_rpc.ws_address, settings.cometbft_rpc.address,
                 settings.grpc.address, settings.rest.address]
    assert all(a.startswith("127.0.0.1:") for a in addresses), addresses


@pytest_twisted.inlineCallbacks
def test_txpool_and_debug_are_opt_in(node_factory):
    from chaind.config import JsonRpcSettings

    node = node_factory(json_rpc={"api": JsonRpcSettings().api})
    for method in ("txpool_status", "debug_traceBlockByNumber"):
        status, _, body = yield in_thread(request, node, b"localhost", b"", b"POST", call(method))
        assert json.loads(body)["error"]["code"] == -32601, method
    assert "json-rpc namespaces: eth,net,web3\n" in node.out.getvalue()


@pytest_twisted.inlineCallbacks
def test_a_dev_chain_says_it_serves_txpool_debug_and_dev(node):
    status, _, body = yield in_thread(request, node, b"localhost", b"", b"POST", call("txpool_status"))
    assert "result" in json.loads(body)
    banner = node.out.getvalue()
    assert "debug, dev, txpool enabled" in banner and "dev methods on: evm_snapshot/evm_revert" in banner
