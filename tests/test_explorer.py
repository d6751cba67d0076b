"""The explorer face without a browser: its files, config.json, headers, and the faces admitting its origin.

The pages themselves are driven in a real browser in test_explorer_browser.py.
"""

import json
import urllib.error
import urllib.request

import pytest
import pytest_twisted
import websockets.exceptions
import websockets.sync.client as ws_client

from chaind import config
from chaind.home import Home
from helpers import in_thread

EXPLORER_ON = {"explorer": {"enable": True, "address": "127.0.0.1:0"}}
FOREIGN = "http://evil.example"


def get(url, headers=None, method="GET", data=None):
    request = urllib.request.Request(url, headers=headers or {}, method=method, data=data)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def port(node, face):
    return node.port_of(face)


def test_the_explorer_is_off_by_default_and_on_in_a_dev_home(tmp_path):
    assert config.Settings().explorer.enable is False
    assert config.load(Home(tmp_path / "dev").init("dev", dev=True).config_file).explorer.enable is True
    assert config.load(Home(tmp_path / "plain").init("plain").config_file).explorer.enable is False


@pytest_twisted.inlineCallbacks
def test_it_serves_its_page_and_where_the_faces_are(node_factory):
    node = node_factory(**EXPLORER_ON)
    base = f"http://127.0.0.1:{port(node, 'explorer')}"
    status, headers, body = yield in_thread(get, base + "/")
    assert status == 200 and headers["content-type"] == "text/html; charset=utf-8" and b"app.js" in body
    csp = headers["content-security-policy"]
    assert "script-src 'self'" in csp and f"ws://127.0.0.1:{port(node, 'websocket')}" in csp
    status, headers, body = yield in_thread(get, base + "/app.js")
    assert status == 200 and "javascript" in headers["content-type"] and b"textContent" in body
    status, _, body = yield in_thread(get, base + "/config.json")
    assert json.loads(body) == {
        "jsonRpc": f"http://127.0.0.1:{port(node, 'json-rpc')}",
        "websocket": f"ws://127.0.0.1:{port(node, 'websocket')}",
        "cometbft": f"http://127.0.0.1:{port(node, 'cometbft')}", "rest": f"http://127.0.0.1:{port(node, 'rest')}",
        "chainId": "chain_9000-1", "evmChainId": 9000, "bech32Prefix": "chain", "denom": "achain", "decimals": 18}
    for path in ("/nothing", "/static/app.js", "/../setup.py"):
        status, _, _ = yield in_thread(get, base + path)
        assert status == 404, path


@pytest_twisted.inlineCallbacks
def test_configured_urls_are_handed_to_the_page(node_factory):
    node = node_factory(explorer={**EXPLORER_ON["explorer"], "json_rpc_url": "https://rpc.example"})
    _, headers, body = yield in_thread(get, f"http://127.0.0.1:{port(node, 'explorer')}/config.json")
    assert json.loads(body)["jsonRpc"] == "https://rpc.example" and "https://rpc.example" in \
        headers["content-security-policy"]


@pytest_twisted.inlineCallbacks
def test_the_faces_admit_the_explorers_origin_and_no_other(node_factory):
    node = node_factory(**EXPLORER_ON)
    explorer = f"http://127.0.0.1:{port(node, 'explorer')}"
    comet = f"http://127.0.0.1:{port(node, 'cometbft')}/status"
    rest = f"http://127.0.0.1:{port(node, 'rest')}/cosmos/bank/v1beta1/params"
    for url in (comet, rest):
        _, headers, _ = yield in_thread(get, url, {"Origin": explorer})
        assert headers["access-control-allow-origin"] == explorer, url
        _, headers, _ = yield in_thread(get, url, {"Origin": FOREIGN})
        assert headers["access-control-allow-origin"] is None, url
    # The JSON-RPC preflight a page's POST needs.
    preflight = {"Origin": explorer, "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "content-type"}
    status, headers, _ = yield in_thread(get, f"http://127.0.0.1:{port(node, 'json-rpc')}", preflight, "OPTIONS")
    assert status in (200, 204) and headers["access-control-allow-origin"] == explorer
    status, headers, _ = yield in_thread(get, comet, preflight, "OPTIONS")
    assert status == 204 and headers["access-control-allow-methods"] == "GET, POST, HEAD"

    def handshake(origin):
        with ws_client.connect(f"ws://127.0.0.1:{port(node, 'websocket')}", origin=origin) as connection:
            connection.send('{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}')
            return json.loads(connection.recv(10))["result"]

    assert (yield in_thread(handshake, explorer)) == "0x2328"
    with pytest.raises(websockets.exceptions.InvalidStatus):
        yield in_thread(handshake, FOREIGN)


@pytest_twisted.inlineCallbacks
def test_without_the_explorer_the_faces_send_no_cors_headers(node):
    _, headers, _ = yield in_thread(get, f"http://127.0.0.1:{port(node, 'cometbft')}/status",
                                    {"Origin": "http://127.0.0.1:8547"})
    assert headers["access-control-allow-origin"] is None
    assert "explorer: off" in node.out.getvalue()


@pytest_twisted.inlineCallbacks
def test_cometbft_cors_allowed_origins_and_rests_unsafe_cors(node_factory):
    node = node_factory(cometbft_rpc={"cors_allowed_origins": "http://app.example"},
                        rest={"enabled_unsafe_cors": True})
    _, headers, _ = yield in_thread(get, f"http://127.0.0.1:{port(node, 'cometbft')}/status",
                                    {"Origin": "http://app.example"})
    assert headers["access-control-allow-origin"] == "http://app.example"
    _, headers, _ = yield in_thread(get, f"http://127.0.0.1:{port(node, 'rest')}/cosmos/bank/v1beta1/params",
                                    {"Origin": FOREIGN})
    assert headers["access-control-allow-origin"] == "*"
