"""erc20's IBC middleware around ICS-20 (Evmos v20 x/erc20/ibc_middleware.go and keeper/ibc_callbacks.go): a new
single-hop voucher gets its token pair and ERC-20 precompile on receive, and a native ERC-20's coin becomes the
ERC-20 again when it comes home or is refunded."""

import functools

import bech32
from google.protobuf import json_format

from chaind.chain import errors
from chaind.chain.block import event
from chaind.chain.modules.erc20 import msgs
from chaind.chain.modules.erc20.keeper import OWNER_EXTERNAL, OWNER_MODULE, invalid_ibc
from chaind.chain.modules.ibc_channel.packets import Acknowledgement
from chaind.chain.modules.transfer import denoms
from chaind.chain.modules.transfer import packet_data as pd
from chaind.crypto.addresses import AddressError, checksum_address, parse
from chaind.pb.evmos.erc20.v1 import tx_pb2
from chaind.pb.ibc.core.channel.v1 import channel_pb2

EVENT_REGISTER_EXTENSION = "register_erc20_extension"
_FACTORY = "factory/"
# Each received packet's sender and receiver are decoded (about 50 us each, the bech32 package being pure Python);
# relayed packets repeat their addresses, and the answer is a pure function of the text.
_ADDRESSES_KEPT = 4096


@functools.lru_cache(maxsize=_ADDRESSES_KEPT)
def any_bech32(text):
    """utils.GetEvmosAddressFromBech32: the bytes of a bech32 address of any prefix (the part before its first
    "1"), of any length the SDK accepts."""
    prefix = text.split("1", 1)[0]
    if prefix == text:
        raise errors.invalid_address(f"invalid bech32 address: {text}")
    hrp, data = bech32.bech32_decode(text)
    raw = None if data is None else bech32.convertbits(data, 5, 8, False)
    if hrp is None or raw is None:
        raise errors.invalid_address(f"invalid address {text}, decoding bech32 failed")
    if hrp != prefix:
        raise errors.invalid_address(f"invalid address {text}, invalid Bech32 prefix; expected {prefix}, got {hrp}")
    if not raw:
        raise errors.TxError(errors.SDK, 7, "addresses cannot be empty: unknown address")
    if len(raw) > 255:
        raise errors.TxError(errors.SDK, 7, f"address max length is 255, got {len(raw)}: unknown address")
    return bytes(raw)


def received_denom(packet, raw_denom):
    """ibc.GetReceivedCoin's denom: the coin the receiving chain holds for a packet's denom."""
    if denoms.receiver_chain_is_source(packet.source_port, packet.source_channel, raw_denom):
        unprefixed = raw_denom[len(denoms.denom_prefix(packet.source_port, packet.source_channel)):]
        return denoms.ibc_denom(denoms.parse_trace(unprefixed))
    return denoms.ibc_denom(denoms.parse_trace(
        denoms.denom_prefix(packet.destination_port, packet.destination_channel) + raw_denom))


def is_single_hop(raw_denom):
    """ibc.IsBaseDenomFromSourceChain: a packet denom without a path whose base has no "/"."""
    trace = denoms.parse_trace(raw_denom)
    return not trace.path and "/" not in trace.base_denom


