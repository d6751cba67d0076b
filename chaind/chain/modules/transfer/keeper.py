"""ICS-20's keeper (ibc-go v8.5 apps/transfer/keeper): the port it binds on 04-channel, and what its messages, its
port callbacks and other modules (middleware, the ICS20 precompile) call."""

from chaind.chain.modules.transfer import errors as e
from chaind.chain.modules.transfer.ibc_module import TransferIBCModule

NAME = "transfer"
PORT_ID = "transfer"


class TransferKeeper:
    """Reads through a view or a block's context, writes through a block's context. Built with 04-channel's
    keeper, it binds its port there (ibc-go's InitGenesis BindPort)."""

    def __init__(self, channels, port_id=PORT_ID):
        self.channels = channels
        self.port_id = port_id
        self.ibc_module = TransferIBCModule(self)
        channels.bind_port(port_id, self.ibc_module)

    # Packet callbacks.

    @staticmethod
    def _not_yet():
        return e.ibc_error(e.UNKNOWN_REQUEST, "ICS-20 packets are not handled yet (issue 31)")

    def on_recv_packet(self, ctx, packet, relayer):
        raise self._not_yet()

    def on_acknowledgement_packet(self, ctx, packet, ack, relayer):
        raise self._not_yet()

    def on_timeout_packet(self, ctx, packet, relayer):
        raise self._not_yet()
