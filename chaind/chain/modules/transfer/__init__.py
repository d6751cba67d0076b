"""ICS-20 fungible token transfer (ibc-go v8.5 apps/transfer): the `transfer` port on 04-channel with its channel
checks and packet callbacks, escrow per channel, vouchers with denom traces, MsgTransfer and MsgUpdateParams,
ibc.applications.transfer.v1.Query, genesis, the total-escrow invariant and the ICS20 precompile at 0x...0802.
Its keeper (app.keepers["transfer"]) is the API other modules use: transfer(ctx, msg) sends, and the packet
callbacks answer ibc-go's events for a middleware to wrap."""

from chaind.chain.module import Module, QueryService, Store
from chaind.chain.modules.transfer import precompile, store_layout
from chaind.chain.modules.transfer.denoms import escrow_address, ibc_denom, parse_trace
from chaind.chain.modules.transfer.genesis import GENESIS
from chaind.chain.modules.transfer.ibc_module import VERSION, TransferIBCModule
from chaind.chain.modules.transfer.invariants import INVARIANTS
from chaind.chain.modules.transfer.keeper import MODULE_ADDRESS, NAME, PORT_ID, TransferKeeper
from chaind.chain.modules.transfer.msgs import MESSAGES
from chaind.chain.modules.transfer.query import TransferQuery
from chaind.pb.ibc.applications.transfer.v1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "MODULE_ADDRESS", "PORT_ID", "VERSION", "TransferIBCModule", "TransferKeeper", "escrow_address",
           "ibc_denom", "parse_trace")

# Evmos' BlockedAddrs also holds the EVM's precompiled contracts 0x01..0x09 (Berlin's).
_BERLIN_PRECOMPILES = tuple(n.to_bytes(20, "big") for n in range(1, 10))


def _keeper(app):
    """The keeper, bound on the port genesis names (`transfer` when it has no transfer section)."""
    state = app.genesis.section_of(MODULE, app.modules)
    blocked = {address for address, _ in app.module_accounts.values()} | set(app.precompiles) \
        | set(_BERLIN_PRECOMPILES)
    return TransferKeeper(app.keepers["ibc_channel"], app.keepers["auth"], app.keepers["bank"], blocked,
                          PORT_ID if state is None else state.port_id)


MODULE = Module(
    name=NAME,
    keeper=_keeper,
    messages=MESSAGES,
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: TransferQuery(app)),),
    genesis=GENESIS,
    module_accounts={NAME: (MODULE_ADDRESS, ("minter", "burner"))},
    invariants=INVARIANTS,
    store=Store(store_layout.STORE, layout=store_layout.layout),
    precompiles={precompile.ADDRESS: precompile.PRECOMPILE},
    cli="chaind.chain.modules.transfer.cli",
)
