"""A web3.py client of a test node: dev account 0, raw JSON-RPC posts, signed sends."""

import json
import urllib.request

from eth_account import Account
from web3 import Web3

from helpers import in_thread, url

DEV0 = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
DEV0_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
OTHER = "0x" + "22" * 20
DEBUG = {"api": "eth,net,web3,debug"}        # json_rpc settings of a node that serves debug_*


def post(node, payload, raw=False):
    body = payload if raw else json.dumps(payload).encode()
    request = urllib.request.Request(url(node), data=body, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def rpc(node, method, *params):
    """Fires with (HTTP status, reply object)."""
    return in_thread(post, node, {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)})


def w3(node):
    return Web3(Web3.HTTPProvider(url(node)))


def sign(tx, key=DEV0_KEY):
    tx = {"chainId": 9000, "gas": 21000, "maxFeePerGas": 10**10, "maxPriorityFeePerGas": 10**9, **tx}
    return Account.sign_transaction(tx, key)


def send(web3, tx, key=DEV0_KEY):
    """Sign, send and wait for the receipt (blocking: call through in_thread)."""
    tx_hash = web3.eth.send_raw_transaction(sign(tx, key).raw_transaction)
    return web3.eth.wait_for_transaction_receipt(tx_hash, timeout=10, poll_latency=0.05)


def call(node, method, *params):
    """Fires with the result; fails the test on an error reply."""
    d = rpc(node, method, *params)

    def result(reply):
        assert "error" not in reply[1], (method, reply[1])
        return reply[1]["result"]

    return d.addCallback(result)


def error(node, method, *params):
    return rpc(node, method, *params).addCallback(lambda reply: reply[1]["error"])

