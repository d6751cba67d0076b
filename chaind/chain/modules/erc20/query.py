"""evmos.erc20.v1.Query: token pairs and params, as Evmos v20's x/erc20 gRPC querier answers them."""

from chaind import errors
from chaind.chain.modules.erc20 import keeper as erc20
from chaind.chain.queries import Reader, paginate, query
from chaind.errors import ChainError
from chaind.pb.evmos.erc20.v1 import query_pb2, query_pb2_grpc


class Erc20Query(Reader, query_pb2_grpc.QueryServicer):
    @query
    def TokenPairs(self, request, view):
        # Pairs in id order, next_key an id: the store Evmos' query.Paginate walks.
        try:
            pairs, page = paginate(self.app.keepers["erc20"].all_pairs(view), request.pagination)
        except ChainError as e:
            # Evmos answers any pagination error with Internal and the bare message.
            raise errors.internal(e.message.removeprefix("paginate: ")) from None
        return query_pb2.QueryTokenPairsResponse(token_pairs=pairs, pagination=page)

    @query(inline=True)
    def TokenPair(self, request, view):
        token = request.token
        if not erc20.is_hex_address(token) and not erc20.is_denom(token):
            raise errors.invalid_argument(
                f"invalid format for token {token}, should be either hex ('0x...') cosmos denom")
        pair = self.app.keepers["erc20"].pair_of(view, token)
        if pair is None:
            raise errors.not_found(f"token pair with token '{token}'")
        return query_pb2.QueryTokenPairResponse(token_pair=pair)

    @query(inline=True)
    def Params(self, request, view):
        return query_pb2.QueryParamsResponse(params=self.app.keepers["erc20"].params(view))
