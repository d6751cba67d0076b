"""blockOverrides on eth_call, eth_estimateGas and debug_traceCall: applied, or refused by name."""

import pytest_twisted

from evm_client import rpc

PROBE = "0x" + "66" * 20
# TIMESTAMP, NUMBER, COINBASE, BASEFEE, PREVRANDAO stored at 0, 32, 64, 96, 128; return 160 bytes.
PROBE_CODE = "0x" + "4260005243602052416040524860605244608052" + "60a06000f3"
STATE = {PROBE: {"code": PROBE_CODE}}
BLOCK = {"time": "0x1234", "number": "0x99", "feeRecipient": "0x" + "77" * 20, "prevRandao": "0x" + "88" * 32}


def words(hex_output):
    raw = bytes.fromhex(hex_output[2:])
    return [int.from_bytes(raw[i:i + 32], "big") for i in range(0, len(raw), 32)]


@pytest_twisted.inlineCallbacks
def test_block_overrides_are_applied(node):
    _, plain = yield rpc(node, "eth_call", {"to": PROBE}, "latest", STATE)
    time_now, number, *_ = words(plain["result"])
    assert number == node.app.height and time_now == node.app.head[0].time_ns // 10**9
    _, reply = yield rpc(node, "eth_call", {"to": PROBE}, "latest", STATE, BLOCK)
    assert words(reply["result"]) == [0x1234, 0x99, int("77" * 20, 16), 0, int("88" * 32, 16)]
    _, estimate = yield rpc(node, "eth_estimateGas", {"to": PROBE}, "latest", STATE, {"gasLimit": "0x100000"})
    assert int(estimate["result"], 16) > 21000
    _, trace = yield rpc(node, "debug_traceCall", {"to": PROBE}, "latest",
                         {"stateOverrides": STATE, "blockOverrides": BLOCK})
    assert words("0x" + trace["result"]["returnValue"].removeprefix("0x"))[:2] == [0x1234, 0x99]


@pytest_twisted.inlineCallbacks
def test_unsupported_block_overrides_are_refused(node):
    for method, params in (("eth_call", [{"to": PROBE}, "latest", STATE, {"blobBaseFee": "0x1"}]),
                           ("eth_estimateGas", [{"to": PROBE}, "latest", None, {"withdrawals": []}]),
                           ("debug_traceCall", [{"to": PROBE}, "latest", {"blockOverrides": {"beaconRoot": "0x00"}}]),
                           ("eth_call", [{"to": PROBE}, "latest", None, {"time": "soon"}]),
                           ("eth_call", [{"to": PROBE}, "latest", None, {"baseFeePerGas": "0x7"}])):
        _, reply = yield rpc(node, method, *params)
        assert reply["error"]["code"] == -32602, (method, reply)
    _, reply = yield rpc(node, "eth_call", {"to": PROBE}, "latest", STATE, {"blobBaseFee": "0x1"})
    assert "blobBaseFee" in reply["error"]["message"]
