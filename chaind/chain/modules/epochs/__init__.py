"""x/epochs (Evmos v20): epoch timers (day, week, ...) that start and end in begin blocks and call their hooks
(inflation mints at an epoch's end); evmos.epochs.v1.Query."""

from chaind.chain.module import Module, QueryService
from chaind.chain.modules.epochs.begin_block import begin_block
from chaind.chain.modules.epochs.genesis import GENESIS, parse_epochs
from chaind.chain.modules.epochs.hooks import EPOCH_HOOKS
from chaind.chain.modules.epochs.keeper import EpochsKeeper
from chaind.chain.modules.epochs.query import EpochsQuery
from chaind.pb.evmos.epochs.v1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "EpochsKeeper", "parse_epochs")

MODULE = Module(
    name="epochs",
    keeper=lambda app: EpochsKeeper(),
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: EpochsQuery(app)),),
    genesis=GENESIS,
    begin_block=begin_block,
    provides_hooks=(EPOCH_HOOKS,),
    cli="chaind.chain.modules.epochs.cli",
)
