"""x/inflation (Evmos v20): mints the base denom at each end of its epoch along an exponential-decay schedule,
staking rewards to the fee collector (distribution hands them out), the rest to the community pool;
evmos.inflation.v1.Query."""

from chaind.chain.module import Module, QueryService
from chaind.chain.modules.epochs.hooks import EPOCH_HOOKS
from chaind.chain.modules.inflation.genesis import GENESIS
from chaind.chain.modules.inflation.keeper import INFLATION_ACCOUNT, EpochHooks, InflationKeeper
from chaind.chain.modules.inflation.params import parse_genesis
from chaind.chain.modules.inflation.query import InflationQuery
from chaind.chain.modules.inflation.update_params import AMINO_SHAPES, UPDATE_PARAMS
from chaind.pb.evmos.inflation.v1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "INFLATION_ACCOUNT", "InflationKeeper", "parse_genesis")

MODULE = Module(
    name="inflation",
    keeper=lambda app: InflationKeeper(app.keepers["bank"], app.keepers["epochs"]),
    messages=UPDATE_PARAMS,
    amino_shapes=AMINO_SHAPES,
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: InflationQuery(app)),),
    genesis=GENESIS,
    module_accounts={"inflation": (INFLATION_ACCOUNT, ("minter",))},
    hooks={EPOCH_HOOKS.name: EpochHooks()},
    cli="chaind.chain.modules.inflation.cli",
)
