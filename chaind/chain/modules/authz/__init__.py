"""x/authz (Cosmos SDK v0.50): grants of generic, send and stake authorizations; MsgGrant, MsgRevoke, and
MsgExec running messages as their granter; expired grants pruned each block; cosmos.authz.v1beta1.Query."""

from chaind.chain.module import Module, QueryService
from chaind.chain.modules.authz.begin_block import begin_block
from chaind.chain.modules.authz.genesis import GENESIS
from chaind.chain.modules.authz.keeper import NAME, AuthzKeeper
from chaind.chain.modules.authz.msgs import AMINO_SHAPES, MESSAGES
from chaind.chain.modules.authz.query import AuthzQuery
from chaind.pb.cosmos.authz.v1beta1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "AuthzKeeper")

MODULE = Module(
    name=NAME,
    keeper=lambda app: AuthzKeeper(app.keepers["bank"]),
    messages=MESSAGES,
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: AuthzQuery(app)),),
    genesis=GENESIS,
    begin_block=begin_block,
    amino_shapes=AMINO_SHAPES,
    cli="chaind.chain.modules.authz.cli",
)
