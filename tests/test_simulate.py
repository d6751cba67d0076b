"""eth_simulateV1 against a real node, as geth answers it: blocks of calls with block and state overrides,
the state carried from block to block, traceTransfers, validation and its error codes, and every limit."""


import pytest_twisted
from eth_keys import keys
from eth_utils import keccak

from contracts import RUNTIME, STORED
from evm_client import DEV0, DEV0_KEY, rpc
from helpers import until_height

STORE = "0x" + "5a" * 20
TARGET = "0x" + "22" * 20
MOVED = "0x" + "00" * 19 + "99"
ECRECOVER = "0x" + "00" * 19 + "01"
# BLOCKHASH(NUMBER - 1) as the 32 bytes returned.
PARENT_HASH_CODE = "0x600143034060005260206000f3"


def _word(n):
    return "0x" + n.to_bytes(32, "big").hex()


def simulate(node, opts, block="latest"):
    """The reply object of eth_simulateV1."""
    return rpc(node, "eth_simulateV1", opts, block).addCallback(lambda reply: reply[1])


def ok(reply):
    assert "error" not in reply, reply
    return reply["result"]


@pytest_twisted.inlineCallbacks
def test_blocks_of_calls_carry_state_and_answer_as_geth(node):
    head = node.app.height
    header, _ = node.app.block_at(head)
    blocks = ok((yield simulate(node, {
        "traceTransfers": True, "returnFullTransactions": True,
        "blockStateCalls": [
            {"stateOverrides": {STORE: {"code": "0x" + RUNTIME.hex()}},
             "calls": [{"from": DEV0, "to": TARGET, "value": "0x7"},
                       {"from": DEV0, "to": STORE, "input": _word(5)},
                       {"from": DEV0, "to": STORE, "input": _word(0)}]},
            {"blockOverrides": {"number": hex(head + 3), "feeRecipient": TARGET},
             "stateOverrides": {"0x" + "77" * 20: {"code": PARENT_HASH_CODE}},
             "calls": [{"from": DEV0, "to": STORE}, {"from": DEV0, "to": "0x" + "77" * 20},
                       {"to": STORE, "gas": "0x5300"}]}]})))
    # The second block asked for head + 3: the gap is filled with an empty block.
    assert [int(b["number"], 16) for b in blocks] == [head + 1, head + 2, head + 3]
    start = header.time_ns // 10**9
    assert [int(b["timestamp"], 16) for b in blocks] == [start + 12, start + 24, start + 36]
    assert blocks[0]["parentHash"] == "0x" + node.app.block_at(head)[1].hash.hex()
    assert [b["parentHash"] for b in blocks[1:]] == [b["hash"] for b in blocks[:-1]]
    assert blocks[1]["calls"] == [] and blocks[1]["transactions"] == []
    first, last = blocks[0], blocks[2]
    assert set(first) >= {"number", "hash", "parentHash", "logsBloom", "stateRoot", "transactionsRoot",
                          "receiptsRoot", "miner", "gasLimit", "gasUsed", "timestamp", "baseFeePerGas",
                          "transactions", "calls", "size"}
    send, store, revert = first["calls"]
    # A plain transfer: with traceTransfers, ERC-7528's Transfer pseudo-log.
    assert send["status"] == "0x1" and send["gasUsed"] == "0x5208" and send["returnData"] == "0x"
    (transfer,) = send["logs"]
    assert transfer["address"].lower() == "0x" + "ee" * 20
    assert transfer["topics"] == ["0x" + keccak(b"Transfer(address,address,uint256)").hex(),
                                  "0x" + "00" * 12 + DEV0[2:].lower(), "0x" + "00" * 12 + TARGET[2:]]
    assert transfer["data"] == _word(7) and transfer["blockHash"] == first["hash"]
    assert transfer["logIndex"] == "0x0" and transfer["transactionIndex"] == "0x0"
    # The store emits its log; the reverting call has the revert's code 3 and data.
    assert store["status"] == "0x1" and [log["topics"] for log in store["logs"]] == [["0x" + STORED.hex()]]
    assert store["logs"][0]["logIndex"] == "0x1"
    assert revert["status"] == "0x0" and revert["logs"] == []
    assert revert["error"] == {"code": 3, "message": "execution reverted", "data": _word(42)}
    assert int(first["gasUsed"], 16) == sum(int(c["gasUsed"], 16) for c in first["calls"])
    full = first["transactions"][1]
    assert full["from"] == DEV0 and full["to"].lower() == STORE and full["input"] == _word(5)
    assert full["hash"] == store["logs"][0]["transactionHash"] and full["blockHash"] == first["hash"]
    # The last block sees the first one's state, its own coinbase, and its parent's hash through BLOCKHASH.
    read, parent, starved = last["calls"]
    assert read["returnData"] == _word(5)
    assert parent["returnData"] == blocks[1]["hash"]
    assert last["miner"].lower() == TARGET
    assert starved["status"] == "0x0" and starved["error"] == {"code": -32015, "message": "out of gas"}
    # Nothing was written.
    assert ok((yield simulate(node, {"blockStateCalls": [{"calls": [{"to": STORE}]}]})))[0]["calls"][0][
        "returnData"] == "0x"
    assert node.app.height == head


