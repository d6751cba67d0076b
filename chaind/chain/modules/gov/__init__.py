"""x/gov v1 (Cosmos SDK v0.50): proposals carrying any registered messages, deposits, votes, the staking-power
tally and the execution of passed proposals as the gov module account; cosmos.gov.v1.Query.
"""

from chaind.chain.module import Module, QueryService
from chaind.chain.modules.gov import legacy, precompile
from chaind.chain.modules.gov.end_block import end_block
from chaind.chain.modules.gov.genesis import GENESIS
from chaind.chain.modules.gov.invariants import INVARIANTS
from chaind.chain.modules.gov.keeper import GOV, GovKeeper, time_reach
from chaind.chain.modules.gov.msgs import MESSAGES
from chaind.chain.modules.gov.query import GovQuery
from chaind.chain.modules.gov.query_v1beta1 import GovQueryV1Beta1
from chaind.pb.cosmos.gov.v1 import query_pb2, query_pb2_grpc
from chaind.pb.cosmos.gov.v1beta1 import query_pb2 as v1beta1_query
from chaind.pb.cosmos.gov.v1beta1 import query_pb2_grpc as v1beta1_grpc

__all__ = ("MODULE", "GOV", "GovKeeper")

MODULE = Module(
    name="gov",
    keeper=lambda app: GovKeeper(),
    messages=MESSAGES + legacy.MESSAGES,
    amino_shapes=legacy.AMINO_SHAPES,
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: GovQuery(app)),
              QueryService(v1beta1_query, v1beta1_grpc, "Query", lambda app, settings: GovQueryV1Beta1(app))),
    genesis=GENESIS,
    end_block=end_block,
    module_accounts={"gov": (GOV, ("burner",))},
    invariants=INVARIANTS,
    precompiles={precompile.ADDRESS: precompile.run},
    cli="chaind.chain.modules.gov.cli",
    time_reach=time_reach,
)
