"""x/distribution (Cosmos SDK v0.50, F1 fee distribution): each block's fees to the community pool and the
validators of the last commit, commission, delegator rewards; its five messages; cosmos.distribution.v1beta1.Query.
"""

from chaind.chain.module import Module, QueryService
from chaind.chain.modules.distribution import precompile
from chaind.chain.modules.distribution.begin_block import begin_block
from chaind.chain.modules.distribution.genesis import GENESIS
from chaind.chain.modules.distribution.hooks import StakingHooks
from chaind.chain.modules.distribution.invariants import INVARIANTS
from chaind.chain.modules.distribution.keeper import DistributionKeeper
from chaind.chain.modules.distribution.msgs import MESSAGES
from chaind.chain.modules.distribution.query import DistributionQuery
from chaind.chain.modules.distribution.records import DISTRIBUTION_ACCOUNT
from chaind.chain.modules.distribution.update_params import AMINO_SHAPES, UPDATE_PARAMS
from chaind.chain.modules.staking.hooks import STAKING_HOOKS
from chaind.pb.cosmos.distribution.v1beta1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "DISTRIBUTION_ACCOUNT", "DistributionKeeper")

MODULE = Module(
    name="distribution",
    keeper=lambda app: DistributionKeeper(app.genesis.bech32_prefix, app.genesis.base_denom, app.keepers["bank"],
                                          app.keepers["auth"], app.keepers),
    messages=MESSAGES + UPDATE_PARAMS,
    amino_shapes=AMINO_SHAPES,
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: DistributionQuery(app)),),
    genesis=GENESIS,
    begin_block=begin_block,
    module_accounts={"distribution": (DISTRIBUTION_ACCOUNT, ())},
    invariants=INVARIANTS,
    hooks={STAKING_HOOKS.name: StakingHooks()},
    precompiles={precompile.ADDRESS: precompile.run},
    cli="chaind.chain.modules.distribution.cli",
)
