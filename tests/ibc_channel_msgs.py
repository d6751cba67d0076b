"""Channel handshake messages for IBC tests: a mock port application and the six MsgChannel* of a relayer's
steps on the `mock` port over connection-0, and the ICS-24 path of a channel end.
"""

from chaind.chain.errors import TxError
from chaind.pb.ibc.core.channel.v1 import channel_pb2 as pb
from chaind.pb.ibc.core.channel.v1 import tx_pb2 as chan_tx

PORT = "mock"
CHANNEL = "/ibc.core.channel.v1."


class MockApp:
    """A port's application: proposes "mock-1" when the relayer leaves the version empty, accepts any other, and
    refuses to close a channel while `keep_open`."""

    def __init__(self):
        self.calls = []
        self.keep_open = False

    def on_chan_open_init(self, ctx, order, hops, port_id, channel_id, counterparty, version):
        self.calls.append(("init", channel_id))
        return version or "mock-1"

    def on_chan_open_try(self, ctx, order, hops, port_id, channel_id, counterparty, version):
        self.calls.append(("try", channel_id))
        return version

    def on_chan_open_ack(self, ctx, port_id, channel_id, their_channel_id, their_version):
        self.calls.append(("ack", channel_id))

    def on_chan_open_confirm(self, ctx, port_id, channel_id):
        self.calls.append(("confirm", channel_id))

    def on_chan_close_init(self, ctx, port_id, channel_id):
        if self.keep_open:
            raise TxError("mock", 2, "channel may not be closed")
        self.calls.append(("close_init", channel_id))

    def on_chan_close_confirm(self, ctx, port_id, channel_id):
        self.calls.append(("close_confirm", channel_id))


def end(state, ordering, port_id, channel_id, hops, version):
    found = pb.Channel(state=state, ordering=ordering, connection_hops=hops, version=version)
    found.counterparty.port_id, found.counterparty.channel_id = port_id, channel_id
    return found


def open_init(chain, ordering=pb.ORDER_UNORDERED, version="", port=PORT, hops=("connection-0",)):
    return CHANNEL + "MsgChannelOpenInit", chan_tx.MsgChannelOpenInit(
        port_id=port, channel=end(pb.STATE_INIT, ordering, PORT, "", list(hops), version), signer=chain.relayer)


def open_try(chain, their_channel, their_version, proof, height, ordering=pb.ORDER_UNORDERED):
    return CHANNEL + "MsgChannelOpenTry", chan_tx.MsgChannelOpenTry(
        port_id=PORT, channel=end(pb.STATE_TRYOPEN, ordering, PORT, their_channel, ["connection-0"], ""),
        counterparty_version=their_version, proof_init=proof, proof_height=height, signer=chain.relayer)


def open_ack(chain, channel_id, their_channel, their_version, proof, height):
    return CHANNEL + "MsgChannelOpenAck", chan_tx.MsgChannelOpenAck(
        port_id=PORT, channel_id=channel_id, counterparty_channel_id=their_channel, counterparty_version=their_version,
        proof_try=proof, proof_height=height, signer=chain.relayer)


def open_confirm(chain, channel_id, proof, height):
    return CHANNEL + "MsgChannelOpenConfirm", chan_tx.MsgChannelOpenConfirm(
        port_id=PORT, channel_id=channel_id, proof_ack=proof, proof_height=height, signer=chain.relayer)


def close_init(chain, channel_id):
    return CHANNEL + "MsgChannelCloseInit", chan_tx.MsgChannelCloseInit(port_id=PORT, channel_id=channel_id,
                                                                        signer=chain.relayer)


def close_confirm(chain, channel_id, proof, height):
    return CHANNEL + "MsgChannelCloseConfirm", chan_tx.MsgChannelCloseConfirm(
        port_id=PORT, channel_id=channel_id, proof_init=proof, proof_height=height, signer=chain.relayer)


def path(channel_id):
    return f"channelEnds/ports/{PORT}/channels/{channel_id}"