@pytest_twisted.inlineCallbacks
def test_a_precompile_moves_and_its_address_runs_code(node):
    digest = keccak(b"simulate")
    signature = keys.PrivateKey(bytes.fromhex(DEV0_KEY[2:])).sign_msg_hash(digest)
    recover = "0x" + (digest + (27 + signature.v).to_bytes(32, "big") + signature.r.to_bytes(32, "big")
                      + signature.s.to_bytes(32, "big")).hex()
    blocks = ok((yield simulate(node, {"blockStateCalls": [
        {"stateOverrides": {ECRECOVER: {"code": "0x602a60005260206000f3", "movePrecompileToAddress": MOVED}},
         "calls": [{"to": ECRECOVER}, {"to": MOVED, "input": recover}]},
        {"calls": [{"to": ECRECOVER, "input": recover}, {"to": MOVED, "input": recover}]}]})))
    moved_code, moved_precompile = blocks[0]["calls"]
    assert moved_code["returnData"] == _word(42)
    assert moved_precompile["returnData"] == "0x" + "00" * 12 + DEV0[2:].lower()
    # Precompiles are a block's: in the next, ecrecover is back at 0x01 (it answers before the code the
    # override left there, as geth's) and 0x99 is a plain account again.
    back, gone = blocks[1]["calls"]
    assert back["returnData"] == moved_precompile["returnData"] and gone["returnData"] == "0x"
    reply = yield simulate(node, {"blockStateCalls": [
        {"stateOverrides": {TARGET: {"movePrecompileToAddress": MOVED}}}]})
    assert reply["error"]["code"] == -32000 and "is not a precompile" in reply["error"]["message"]
    # The native modules' precompiles (staking's at 0x..0800) answer for their module at their own address only.
    reply = yield simulate(node, {"blockStateCalls": [
        {"stateOverrides": {"0x" + "00" * 18 + "0800": {"movePrecompileToAddress": MOVED}}}]})
    assert reply["error"]["code"] == -32000 and "native module's precompile" in reply["error"]["message"]


