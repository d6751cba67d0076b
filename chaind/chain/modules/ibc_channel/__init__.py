"""IBC 04-channel (ibc-go v8.5), handshake slice: channel ends between ports of this chain and another's, the ports
applications bind (05-port), MsgChannelOpenInit/Try/Ack/Confirm and CloseInit/CloseConfirm proven through
03-connection, ibc.core.channel.v1.Query's channel queries."""

import functools

from chaind.chain.module import Module, QueryService, Store, ibc_stack
from chaind.chain.modules.ibc_channel.genesis import GENESIS
from chaind.chain.modules.ibc_channel.keeper import NAME, ChannelKeeper
from chaind.chain.modules.ibc_channel.msgs import MESSAGES
from chaind.chain.modules.ibc_channel.query import ChannelQuery
from chaind.chain.modules.ibc_client import host
from chaind.pb.ibc.core.channel.v1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "ChannelKeeper")

MODULE = Module(
    name=NAME,
    keeper=lambda app: ChannelKeeper(app.keepers["ibc_connection"], functools.partial(ibc_stack, app, app.modules)),
    messages=MESSAGES,
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: ChannelQuery(app)),),
    genesis=GENESIS,
    store=Store(host.STORE, layout=host.layout),
    cli="chaind.chain.modules.ibc_channel.cli",
)