class Erc20IBCMiddleware:
    """The callbacks 04-channel calls on the transfer port: ICS-20's own (`inner`), then erc20's. The channel
    handshake is ICS-20's unchanged."""

    def __init__(self, app, inner):
        self.app = app
        self.inner = inner

    def on_chan_open_init(self, ctx, order, hops, port_id, channel_id, counterparty, version):
        return self.inner.on_chan_open_init(ctx, order, hops, port_id, channel_id, counterparty, version)

    def on_chan_open_try(self, ctx, order, hops, port_id, channel_id, counterparty, their_version):
        return self.inner.on_chan_open_try(ctx, order, hops, port_id, channel_id, counterparty, their_version)

    def on_chan_open_ack(self, ctx, port_id, channel_id, their_channel_id, their_version):
        return self.inner.on_chan_open_ack(ctx, port_id, channel_id, their_channel_id, their_version)

    def on_chan_open_confirm(self, ctx, port_id, channel_id):
        return self.inner.on_chan_open_confirm(ctx, port_id, channel_id)

    def on_chan_close_init(self, ctx, port_id, channel_id):
        return self.inner.on_chan_close_init(ctx, port_id, channel_id)

    def on_chan_close_confirm(self, ctx, port_id, channel_id):
        return self.inner.on_chan_close_confirm(ctx, port_id, channel_id)

    # Packets.

    def on_recv_packet(self, ctx, packet, relayer):
        """ICS-20's receive, then, on its success, erc20's; an erc20 failure is an error acknowledgement (whose
        writes 04-channel discards, ICS-20's with them)."""
        ack, events = self.inner.on_recv_packet(ctx, packet, relayer)
        if ack is None or not ack.success:
            return ack, events
        try:
            events += self.received(ctx, packet)
        except errors.TxError as error:
            return Acknowledgement.from_error(error), events
        return ack, events

    def received(self, ctx, packet):
        """Keeper.OnRecvPacket's conversion after a successful receive; its events."""
        keeper = self.app.keepers["erc20"]
        if not keeper.params(ctx).enable_erc20:
            return []
        try:
            data = pd.from_bytes(packet.data)
        except ValueError:
            raise errors.TxError(errors.SDK, 29, "cannot unmarshal ICS-20 transfer packet data: invalid type") \
                from None
        try:
            sender = any_bech32(data.sender)
        except errors.TxError as error:
            raise errors.TxError(error.codespace, error.code, f"invalid sender: {error.log}") from None
        try:
            recipient = any_bech32(data.receiver)
        except errors.TxError as error:
            raise errors.TxError(error.codespace, error.code, f"invalid recipient: {error.log}") from None
        evm_params = self.app.keepers["evm"].params(ctx)
        evm_channels = () if evm_params is None else evm_params.evm_channels
        if sender == recipient and packet.destination_channel not in evm_channels:
            raise invalid_ibc()
        if recipient in {address for address, _ in self.app.module_accounts.values()}:
            return []
        denom = received_denom(packet, data.denom)
        if data.denom.startswith(_FACTORY):
            return []
        if denom == self.app.keepers["staking"].params(ctx).bond_denom:
            return []
        pair = keeper.pair_of(ctx, denom)
        if pair is None and denom.startswith("ibc/") and is_single_hop(data.denom):
            pair = keeper.register_erc20_extension(ctx, denom)
            return [event(EVENT_REGISTER_EXTENSION, ("source_channel", packet.source_channel),
                          ("erc20_token", pair.erc20_address), ("cosmos_coin", pair.denom))]
        if pair is not None and pair.contract_owner == OWNER_EXTERNAL and pair.enabled:
            balance = self.app.keepers["bank"].balance(ctx, recipient, denom)
            return self.to_erc20(ctx, pair, balance, recipient)
        return []

    def to_erc20(self, ctx, pair, amount, owner):
        """ConvertCoinNativeERC20: `owner`'s coins of a native ERC-20's pair back into the ERC-20, to the same
        address; the events."""
        msg = tx_pb2.MsgConvertCoin(sender=self.app.keepers["bank"].bech32(owner), receiver=checksum_address(owner))
        msg.coin.denom, msg.coin.amount = pair.denom, str(amount)
        emitted, _ = msgs.convert_coin(self.app, ctx, msg, owner)
        return emitted

    def on_acknowledgement_packet(self, ctx, packet, ack, relayer):
        events = self.inner.on_acknowledgement_packet(ctx, packet, ack, relayer)
        # ICS-20 has decoded both the acknowledgement and the packet data: they are valid here.
        if json_format.Parse(ack.decode(), channel_pb2.Acknowledgement()).WhichOneof("response") == "error":
            events += self.refunded(ctx, pd.from_bytes(packet.data))
        return events

    def on_timeout_packet(self, ctx, packet, relayer):
        events = self.inner.on_timeout_packet(ctx, packet, relayer)
        return events + self.refunded(ctx, pd.from_bytes(packet.data))

    def refunded(self, ctx, data):
        """ConvertCoinToERC20FromPacket: a native ERC-20's refunded coins back into the ERC-20; the events."""
        try:
            sender = parse(data.sender, self.app.genesis.bech32_prefix)
        except AddressError as error:
            raise errors.invalid_address(str(error)) from None
        keeper = self.app.keepers["erc20"]
        pair = keeper.pair_of(ctx, data.denom)
        if pair is None or pair.contract_owner == OWNER_MODULE:
            return []
        denom = denoms.ibc_denom(denoms.parse_trace(data.denom))
        if not keeper.params(ctx).enable_erc20 or keeper.pair_of(ctx, denom) is None:
            return []
        if sender in {address for address, _ in self.app.module_accounts.values()}:
            return []
        return self.to_erc20(ctx, pair, pd.go_int(data.amount), sender)
