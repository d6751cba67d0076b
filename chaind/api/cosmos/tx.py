"""cosmos.tx.v1beta1.Service: txs by hash, by event query and by block, and broadcasting, as the SDK answers.

BroadcastTx hands the tx to the producer on the reactor (check_tx, then the mempool); sync mode
waits for that check, async does not. GetTxsEvent runs the event search CometBFT's tx_search runs
(chaind/store/search.py).
"""

import hashlib
import re

from google.protobuf import any_pb2
from twisted.internet import threads

from chaind import errors
from chaind.api.cosmos.tendermint import block_parts
from chaind.chain.errors import TxError
from chaind.chain.queries import DEFAULT_LIMIT, Reader, query
from chaind.errors import ChainError
from chaind.events import query as event_query
from chaind.gocompat import format_time
from chaind.pb.cosmos.base.abci.v1beta1 import abci_pb2
from chaind.pb.cosmos.base.query.v1beta1 import pagination_pb2
from chaind.pb.cosmos.tx.v1beta1 import service_pb2, service_pb2_grpc, tx_pb2
from chaind.pb.tendermint.abci import types_pb2 as abci_types
from chaind.store import search

_SYNC, _ASYNC, _BLOCK = (service_pb2.BROADCAST_MODE_SYNC, service_pb2.BROADCAST_MODE_ASYNC,
                         service_pb2.BROADCAST_MODE_BLOCK)
_ORDER = {service_pb2.ORDER_BY_ASC: "asc", service_pb2.ORDER_BY_DESC: "desc"}
# What the SDK (v0.47) accepted as one of the deprecated `events`.
_EVENT = re.compile(r"^[a-zA-Z_]+\.[a-zA-Z_]+[<>]?=\S+$")


