"""x/consensus (Cosmos SDK v0.50): CometBFT's consensus params in state, changed by MsgUpdateParams from gov;
cosmos.consensus.v1.Query. The app reads the params each height runs with through params.raw_at."""

from chaind.chain.module import Module, QueryService, Store
from chaind.chain.modules.consensus import store_layout
from chaind.chain.modules.consensus.genesis import GENESIS
from chaind.chain.modules.consensus.keeper import ConsensusKeeper
from chaind.chain.modules.consensus.msgs import MESSAGES
from chaind.chain.modules.consensus.params import decoded, gas_limit, hash_of, key, of_document, raw_at
from chaind.chain.modules.consensus.query import ConsensusQuery
from chaind.pb.cosmos.consensus.v1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "ConsensusKeeper", "decoded", "gas_limit", "hash_of", "key", "of_document", "raw_at")

MODULE = Module(
    name="consensus",
    keeper=lambda app: ConsensusKeeper(),
    messages=MESSAGES,
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: ConsensusQuery(app)),),
    genesis=GENESIS,
    store=Store("consensus", layout=store_layout.layout),
    cli="chaind.chain.modules.consensus.cli",
)
