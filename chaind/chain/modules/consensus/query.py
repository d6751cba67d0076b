"""cosmos.consensus.v1.Query: the consensus params in state at the asked height, as x/consensus answers; cosmpy's
gas estimate reads block.max_gas here."""

from chaind.chain.modules.consensus import params as cp
from chaind.chain.queries import Reader, query
from chaind.errors import not_found
from chaind.pb.cosmos.consensus.v1 import query_pb2, query_pb2_grpc


class ConsensusQuery(Reader, query_pb2_grpc.QueryServicer):
    @query(inline=True)
    def Params(self, request, view):
        raw = self.app.keepers["consensus"].stored(view)
        if raw is None:
            raise not_found("consensus params not found")
        return query_pb2.QueryParamsResponse(params=cp.decoded(raw))
