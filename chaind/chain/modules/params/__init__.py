"""x/params (Cosmos SDK v0.50, legacy): cosmos.params.v1beta1.Query answers each module's current param by its
legacy subspace and key; the params themselves belong to their modules (each with its MsgUpdateParams)."""

from chaind.chain.module import Module, QueryService
from chaind.chain.modules.params.query import ParamsQuery
from chaind.pb.cosmos.params.v1beta1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE",)

MODULE = Module(
    name="params",
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: ParamsQuery(app)),),
    cli="chaind.chain.modules.params.cli",
)
