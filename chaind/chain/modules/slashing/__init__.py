"""x/slashing (Cosmos SDK v0.50): validators' liveness from each last commit, downtime slashing and jailing,
MsgUnjail, the penalties x/evidence applies; cosmos.slashing.v1beta1.Query."""

from chaind.chain.module import Module, QueryService, Store
from chaind.chain.modules.slashing import precompile, store_layout
from chaind.chain.modules.slashing.begin_block import begin_block
from chaind.chain.modules.slashing.genesis import GENESIS
from chaind.chain.modules.slashing.hooks import StakingHooks
from chaind.chain.modules.slashing.keeper import (
    DOUBLE_SIGN,
    DOUBLE_SIGN_JAIL_END_SECONDS,
    VALIDATOR_UPDATE_DELAY,
    SlashingKeeper,
)
from chaind.chain.modules.slashing.msgs import AMINO_SHAPES, MESSAGES
from chaind.chain.modules.slashing.params import describe
from chaind.chain.modules.slashing.query import SlashingQuery
from chaind.chain.modules.staking.hooks import STAKING_HOOKS
from chaind.pb.cosmos.slashing.v1beta1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "DOUBLE_SIGN", "DOUBLE_SIGN_JAIL_END_SECONDS", "VALIDATOR_UPDATE_DELAY", "SlashingKeeper",
           "describe")

MODULE = Module(
    name="slashing",
    keeper=lambda app: SlashingKeeper(app.genesis.bech32_prefix, app.keepers["staking"]),
    messages=MESSAGES,
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: SlashingQuery(app)),),
    genesis=GENESIS,
    begin_block=begin_block,
    amino_shapes=AMINO_SHAPES,
    hooks={STAKING_HOOKS.name: StakingHooks()},
    store=Store("slashing", layout=store_layout.layout),
    precompiles={precompile.ADDRESS: precompile.run},
    cli="chaind.chain.modules.slashing.cli",
)
