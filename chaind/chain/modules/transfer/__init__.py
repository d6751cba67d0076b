"""ICS-20 fungible token transfer (ibc-go v8.5 apps/transfer): the `transfer` port on 04-channel with its channel
checks and packet callbacks, its keeper for messages, middleware and precompiles."""

from chaind.chain.module import Module
from chaind.chain.modules.transfer.ibc_module import VERSION, TransferIBCModule
from chaind.chain.modules.transfer.keeper import NAME, PORT_ID, TransferKeeper

__all__ = ("MODULE", "PORT_ID", "VERSION", "TransferIBCModule", "TransferKeeper")

MODULE = Module(
    name=NAME,
    keeper=lambda app: TransferKeeper(app.keepers["ibc_channel"]),
)
