"""cosmos.slashing.v1beta1.Query: params and validators' signing infos, as x/slashing's gRPC querier answers them."""

from chaind import errors
from chaind.chain.queries import Reader, address_bytes, paginate, query
from chaind.pb.cosmos.slashing.v1beta1 import query_pb2, query_pb2_grpc


class SlashingQuery(Reader, query_pb2_grpc.QueryServicer):
    @query(inline=True)
    def Params(self, request, view):
        return query_pb2.QueryParamsResponse(params=self.app.keepers["slashing"].params(view).proto())

    @query(inline=True)
    def SigningInfo(self, request, view):
        if not request.cons_address:
            raise errors.invalid_argument("invalid request")
        try:
            cons = address_bytes(request.cons_address, self.app.genesis.bech32_prefix + "valcons")
        except ValueError as e:
            raise errors.invalid_argument(str(e)) from None
        info = self.app.keepers["slashing"].signing_info(view, cons)
        if info is None:
            raise errors.not_found(f"SigningInfo not found for validator {request.cons_address}")
        return query_pb2.QuerySigningInfoResponse(val_signing_info=info)

    @query
    def SigningInfos(self, request, view):
        items = [(bytes([len(cons)]) + cons, info) for cons, info in self.app.keepers["slashing"].signing_infos(view)]
        found, page = paginate(items, request.pagination)
        return query_pb2.QuerySigningInfosResponse(info=found, pagination=page)