class TxService(Reader, service_pb2_grpc.ServiceServicer):
    def __init__(self, app, comet, producer, reactor, comet_records=None):
        """comet: the [cometbft-rpc] settings (search limits); producer.submit(raw) checks a tx into the
        mempool, on the reactor; comet_records: as TendermintService takes it."""
        super().__init__(app)
        self.comet_records = comet_records
        self.comet = comet
        self.producer = producer
        self.reactor = reactor
        self.searcher = search.TxSearch(app)
        self.valcons_prefix = app.genesis.bech32_prefix + "valcons"

    def GetTx(self, request, context):
        try:
            tx_hash = bytes.fromhex(request.hash)
        except ValueError:
            tx_hash = b""
        if len(tx_hash) != 32:
            raise errors.invalid_argument(f"invalid tx hash {request.hash!r}: want 64 hex digits")
        position = self.app.tx_position(tx_hash)
        if position is None:
            raise errors.not_found(f"tx not found: {request.hash}")
        height, index = position
        raw = self.app.tx_at(height, index)
        tx = _tx(raw)
        return service_pb2.GetTxResponse(tx=tx, tx_response=self._response(height, index, raw, tx))

    def BroadcastTx(self, request, context):
        if not request.tx_bytes:
            raise errors.invalid_argument("invalid empty tx")
        if request.mode == _BLOCK:
            raise errors.invalid_argument("block broadcast mode is deprecated; use sync or async")
        if request.mode not in (_SYNC, _ASYNC):
            raise errors.invalid_argument(f"unsupported broadcast mode {request.mode}")
        raw = bytes(request.tx_bytes)
        txhash = hashlib.sha256(raw).hexdigest().upper()
        reactor = self.reactor
        if request.mode == _ASYNC:
            reactor.callFromThread(lambda: self.producer.submit(raw).addErrback(lambda failure: None))
            return service_pb2.BroadcastTxResponse(tx_response=abci_pb2.TxResponse(txhash=txhash))
        try:
            checked = threads.blockingCallFromThread(reactor, self.producer.submit, raw)
        except TxError as e:
            return service_pb2.BroadcastTxResponse(tx_response=abci_pb2.TxResponse(
                txhash=txhash, code=e.code, codespace=e.codespace, raw_log=e.log))
        return service_pb2.BroadcastTxResponse(tx_response=abci_pb2.TxResponse(
            txhash=txhash, gas_wanted=checked.gas))

    def Simulate(self, request, context):
        raw = bytes(request.tx_bytes)
        if not raw and request.HasField("tx"):
            # The deprecated `tx` field: re-encoded, as the SDK does (signatures may then not verify).
            tx = request.tx
            raw = tx_pb2.TxRaw(body_bytes=tx.body.SerializeToString(), auth_info_bytes=tx.auth_info.SerializeToString(),
                               signatures=tx.signatures).SerializeToString()
        if not raw:
            raise errors.invalid_argument("empty txBytes is not allowed")
        try:
            result = self.app.simulate(raw)
        except TxError as e:
            raise errors.failed(f"{e.log} with gas used: '0'") from None
        if result.code:
            raise errors.failed(f"{result.log} with gas used: '{result.gas_used}'")
        return service_pb2.SimulateResponse(
            gas_info=abci_pb2.GasInfo(gas_wanted=result.gas_wanted, gas_used=result.gas_used),
            result=abci_pb2.Result(data=result.data, log=result.log, events=_events(result),
                                   msg_responses=abci_pb2.TxMsgData.FromString(result.data).msg_responses))

    def GetTxsEvent(self, request, context):
        """v0.50's `query` (a CometBFT query); without one, v0.47's `events` joined by AND, paged by `pagination`."""
        legacy = not request.query and len(request.events) > 0
        text, page, limit = self._search_terms(request, legacy)
        # The SDK passes CometBFT's errors on as Internal.
        if len(text.encode()) > self.comet.max_query_length:
            raise errors.internal("maximum query length exceeded")
        try:
            found = self.searcher.positions(event_query.parse(text))
            if _ORDER.get(request.order_by) == "desc":
                found.reverse()
            start, stop = search.page_bounds(len(found), page, limit, self.comet.default_per_page,
                                             self.comet.max_per_page)
        except (ChainError, event_query.QueryError) as e:
            raise errors.internal(str(e)) from None
        txs, responses = [], []
        for height, index in found[start:stop]:
            raw = self.app.tx_at(height, index)
            tx = _tx(raw)
            txs.append(tx)
            responses.append(self._response(height, index, raw, tx))
        response = service_pb2.GetTxsEventResponse(txs=txs, tx_responses=responses, total=len(found))
        if legacy:
            response.pagination.CopyFrom(pagination_pb2.PageResponse(total=len(found)))
        return response

    @staticmethod
    def _search_terms(request, legacy):
        """(query text, page, limit) as the SDK hands them to CometBFT's TxSearch."""
        if not legacy:
            if not request.query:
                raise errors.internal("query cannot be empty")
            return request.query, request.page or 1, request.limit or DEFAULT_LIMIT
        for event in request.events:
            if not _EVENT.match(event):
                raise errors.invalid_argument(f"invalid event; event {event} should be of "
                                              "the format: {eventType}.{eventAttribute}={value}")
        page_request = request.pagination
        limit = request.limit or page_request.limit or DEFAULT_LIMIT
        page = request.page or page_request.offset // limit + 1
        return " AND ".join(request.events), page, limit

    @query
    def GetBlockWithTxs(self, request, view):
        if request.height < 1 or request.height > view.height:
            raise errors.failed(f"invalid height: requested height {request.height} but height "
                                "must not be less than 1 or greater than the current height "
                                f"{view.height}")
        parts = block_parts(self.app, request.height, self.valcons_prefix, self.comet_records)
        raw_txs = parts["block"].data.txs
        offset, limit = request.pagination.offset, request.pagination.limit or DEFAULT_LIMIT
        if offset >= len(raw_txs) and raw_txs:
            raise errors.failed(f"invalid request: out of range: cannot paginate "
                                f"{len(raw_txs)} txs with offset {offset} and limit {limit}")
        # Reverse pages count from the block's last tx (the SDK's own reverse loop skips tx 0).
        ordered = raw_txs[::-1] if request.pagination.reverse else raw_txs
        return service_pb2.GetBlockWithTxsResponse(
            txs=[_tx(raw) for raw in ordered[offset:offset + limit]], block_id=parts["block_id"],
            block=parts["block"], pagination=pagination_pb2.PageResponse(total=len(raw_txs)))

    def _response(self, height, index, raw, tx):
        result = self.app.result_at(height, index)
        header, _ = self.app.block_at(height)
        return abci_pb2.TxResponse(
            height=height, txhash=hashlib.sha256(raw).hexdigest().upper(), codespace=result.codespace,
            code=result.code, data=result.data.hex().upper(), raw_log=result.log, gas_wanted=result.gas_wanted,
            gas_used=result.gas_used, tx=any_pb2.Any(type_url="/cosmos.tx.v1beta1.Tx", value=tx.SerializeToString()),
            timestamp=format_time(header.time_ns),
            events=_events(result))


def _events(result):
    return [abci_types.Event(type=e.type, attributes=[abci_types.EventAttribute(key=k, value=v, index=bool(i))
                                                      for k, v, i in e.attributes]) for e in result.events]


def _tx(raw):
    tx_raw = tx_pb2.TxRaw.FromString(raw)
    return tx_pb2.Tx(body=tx_pb2.TxBody.FromString(tx_raw.body_bytes),
                     auth_info=tx_pb2.AuthInfo.FromString(tx_raw.auth_info_bytes), signatures=tx_raw.signatures)
