"""IBC 02-client with the 07-tendermint light client (ibc-go v8.5): clients of other chains in the `ibc` store at
ICS-24 paths, MsgCreateClient/MsgUpdateClient/MsgSubmitMisbehaviour, ibc.core.client.v1.Query, genesis, and
cosmos/evm's ICS02 precompile at 0x...0807."""

from chaind.chain.module import Module, QueryService, Store
from chaind.chain.modules.ibc_client import host, precompile
from chaind.chain.modules.ibc_client.genesis import GENESIS
from chaind.chain.modules.ibc_client.keeper import NAME, ClientKeeper
from chaind.chain.modules.ibc_client.msgs import MESSAGES
from chaind.chain.modules.ibc_client.query import ClientQuery
from chaind.pb.ibc.core.client.v1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "ClientKeeper")

MODULE = Module(
    name=NAME,
    keeper=lambda app: ClientKeeper(app.genesis.chain_id, app.block_at),
    messages=MESSAGES,
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: ClientQuery(app)),),
    genesis=GENESIS,
    store=Store(host.STORE, layout=host.layout),
    precompiles={precompile.ADDRESS: precompile.run},
    cli="chaind.chain.modules.ibc_client.cli",
)
