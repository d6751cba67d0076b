"""IBC 03-connection (ibc-go v8.5): connection ends with other chains in the `ibc` store at ICS-24 paths, the
four-step handshake MsgConnectionOpenInit/Try/Ack/Confirm proven through 02-client, ibc.core.connection.v1.Query."""

from chaind.chain.module import Module, QueryService, Store
from chaind.chain.modules.ibc_client import host
from chaind.chain.modules.ibc_connection.genesis import GENESIS
from chaind.chain.modules.ibc_connection.keeper import NAME, ConnectionKeeper
from chaind.chain.modules.ibc_connection.msgs import MESSAGES
from chaind.chain.modules.ibc_connection.query import ConnectionQuery
from chaind.pb.ibc.core.connection.v1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "ConnectionKeeper")

MODULE = Module(
    name=NAME,
    keeper=lambda app: ConnectionKeeper(app.keepers["ibc_client"]),
    messages=MESSAGES,
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: ConnectionQuery(app)),),
    genesis=GENESIS,
    store=Store(host.STORE, layout=host.layout),
    cli="chaind.chain.modules.ibc_connection.cli",
)
