"""ibc.applications.transfer.v1.Query as ibc-go v8.5's transfer querier answers: denom traces (all, paged over
their hashes, and one by hash or `ibc/` denom), the hash of a trace, a channel's escrow address, the total escrow
of a denom, the params."""

from chaind import errors
from chaind.chain.errors import TxError
from chaind.chain.modules.transfer import denoms
from chaind.chain.modules.transfer.keeper import NAME
from chaind.chain.queries import Reader, paginate, query
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.ibc.applications.transfer.v1 import query_pb2, query_pb2_grpc


class TransferQuery(Reader, query_pb2_grpc.QueryServicer):
    def __init__(self, app):
        super().__init__(app)
        self.keeper = app.keepers[NAME]

    @query
    def DenomTraces(self, request, view):
        items = sorted((denoms.trace_hash(trace), trace) for trace in self.keeper.denom_traces(view))
        taken, page = paginate([(bytes(digest), trace) for digest, trace in items], request.pagination)
        return query_pb2.QueryDenomTracesResponse(denom_traces=sorted(taken, key=denoms.full_path), pagination=page)

    @query(inline=True)
    def DenomTrace(self, request, view):
        try:
            digest = denoms.parse_hex_hash(request.hash.removeprefix("ibc/"))
        except TxError as error:
            raise errors.invalid_argument(f"invalid denom trace hash: , error: {error.log}") from None
        trace = self.keeper.denom_trace(view, digest)
        if trace is None:
            raise errors.not_found(f"{request.hash}: denomination trace not found")
        return query_pb2.QueryDenomTraceResponse(denom_trace=trace)

    @query(inline=True)
    def Params(self, request, view):
        return query_pb2.QueryParamsResponse(params=self.keeper.params(view))

    @query(inline=True)
    def DenomHash(self, request, view):
        trace = denoms.parse_trace(request.trace)
        try:
            denoms.validate_trace(trace)
        except TxError as error:
            raise errors.invalid_argument(error.log) from None
        digest = denoms.trace_hash(trace)
        if self.keeper.denom_trace(view, digest) is None:
            raise errors.not_found(f"{request.trace}: denomination trace not found")
        return query_pb2.QueryDenomHashResponse(hash=denoms.hash_text(digest))

    @query(inline=True)
    def EscrowAddress(self, request, view):
        address = denoms.escrow_address(request.port_id, request.channel_id)
        return query_pb2.QueryEscrowAddressResponse(escrow_address=self.keeper.bank.bech32(address))

    @query(inline=True)
    def TotalEscrowForDenom(self, request, view):
        try:
            denoms.validate_sdk_denom(request.denom)
        except TxError as error:
            raise errors.invalid_argument(error.log) from None
        amount = coin_pb2.Coin(denom=request.denom, amount=str(self.keeper.total_escrow(view, request.denom)))
        return query_pb2.QueryTotalEscrowForDenomResponse(amount=amount)
