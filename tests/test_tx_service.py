"""cosmos.tx.v1beta1.Service over gRPC and REST: broadcast a signed native send, then find it by hash."""

import base64

import grpc
import pytest_twisted

from chaind.chain import txs
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_service
from helpers import in_thread, rest, until_tx
from native_client import grpc_call, signed_send


@pytest_twisted.inlineCallbacks
def test_broadcast_and_get_over_grpc(node):
    recipient = bytes([0x55]) * 20
    raw = signed_send(node, 4, recipient, 1234)
    sync = tx_service.BroadcastTxRequest(tx_bytes=raw, mode=tx_service.BROADCAST_MODE_SYNC)
    reply = yield in_thread(grpc_call, node, "BroadcastTx", sync)
    assert reply.tx_response.code == 0 and len(reply.tx_response.txhash) == 64
    yield until_tx(node, reply.tx_response.txhash)
    found = yield in_thread(grpc_call, node, "GetTx", tx_service.GetTxRequest(hash=reply.tx_response.txhash))
    response = found.tx_response
    assert response.code == 0 and response.height >= 1 and response.txhash == reply.tx_response.txhash
    assert found.tx.body.messages[0].type_url == txs.MSG_SEND
    assert any(e.type == "transfer" for e in response.events)
    assert node.app.view().accounts.get_balance(recipient) == 1234
    # The same tx again: refused by check_tx, as a result code (not a gRPC error).
    again = yield in_thread(grpc_call, node, "BroadcastTx", sync)
    assert again.tx_response.code != 0 and again.tx_response.raw_log
    garbage = yield in_thread(grpc_call, node, "BroadcastTx", tx_service.BroadcastTxRequest(
        tx_bytes=b"\x01\x02", mode=tx_service.BROADCAST_MODE_SYNC))
    assert garbage.tx_response.code != 0
    try:
        yield in_thread(grpc_call, node, "GetTx", tx_service.GetTxRequest(hash="00" * 32))
        raise AssertionError("expected NotFound")
    except grpc.RpcError as e:
        assert e.code() == grpc.StatusCode.NOT_FOUND


@pytest_twisted.inlineCallbacks
def test_broadcast_and_get_over_rest(node):
    raw = signed_send(node, 5, bytes([0x66]) * 20, 99)
    status, _, body = yield rest(node, "/cosmos/tx/v1beta1/txs",
                                 {"tx_bytes": base64.b64encode(raw).decode(), "mode": "BROADCAST_MODE_SYNC"})
    assert status == 200 and body["tx_response"]["code"] == 0
    txhash = body["tx_response"]["txhash"]
    yield until_tx(node, txhash)
    status, _, found = yield rest(node, f"/cosmos/tx/v1beta1/txs/{txhash}")
    assert status == 200
    assert found["tx_response"]["txhash"] == txhash and found["tx_response"]["code"] == 0
    assert found["tx_response"]["height"] == str(int(found["tx_response"]["height"]))
    status, _, body = yield rest(node, "/cosmos/tx/v1beta1/txs",
                                 {"tx_bytes": "", "mode": "BROADCAST_MODE_SYNC"})
    assert status == 400 and body["message"] == "invalid empty tx"
