"""The console filter scripts (geth/Evmos tracing docs), verbatim, over JSON-RPC on committed txs of a real node.

Expected lines are read off the StoreContract listing (tests/contracts.py): pcs, ops, slots, values.
"""

import pytest_twisted

from chaind.tracing.js.examples import ALL_OPS, STORAGE_OPS, STORAGE_VALUES
from contracts import VALUE, store_read_revert
from evm_client import DEBUG, rpc, w3
from helpers import in_thread

FAULT = 'FAULT: {"op":{},"stack":{},"memory":{},"contract":{}}'

# StoreContract's paths: a non-zero word is stored in slot 0, empty calldata reads it, a zero word reverts.
STORE_OPS = ["0:CALLDATASIZE", "1:PUSH1", "3:JUMPI", "15:JUMPDEST", "16:PUSH1", "18:CALLDATALOAD", "19:DUP1",
             "20:PUSH1", "22:JUMPI", "33:JUMPDEST", "34:DUP1", "35:PUSH1", "37:SSTORE", "38:PUSH1", "40:MSTORE",
             "41:PUSH32", "74:PUSH1", "76:PUSH1", "78:LOG1", "79:STOP"]
READ_OPS = ["0:CALLDATASIZE", "1:PUSH1", "3:JUMPI", "4:PUSH1", "6:SLOAD", "7:PUSH1", "9:MSTORE", "10:PUSH1",
            "12:PUSH1", "14:RETURN"]
REVERT_OPS = STORE_OPS[:9] + ["23:PUSH1", "25:PUSH1", "27:MSTORE", "28:PUSH1", "30:PUSH1", "32:REVERT", FAULT]


@pytest_twisted.inlineCallbacks
def test_the_three_filter_scripts_over_json_rpc(node_factory):
    node = node_factory(json_rpc=DEBUG)
    txs = yield in_thread(store_read_revert, w3(node))
    expected = {
        ALL_OPS: [STORE_OPS, READ_OPS, REVERT_OPS],
        STORAGE_OPS: [["37: SSTORE"], ["6: SLOAD"], [FAULT]],
        STORAGE_VALUES: [["37: SSTORE 0 <- %x" % VALUE], ["6: SLOAD 0"], [FAULT]],
    }
    for tracer, results in expected.items():
        for tx, result in zip(txs, results, strict=True):
            _, reply = yield rpc(node, "debug_traceTransaction", tx.transactionHash.to_0x_hex(), {"tracer": tracer})
            assert reply.get("result") == result, (tracer, tx.transactionHash.to_0x_hex(), reply)


@pytest_twisted.inlineCallbacks
def test_filter_lines_agree_with_the_raw_trace(node_factory):
    """The same tx's struct logs name the same pcs and ops, and the stack values the filter printed."""
    node = node_factory(json_rpc=DEBUG)
    stored, _, reverted = yield in_thread(store_read_revert, w3(node))
    for tx in (stored, reverted):
        tx_hash = tx.transactionHash.to_0x_hex()
        _, raw = yield rpc(node, "debug_traceTransaction", tx_hash)
        _, ops = yield rpc(node, "debug_traceTransaction", tx_hash, {"tracer": ALL_OPS})
        logs = raw["result"]["structLogs"]
        assert [line for line in ops["result"] if not line.startswith("FAULT")] == [
            "%d:%s" % (entry["pc"], entry["op"]) for entry in logs]
    logs = raw["result"]["structLogs"]
    assert logs[-1]["op"] == "REVERT" and raw["result"]["failed"] is True
    _, raw = yield rpc(node, "debug_traceTransaction", stored.transactionHash.to_0x_hex())
    sstore = next(entry for entry in raw["result"]["structLogs"] if entry["op"] == "SSTORE")
    assert sstore["stack"][-1] == "0" * 64 and int(sstore["stack"][-2], 16) == VALUE
