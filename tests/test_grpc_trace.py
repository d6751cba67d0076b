"""ethermint.evm.v1 TraceTx and TraceBlock over gRPC, asked as Evmos' JSON-RPC asks them (the block's
MsgEthereumTxs from CometBFT's /block, the parent's height in the header), against debug_trace*."""

import base64
import json

import grpc
import pytest_twisted
from google.protobuf import timestamp_pb2

from chaind.chain import txs
from chaind.pb.cosmos.tx.v1beta1 import tx_pb2 as cosmos_tx
from chaind.pb.ethermint.evm.v1 import evm_pb2
from chaind.pb.ethermint.evm.v1 import query_pb2 as evm_q
from chaind.pb.ethermint.evm.v1 import query_pb2_grpc as evm_grpc
from chaind.pb.ethermint.evm.v1 import tx_pb2 as evm_tx
from contracts import INIT
from evm_client import OTHER, rpc, send, sign, w3
from helpers import call, comet, in_thread

EVM = evm_grpc.QueryStub
INVALID = grpc.StatusCode.INVALID_ARGUMENT


def _result(reply):
    assert "error" not in reply[1], reply[1]
    return reply[1]["result"]


def _block_context(node, height):
    """What Evmos' backend reads of a block to trace it: its MsgEthereumTxs and header fields."""
    block = comet(node, "block", height=str(height))["result"]
    msgs = []
    for tx in block["block"]["data"]["txs"]:
        body = cosmos_tx.TxBody.FromString(cosmos_tx.TxRaw.FromString(base64.b64decode(tx)).body_bytes)
        msgs.append(evm_tx.MsgEthereumTx.FromString(body.messages[0].value))
    header = block["block"]["header"]
    time = timestamp_pb2.Timestamp()
    time.FromJsonString(header["time"])
    return msgs, dict(block_number=height, block_hash=block["block_id"]["hash"], block_time=time,
                      proposer_address=bytes.fromhex(header["proposer_address"]), chain_id=9000)


