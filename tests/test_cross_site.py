"""A web page on another site must not drive the node: JSON-RPC POSTs that are not JSON get geth's 415, and a
POST (or a CometBFT /websocket handshake) from an origin the face's CORS setting does not list is refused.

The attack itself runs in headless Chromium (the explorer tests' browser), from a page served on another origin.
"""

import json

import pytest
import pytest_twisted
import websockets
from twisted.internet import reactor
from twisted.web import resource, server
from websockets.sync.client import connect

from browser_driver import CHROMEDRIVER, CHROMIUM, WAIT, webdriver
from evm_client import OTHER
from helpers import in_thread
from http_client import call, face_post

STOLEN = hex(7 * 10**30)


def balance(node):
    status, _, body = face_post(node, "json-rpc", call("eth_getBalance", OTHER, "latest"))
    return json.loads(body)["result"]


@pytest_twisted.inlineCallbacks
def test_json_rpc_refuses_a_post_that_is_not_json_as_geth_does(node):
    before = yield in_thread(balance, node)
    attack = call("anvil_setBalance", OTHER, STOLEN)
    for content_type in (b"text/plain", b"text/plain;charset=UTF-8", b"application/x-www-form-urlencoded",
                         b"multipart/form-data; boundary=x", None):
        status, headers, body = yield in_thread(face_post, node, "json-rpc", attack, content_type)
        assert (status, body) == (415, b"invalid content type, only application/json is supported\n"), content_type
    assert (yield in_thread(balance, node)) == before
    for content_type in (b"application/json", b"Application/JSON; charset=utf-8", b"application/json-rpc",
                         b"application/jsonrequest"):
        status, _, body = yield in_thread(face_post, node, "json-rpc", call("eth_chainId"), content_type)
        assert status == 200 and json.loads(body)["result"] == "0x2328", content_type


@pytest_twisted.inlineCallbacks
def test_json_rpc_refuses_a_post_from_an_origin_cors_domains_does_not_list(node_factory):
    node = node_factory(json_rpc={"cors_domains": "https://app.example"})
    status, headers, _ = yield in_thread(face_post, node, "json-rpc", call("eth_chainId"), origin=b"https://app.example")
    assert status == 200 and headers["access-control-allow-origin"] == "https://app.example"
    for origin in (b"https://evil.example", b"null", b"http://127.0.0.1:1"):
        status, _, body = yield in_thread(face_post, node, "json-rpc", call("eth_chainId"), origin=origin)
        assert (status, body) == (403, b"origin not allowed: list it in [json-rpc] cors-domains\n"), origin
    # A wallet extension is no web page (geth serves it whatever --http.corsdomain says); no Origin: no browser.
    for origin in (b"chrome-extension://nkbihfbeogaeaoehlefnkodbefgpgknn", None):
        status, _, _ = yield in_thread(face_post, node, "json-rpc", call("eth_chainId"), origin=origin)
        assert status == 200, origin


@pytest_twisted.inlineCallbacks
def test_cometbft_refuses_a_post_from_an_origin_not_listed(node):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "health", "params": {}}).encode()
    for path, payload, content_type in ((b"/", body, b"text/plain"), (b"/health", b"", b"application/x-www-form-"
                                                                                    b"urlencoded")):
        status, _, answer = yield in_thread(face_post, node, "cometbft", payload, content_type, b"https://evil.example",
                                            path)
        assert (status, answer) == (403, b"origin not allowed: list it in [cometbft-rpc] cors-allowed-origins\n")
        # Without an Origin (curl, Go and Node clients) any content type is served, as CometBFT serves it: its
        # own guide posts text/plain.
        status, _, answer = yield in_thread(face_post, node, "cometbft", payload, content_type, None, path)
        assert status == 200 and json.loads(answer)["result"] == {}


@pytest_twisted.inlineCallbacks
def test_cometbft_websocket_checks_the_origin_against_cors_allowed_origins(node_factory):
    node = node_factory(cometbft_rpc={"cors_allowed_origins": "https://app.example"})

    def health(origin):
        headers = {} if origin is None else {"Origin": origin}
        with connect(f"ws://127.0.0.1:{node.port_of('cometbft')}/websocket", additional_headers=headers,
                     open_timeout=5) as ws:
            ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "health", "params": {}}))
            return json.loads(ws.recv(timeout=5))["result"]

    assert (yield in_thread(health, None)) == {}
    assert (yield in_thread(health, "https://app.example")) == {}
    with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
        yield in_thread(health, "https://evil.example")
    assert refused.value.response.status_code == 403


ATTACK_PAGE = """<!doctype html><html><head><title>loading</title></head><body><script>
const body = JSON.stringify({jsonrpc: "2.0", id: 1, method: "anvil_setBalance", params: ["%(target)s", "%(amount)s"]});
// What any page may send without asking the node first: text/plain, and a body with no content type at all.
Promise.allSettled([
  fetch("%(node)s", {method: "POST", mode: "no-cors", headers: {"content-type": "text/plain"}, body}),
  fetch("%(node)s", {method: "POST", mode: "no-cors", body: new Blob([body])}),
]).then(() => { document.title = "sent"; });
</script></body></html>"""


class _Page(resource.Resource):
    isLeaf = True

    def __init__(self, html):
        super().__init__()
        self.html = html

    def render_GET(self, request):
        request.setHeader(b"content-type", b"text/html")
        return self.html


@pytest.mark.slow
@pytest.mark.skipif(webdriver is None or not CHROMIUM or not CHROMEDRIVER, reason="needs selenium, chromium and "
                    "chromium-driver (see tests/test_explorer_browser.py)")
@pytest_twisted.inlineCallbacks
def test_a_page_on_another_origin_cannot_set_a_balance_in_chromium(node, browser):  # noqa: F811
    before = yield in_thread(balance, node)
    page = ATTACK_PAGE % {"target": OTHER, "amount": STOLEN, "node": f"http://127.0.0.1:{node.port_of('json-rpc')}/"}
    site = server.Site(_Page(page.encode()))
    port = reactor.listenTCP(0, site, interface="127.0.0.1")
    try:
        def visit():
            from selenium.webdriver.support.ui import WebDriverWait

            browser.get(f"http://127.0.0.1:{port.getHost().port}/")
            WebDriverWait(browser, WAIT).until(lambda d: d.title == "sent", "the attack page did not run")

        yield in_thread(visit)
    finally:
        yield port.stopListening()
    assert (yield in_thread(balance, node)) == before
