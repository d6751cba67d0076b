"""x/feegrant (Cosmos SDK v0.50): fee allowances one account grants another, used by the ante step when a tx
names a fee granter; MsgGrantAllowance, MsgRevokeAllowance, MsgPruneAllowances; cosmos.feegrant.v1beta1.Query.
"""

from chaind.chain.module import Module, QueryService
from chaind.chain.modules.feegrant.genesis import GENESIS
from chaind.chain.modules.feegrant.keeper import END_BLOCK_PRUNE_LIMIT, NAME, FeegrantKeeper
from chaind.chain.modules.feegrant.msgs import AMINO_SHAPES, MESSAGES
from chaind.chain.modules.feegrant.query import FeegrantQuery
from chaind.pb.cosmos.feegrant.v1beta1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "NAME", "FeegrantKeeper")


def end_block(app, ctx):
    app.keepers[NAME].remove_expired(ctx, END_BLOCK_PRUNE_LIMIT)


MODULE = Module(
    name=NAME,
    keeper=lambda app: FeegrantKeeper(app.keepers["auth"], app.keepers["bank"]),
    messages=MESSAGES,
    amino_shapes=AMINO_SHAPES,
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: FeegrantQuery(app)),),
    genesis=GENESIS,
    end_block=end_block,
    cli="chaind.chain.modules.feegrant.cli",
)
