"""ICS-20's port callbacks (ibc-go v8.5 apps/transfer/ibc_module.go): the channel checks of a transfer channel
(UNORDERED, our port, version ics20-1, at most 2^32 channels), no user-initiated close, and the packet
callbacks, which decode the packet data and hand it to the keeper."""

from chaind.chain.modules.ibc_channel import errors as channel_errors
from chaind.chain.modules.ibc_channel.keeper import UNORDERED, is_valid_channel_id, order_name
from chaind.chain.modules.ibc_client import host
from chaind.chain.modules.transfer import errors as e

VERSION = "ics20-1"
MAX_CHANNELS = 2**32 - 1        # escrow addresses are safe for 2^32 channels (cosmos-sdk#7737)


def channel_sequence(channel_id):
    """channeltypes.ParseChannelSequence."""
    if not is_valid_channel_id(channel_id):
        raise host.invalid_id("channel identifier is not in the format: `channel-{N}`")
    return int(channel_id.removeprefix("channel-"))


class TransferIBCModule:
    """What 04-channel calls on the port the transfer keeper binds (05-port's IBCModule)."""

    def __init__(self, keeper):
        self.keeper = keeper

    def validate_channel_params(self, order, port_id, channel_id):
        """ValidateTransferChannelParams."""
        sequence = channel_sequence(channel_id)
        if sequence > MAX_CHANNELS:
            raise e.transfer_error(e.MAX_TRANSFER_CHANNELS, f"channel sequence {sequence} is greater than max "
                                   f"allowed transfer channels {MAX_CHANNELS}")
        if order != UNORDERED:
            raise channel_errors.channel_error(channel_errors.INVALID_ORDERING, f"expected {order_name(UNORDERED)} "
                                               f"channel, got {order_name(order)} ")
        if port_id != self.keeper.port_id:
            raise channel_errors.port_error(channel_errors.INVALID_PORT,
                                            f"invalid port: {port_id}, expected {self.keeper.port_id}")

    def on_chan_open_init(self, ctx, order, hops, port_id, channel_id, counterparty, version):
        self.validate_channel_params(order, port_id, channel_id)
        if not version.strip():
            version = VERSION
        if version != VERSION:
            raise e.transfer_error(e.INVALID_VERSION, f"expected {VERSION}, got {version}")
        return version

    def on_chan_open_try(self, ctx, order, hops, port_id, channel_id, counterparty, their_version):
        # A counterparty proposing another version gets ours proposed back, as ibc-go does.
        self.validate_channel_params(order, port_id, channel_id)
        return VERSION

    def on_chan_open_ack(self, ctx, port_id, channel_id, their_channel_id, their_version):
        if their_version != VERSION:
            raise e.transfer_error(e.INVALID_VERSION,
                                   f"invalid counterparty version: expected {VERSION}, got {their_version}")

    def on_chan_open_confirm(self, ctx, port_id, channel_id):
        return None

    def on_chan_close_init(self, ctx, port_id, channel_id):
        raise e.ibc_error(e.INVALID_REQUEST, "user cannot close channel")

    def on_chan_close_confirm(self, ctx, port_id, channel_id):
        return None

    # Packets: the keeper's.

    def on_recv_packet(self, ctx, packet, relayer):
        return self.keeper.on_recv_packet(ctx, packet, relayer)

    def on_acknowledgement_packet(self, ctx, packet, ack, relayer):
        return self.keeper.on_acknowledgement_packet(ctx, packet, ack, relayer)

    def on_timeout_packet(self, ctx, packet, relayer):
        return self.keeper.on_timeout_packet(ctx, packet, relayer)

