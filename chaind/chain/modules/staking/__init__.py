"""x/staking (Cosmos SDK v0.50) as far as a chain without slashing needs it: validators, delegations,
unbonding delegations and redelegations, and the bonded set; cosmos.staking.v1beta1.Query.

Its five messages carry the SDK's checks, errors and events; the end blocker's power changes reach CometBFT.
Its keeper (app.keepers["staking"]) is this package's API for the app, other modules and the services.
"""

from chaind.chain.module import Module, QueryService, Store
from chaind.chain.modules.staking import precompile, store_layout
from chaind.chain.modules.staking.end_block import end_block
from chaind.chain.modules.staking.genesis import GENESIS
from chaind.chain.modules.staking.hooks import STAKING_HOOKS, hook_caller
from chaind.chain.modules.staking.invariants import INVARIANTS
from chaind.chain.modules.staking.keeper import StakingKeeper
from chaind.chain.modules.staking.msgs import AMINO_SHAPES, MESSAGES
from chaind.chain.modules.staking.numbers import PRECISION, dec_quo, format_duration, parse_duration
from chaind.chain.modules.staking.params import Params, params, parse_params
from chaind.chain.modules.staking.query import StakingQuery
from chaind.chain.modules.staking.records import (
                                                  BONDED,
                                                  BONDED_POOL,
                                                  NOT_BONDED_POOL,
                                                  POWER_REDUCTION,
                                                  STATUS_NAMES,
                                                  UNBONDED,
                                                  UNBONDING,
                                                  Validator,
)
from chaind.pb.cosmos.staking.v1beta1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "BONDED", "BONDED_POOL", "NOT_BONDED_POOL", "POWER_REDUCTION", "PRECISION", "STATUS_NAMES",
           "UNBONDED", "UNBONDING", "Params", "StakingKeeper", "Validator", "dec_quo", "format_duration",
           "parse_duration", "parse_params")

MODULE = Module(
    name="staking",
    keeper=lambda app: StakingKeeper(app.genesis.bech32_prefix, app.keepers["bank"], hook_caller(app)),
    messages=MESSAGES,
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: StakingQuery(app)),),
    genesis=GENESIS,
    end_block=end_block,
    amino_shapes=AMINO_SHAPES,
    invariants=INVARIANTS,
    module_accounts={"bonded_tokens_pool": (BONDED_POOL, ("burner", "staking")),
                     "not_bonded_tokens_pool": (NOT_BONDED_POOL, ("burner", "staking"))},
    store=Store("staking", mounted=True, layout=store_layout.layout),
    provides_hooks=(STAKING_HOOKS,),
    precompiles={precompile.ADDRESS: precompile.run},
    cli="chaind.chain.modules.staking.cli",
    # Unbondings, redelegations and unbonding validators are queued at the block's time plus this.
    time_reach=lambda view: params(view).unbonding_time_ns,
)