@pytest_twisted.inlineCallbacks
def test_validation_and_its_error_codes(node):
    poor = "0x" + "44" * 20
    nonce = int(ok((yield rpc(node, "eth_getTransactionCount", DEV0, "latest"))[1]), 16)
    cases = [
        ({"validation": True, "blockStateCalls": [{"calls": [{"from": DEV0, "to": TARGET, "nonce": hex(nonce + 5),
                                                               "maxFeePerGas": "0x3b9aca00"}]}]}, -38011,
         f"nonce too high: address {DEV0}, tx: {nonce + 5} state: {nonce}"),
        ({"validation": True, "blockStateCalls": [{"calls": [{"from": DEV0, "to": TARGET}]}]}, -38012,
         "max fee per gas less than block base fee"),
        ({"blockStateCalls": [{"calls": [{"from": poor, "to": TARGET, "value": "0x1"}]}]}, -38014,
         f"insufficient funds for gas * price + value: address {'0x' + '44' * 20}"),
        ({"blockStateCalls": [{"calls": [{"from": DEV0, "to": TARGET, "gas": "0x5000"}]}]}, -38013,
         "intrinsic gas too low: have 20480, want 21000"),
        ({"blockStateCalls": [{"blockOverrides": {"gasLimit": "0x6000"},
                               "calls": [{"to": TARGET, "gas": "0x5208"}, {"to": TARGET, "gas": "0x5208"}]}]},
         -38015, "block gas limit reached: remaining: 3576, required: 21000"),
        ({"blockStateCalls": [{"blockOverrides": {"number": "0x1"}}]}, -38020, "block numbers must be in order"),
        ({"blockStateCalls": [{}, {"blockOverrides": {"time": "0x1"}}]}, -38021, "block timestamps must be in order"),
        ({"blockStateCalls": []}, -32602, "empty input"),
        ({"blockStateCalls": [{"calls": [{"to": TARGET, "blobVersionedHashes": []}]}]}, -32602,
         "unknown call field 'blobVersionedHashes'"),
        ({"blockStateCalls": [{"blockOverrides": {"baseFeePerGas": "0x1"}}]}, -32602, "needs validation"),
        ({"blockStateCalls": [{"blockOverrides": {"beaconRoot": "0x" + "00" * 32}}]}, -32602, "beacon root"),
        ({"blockStateCalls": [], "stateOverrides": {}}, -32602, "unknown simulation option 'stateOverrides'"),
    ]
    for opts, code, message in cases:
        reply = yield simulate(node, opts)
        assert reply["error"]["code"] == code and message in reply["error"]["message"], (opts, reply)
    # With validation and fees that cover the base fee, the call is charged and its nonce must be right.
    base_fee = int(ok((yield rpc(node, "eth_getBlockByNumber", "latest", False))[1])["baseFeePerGas"], 16)
    blocks = ok((yield simulate(node, {"validation": True, "blockStateCalls": [{"calls": [
        {"from": DEV0, "to": TARGET, "maxFeePerGas": hex(base_fee * 4), "maxPriorityFeePerGas": "0x1"},
        {"from": DEV0, "to": TARGET, "maxFeePerGas": hex(base_fee * 4), "nonce": hex(nonce + 1)}]}]})))
    assert [c["status"] for c in blocks[0]["calls"]] == ["0x1", "0x1"]
    assert int(blocks[0]["baseFeePerGas"], 16) > 0


@pytest_twisted.inlineCallbacks
def test_every_limit_is_a_setting(node_factory):
    node = node_factory(json_rpc={"simulate_max_blocks": 3, "simulate_max_calls_per_block": 2,
                                  "simulate_max_calls": 3, "gas_cap": 50000})
    yield until_height(node, 1)
    call = {"to": TARGET}
    for opts, message in (
            ({"blockStateCalls": [{}] * 4}, "too many blocks"),
            ({"blockStateCalls": [{"blockOverrides": {"number": hex(node.app.height + 4)}}]}, "too many blocks"),
            ({"blockStateCalls": [{"calls": [call] * 3}]}, "too many calls in block: 3 > 2"),
            ({"blockStateCalls": [{"calls": [call] * 2}, {"calls": [call] * 2}]}, "too many calls: 4 > 3")):
        reply = yield simulate(node, opts)
        assert reply["error"] == {"code": -38026, "message": message}, reply
    assert len(ok((yield simulate(node, {"blockStateCalls": [{}] * 3})))) == 3
    # The gas cap is one budget for every call of the request.
    # Calls without gas get what is left of it: 50,000, then 29,000, then 8,000, too little for the third.
    reply = yield simulate(node, {"blockStateCalls": [{"calls": [call, call]}, {"calls": [call]}]})
    assert reply["error"] == {"code": -38013, "message": "intrinsic gas too low: have 8000, want 21000"}, reply
