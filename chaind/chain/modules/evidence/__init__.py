"""x/evidence (Cosmos SDK v0.50): the misbehavior consensus reports (duplicate votes), punished through
x/slashing and kept as Equivocations; cosmos.evidence.v1beta1.Query."""

from chaind.chain.module import Module, QueryService, Store
from chaind.chain.modules.evidence import store_layout
from chaind.chain.modules.evidence.begin_block import begin_block
from chaind.chain.modules.evidence.genesis import GENESIS
from chaind.chain.modules.evidence.keeper import EvidenceKeeper
from chaind.chain.modules.evidence.query import EvidenceQuery
from chaind.pb.cosmos.evidence.v1beta1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "EvidenceKeeper")

MODULE = Module(
    name="evidence",
    keeper=lambda app: EvidenceKeeper(app.keepers["staking"], app.keepers["slashing"]),
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: EvidenceQuery(app)),),
    genesis=GENESIS,
    begin_block=begin_block,
    store=Store("evidence", layout=store_layout.layout),
    cli="chaind.chain.modules.evidence.cli",
)
