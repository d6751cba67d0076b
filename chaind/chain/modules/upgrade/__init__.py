"""x/upgrade (Cosmos SDK v0.50): a plan the gov module account schedules, the chain stopping at its height
until this binary has a handler for it (handlers.py), applied plans and module versions; cosmos.upgrade.v1beta1.Query.
"""

from chaind.chain.module import Module, QueryService
from chaind.chain.modules.upgrade.abci import needed_message, pre_block, refusal_at_start
from chaind.chain.modules.upgrade.genesis import GENESIS
from chaind.chain.modules.upgrade.handlers import HANDLERS
from chaind.chain.modules.upgrade.keeper import UpgradeKeeper
from chaind.chain.modules.upgrade.msgs import MESSAGES
from chaind.chain.modules.upgrade.query import UpgradeQuery
from chaind.pb.cosmos.upgrade.v1beta1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "HANDLERS", "UpgradeKeeper", "needed_message", "refusal_at_start")

MODULE = Module(
    name="upgrade",
    keeper=lambda app: UpgradeKeeper(),
    messages=MESSAGES,
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: UpgradeQuery(app)),),
    genesis=GENESIS,
    pre_block=pre_block,
    cli="chaind.chain.modules.upgrade.cli",
)
