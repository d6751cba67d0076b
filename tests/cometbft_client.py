"""CometBFT's RPC from a test: URI GET and JSON-RPC POST (off the reactor, fired with status and JSON), and
abci_query with the store keys it asks for."""

import json
import urllib.parse
import urllib.request

from helpers import in_thread


def base(node):
    return f"http://127.0.0.1:{node.port_of('cometbft')}"


def fetch(url, body=None):
    request = urllib.request.Request(url, data=body, headers={"content-type": "application/json"} if body else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read(), dict(e.headers)


def post(node, method, params=None, request_id=1):
    body = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        body["params"] = params
    d = in_thread(fetch, base(node) + "/", json.dumps(body).encode())
    return d.addCallback(lambda r: (r[0], json.loads(r[1])))


def balance_key(address, denom):
    """x/bank's balance key in SDK v0.50: 0x02 | len(address) | address | denom."""
    return (b"\x02" + bytes([len(address)]) + address + denom.encode()).hex()


def abci_query(node, path, data=b"", height=0, prove=True):
    params = {"path": path, "data": data.hex(), "prove": prove}
    if height:
        params["height"] = str(height)
    return post(node, "abci_query", params).addCallback(lambda r: r[1]["result"]["response"])