@pytest_twisted.inlineCallbacks
def test_trace_tx_and_trace_block_answer_what_debug_trace_does(node):
    web3 = w3(node)
    deployed = yield in_thread(send, web3, {"data": INIT, "gas": 300000, "nonce": 0})
    contract = deployed.contractAddress
    # Two EVM txs in one block, so the second has a predecessor.
    assert _result((yield rpc(node, "evm_setAutomine", False))) is None
    hashes = []
    for nonce, word in ((1, 5), (2, 6)):
        raw = sign({"to": contract, "data": word.to_bytes(32, "big"), "gas": 100000, "nonce": nonce}).raw_transaction
        hashes.append(_result((yield rpc(node, "eth_sendRawTransaction", "0x" + raw.hex()))))
    _result((yield rpc(node, "evm_mine")))
    _result((yield rpc(node, "evm_setAutomine", True)))
    receipt = _result((yield rpc(node, "eth_getTransactionReceipt", hashes[1])))
    height = int(receipt["blockNumber"], 16)
    msgs, context = yield in_thread(_block_context, node, height)
    assert len(msgs) == 2

    # The struct logger (no tracer), then callTracer with its config as JSON.
    request = evm_q.QueryTraceTxRequest(msg=msgs[1], predecessors=msgs[:1], **context)
    answer, header = yield call(node, EVM, "TraceTx", request, height - 1)
    expected = _result((yield rpc(node, "debug_traceTransaction", hashes[1])))
    assert json.loads(answer.data) == expected and expected["structLogs"]
    config = evm_pb2.TraceConfig(tracer="callTracer", tracer_json_config='{"onlyTopCall": true}')
    answer, _ = yield call(node, EVM, "TraceTx", evm_q.QueryTraceTxRequest(
        msg=msgs[1], predecessors=msgs[:1], trace_config=config, **context), height - 1)
    assert json.loads(answer.data) == _result((yield rpc(node, "debug_traceTransaction", hashes[1],
                                                         {"tracer": "callTracer",
                                                          "tracerConfig": {"onlyTopCall": True}})))
    config = evm_pb2.TraceConfig(disable_stack=True, enable_memory=True, limit=3)
    answer, _ = yield call(node, EVM, "TraceTx", evm_q.QueryTraceTxRequest(msg=msgs[0], trace_config=config,
                                                                          **context))
    logged = json.loads(answer.data)["structLogs"]
    assert len(logged) == 3 and "stack" not in logged[0] and "memory" in logged[0]

    # TraceBlock: Evmos' [{"result": ...}] per tx, no txHash.
    answer, _ = yield call(node, EVM, "TraceBlock", evm_q.QueryTraceBlockRequest(
        txs=msgs, trace_config=evm_pb2.TraceConfig(tracer="callTracer"), **context), height - 1)
    by_number = _result((yield rpc(node, "debug_traceBlockByNumber", hex(height), {"tracer": "callTracer"})))
    assert json.loads(answer.data) == [{"result": entry["result"]} for entry in by_number]
    assert [entry["txHash"] for entry in by_number] == hashes

    # What the request says of the block must be so.
    for request, message in (
            (evm_q.QueryTraceTxRequest(msg=msgs[1], **context), "predecessors must be the 1 EVM transactions"),
            (evm_q.QueryTraceTxRequest(msg=msgs[1], predecessors=msgs[:1], **{**context, "block_number": 1}),
             "block_number 1: the transactions are in block"),
            (evm_q.QueryTraceTxRequest(msg=msgs[1], predecessors=msgs[:1], **{**context, "block_hash": "AB" * 32}),
             "block_hash"),
            (evm_q.QueryTraceTxRequest(msg=msgs[1], predecessors=msgs[:1], **{**context, "chain_id": 1}),
             "chain_id 1"),
            (evm_q.QueryTraceTxRequest(msg=msgs[0], trace_config=evm_pb2.TraceConfig(limit=-1)),
             "output limit cannot be negative, got -1"),
            (evm_q.QueryTraceTxRequest(msg=msgs[0], trace_config=evm_pb2.TraceConfig(tracer="noSuchTracer")),
             "noSuchTracer"),
            (evm_q.QueryTraceTxRequest(msg=msgs[0], trace_config=evm_pb2.TraceConfig(timeout="soon")), "soon"),
            (evm_q.QueryTraceTxRequest(), "msg is empty"),
            (evm_q.QueryTraceBlockRequest(txs=msgs[:1], **context), "txs must be the 2 EVM transactions"),
            (evm_q.QueryTraceBlockRequest(), "block_number (or block_hash) is required")):
        method = "TraceTx" if isinstance(request, evm_q.QueryTraceTxRequest) else "TraceBlock"
        answer, (code, text) = yield call(node, EVM, method, request)
        assert answer is None and code == INVALID and message in text, (method, text)
    # A signed tx this chain never saw; a MsgEthereumTx whose signature does not check.
    envelope = txs.wrap_evm(sign({"to": OTHER, "value": 1, "nonce": 40}).raw_transaction, 9000,
                            node.genesis.base_denom)
    unsent = evm_tx.MsgEthereumTx.FromString(
        cosmos_tx.TxBody.FromString(cosmos_tx.TxRaw.FromString(envelope.raw).body_bytes).messages[0].value)
    answer, (code, text) = yield call(node, EVM, "TraceTx", evm_q.QueryTraceTxRequest(msg=unsent))
    assert answer is None and code == grpc.StatusCode.NOT_FOUND and "not found" in text
    data = evm_tx.DynamicFeeTx.FromString(unsent.data.value)
    data.r = b""      # no signature at all
    unsent.data.value = data.SerializeToString()
    answer, (code, text) = yield call(node, EVM, "TraceTx", evm_q.QueryTraceTxRequest(msg=unsent))
    assert answer is None and code == INVALID and text.startswith("msg: "), text


@pytest_twisted.inlineCallbacks
def test_a_trace_larger_than_a_grpc_answer_may_hold_is_refused(node_factory):
    node = node_factory(tracing={"max_buffered_bytes": 1000})
    web3 = w3(node)
    deployed = yield in_thread(send, web3, {"data": INIT, "gas": 300000, "nonce": 0})
    msgs, context = yield in_thread(_block_context, node, deployed.blockNumber)
    answer, (code, text) = yield call(node, EVM, "TraceTx", evm_q.QueryTraceTxRequest(msg=msgs[0], **context))
    assert answer is None and code == grpc.StatusCode.RESOURCE_EXHAUSTED and "max-buffered-bytes" in text
    # A small answer still fits.
    answer, _ = yield call(node, EVM, "TraceTx", evm_q.QueryTraceTxRequest(
        msg=msgs[0], trace_config=evm_pb2.TraceConfig(tracer="callTracer",
                                                      tracer_json_config='{"onlyTopCall": true}'), **context))
    assert json.loads(answer.data)["type"] == "CREATE"
