"""The bech32 precompile at 0x...0400 (cosmos/evm's Bech32I) answers typed calls over eth_call on a node."""

import pytest_twisted
from eth_abi import decode, encode
from eth_utils import keccak

from chaind.crypto.addresses import to_bech32
from evm_client import DEV0, rpc

TO = "0x" + "00" * 18 + "0400"
ERROR = keccak(text="Error(string)")[:4]


def call_data(signature, types, values):
    return "0x" + (keccak(text=signature)[:4] + encode(types, values)).hex()


@pytest_twisted.inlineCallbacks
def eth_call(node, data):
    _, reply = yield rpc(node, "eth_call", {"from": DEV0, "to": TO, "data": data}, "latest")
    return reply


@pytest_twisted.inlineCallbacks
def test_hex_to_bech32_and_back_with_any_prefix(node):
    raw = bytes.fromhex(DEV0[2:])
    for prefix in ("chain", "chainvaloper", "cosmos"):
        reply = yield eth_call(node, call_data("hexToBech32(address,string)", ["address", "string"], [DEV0, prefix]))
        (text,) = decode(["string"], bytes.fromhex(reply["result"][2:]))
        assert text == to_bech32(prefix, raw)
        reply = yield eth_call(node, call_data("bech32ToHex(string)", ["string"], [text]))
        (back,) = decode(["address"], bytes.fromhex(reply["result"][2:]))
        assert back == DEV0.lower()
    _, gas = yield rpc(node, "eth_estimateGas", {"from": DEV0, "to": TO, "data": call_data(
        "bech32ToHex(string)", ["string"], [to_bech32("chain", raw)])})
    assert int(gas["result"], 16) > 21000 + 6000


@pytest_twisted.inlineCallbacks
def test_bad_arguments_revert_with_the_reason(node):
    reply = yield eth_call(node, call_data("hexToBech32(address,string)", ["address", "string"], [DEV0, " "]))
    assert reply["error"]["code"] == 3 and "invalid bech32 human readable prefix" in reply["error"]["message"]
    reply = yield eth_call(node, call_data("bech32ToHex(string)", ["string"], ["nothing"]))
    assert reply["error"]["message"] == "execution reverted: invalid bech32 address: nothing"
    assert reply["error"]["data"].startswith("0x" + ERROR.hex())
    reply = yield eth_call(node, call_data("bech32ToHex(string)", ["string"], ["chain1qqqqqqqq"]))
    assert "decoding bech32 failed" in reply["error"]["message"]
    reply = yield eth_call(node, "0x12345678")
    assert reply["error"]["message"] == "execution reverted: no method with id: 0x12345678"
