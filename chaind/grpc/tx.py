"""cosmos.tx.v1beta1.Service: GetTx and BroadcastTx, as the SDK's tx service answers them.

BroadcastTx hands the tx to the producer on the reactor (check_tx, then the mempool); sync mode
waits for that check, async does not. The other methods answer Unimplemented for now.
"""

import hashlib

import grpc
from google.protobuf import any_pb2
from twisted.internet import threads

from chaind.chain.errors import TxError
from chaind.chain.genesis import format_time
from chaind.pb.cosmos.base.abci.v1beta1 import abci_pb2
from chaind.pb.cosmos.tx.v1beta1 import service_pb2, service_pb2_grpc, tx_pb2
from chaind.pb.tendermint.abci import types_pb2 as abci_types

_SYNC, _ASYNC, _BLOCK = (service_pb2.BROADCAST_MODE_SYNC, service_pb2.BROADCAST_MODE_ASYNC,
                         service_pb2.BROADCAST_MODE_BLOCK)


class TxService(service_pb2_grpc.ServiceServicer):
    def __init__(self, node):
        self.node = node
        self.app = node.app

    def GetTx(self, request, context):
        try:
            tx_hash = bytes.fromhex(request.hash)
        except ValueError:
            tx_hash = b""
        if len(tx_hash) != 32:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"invalid tx hash {request.hash!r}: want 64 hex digits")
        position = self.app.tx_position(tx_hash)
        if position is None:
            context.abort(grpc.StatusCode.NOT_FOUND, f"tx not found: {request.hash}")
        height, index = position
        raw = self.app.tx_at(height, index)
        tx = _tx(raw)
        return service_pb2.GetTxResponse(tx=tx, tx_response=self._response(height, index, raw, tx))

    def BroadcastTx(self, request, context):
        if not request.tx_bytes:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "invalid empty tx")
        if request.mode == _BLOCK:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "block broadcast mode is deprecated; use sync or async")
        if request.mode not in (_SYNC, _ASYNC):
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"unsupported broadcast mode {request.mode}")
        raw = bytes(request.tx_bytes)
        txhash = hashlib.sha256(raw).hexdigest().upper()
        reactor = self.node.reactor
        if request.mode == _ASYNC:
            reactor.callFromThread(lambda: self.node.producer.submit(raw).addErrback(lambda failure: None))
            return service_pb2.BroadcastTxResponse(tx_response=abci_pb2.TxResponse(txhash=txhash))
        try:
            checked = threads.blockingCallFromThread(reactor, self.node.producer.submit, raw)
        except TxError as e:
            return service_pb2.BroadcastTxResponse(tx_response=abci_pb2.TxResponse(
                txhash=txhash, code=e.code, codespace=e.codespace, raw_log=e.log))
        return service_pb2.BroadcastTxResponse(tx_response=abci_pb2.TxResponse(
            txhash=txhash, gas_wanted=checked.gas))

    def _response(self, height, index, raw, tx):
        result = self.app.result_at(height, index)
        header, _ = self.app.block_at(height)
        return abci_pb2.TxResponse(
            height=height, txhash=hashlib.sha256(raw).hexdigest().upper(), codespace=result.codespace,
            code=result.code, data=result.data.hex().upper(), raw_log=result.log, gas_wanted=result.gas_wanted,
            gas_used=result.gas_used, tx=any_pb2.Any(type_url="/cosmos.tx.v1beta1.Tx", value=tx.SerializeToString()),
            timestamp=format_time(header.time_ns),
            events=[abci_types.Event(type=e.type, attributes=[
                abci_types.EventAttribute(key=k, value=v, index=bool(i)) for k, v, i in e.attributes])
                for e in result.events])


def _tx(raw):
    tx_raw = tx_pb2.TxRaw.FromString(raw)
    return tx_pb2.Tx(body=tx_pb2.TxBody.FromString(tx_raw.body_bytes),
                     auth_info=tx_pb2.AuthInfo.FromString(tx_raw.auth_info_bytes), signatures=tx_raw.signatures)
