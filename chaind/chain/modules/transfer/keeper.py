"""ICS-20's keeper (ibc-go v8.5 apps/transfer/keeper): its port, params, denom traces and total escrow per denom,
and the relay: transfer (MsgTransfer's msg server, which the ICS20 precompile calls too), receive, acknowledgement
and timeout, escrowing, unescrowing, minting and burning through bank as ibc-go does."""

from chaind.chain.block import event
from chaind.chain.errors import TxError
from chaind.chain.modules.bank.keeper import format_coins
from chaind.chain.modules.ibc_channel import errors as channel_errors
from chaind.chain.modules.ibc_channel.packets import Acknowledgement
from chaind.chain.modules.ibc_client.errors import plain, wrap
from chaind.chain.modules.transfer import denoms
from chaind.chain.modules.transfer import errors as e
from chaind.chain.modules.transfer import packet_data as pd
from chaind.chain.modules.transfer.ibc_module import TransferIBCModule
from chaind.chain.queries import address_bytes
from chaind.crypto.addresses import module_address
from chaind.pb.ibc.applications.transfer.v1 import transfer_pb2
from chaind.pb.ibc.core.channel.v1 import channel_pb2
from chaind.store.keys import compose

NAME = "transfer"
PORT_ID = "transfer"
MODULE_ADDRESS = module_address(NAME)
UNBOUNDED_SPEND_LIMIT = 2**256 - 1       # UnboundedSpendLimit: send the whole balance
MAX_RECEIVER_LENGTH, MAX_MEMO_LENGTH = 2048, 32768
CHANNEL_CAPABILITY_NOT_FOUND = 9        # 04-channel's ErrChannelCapabilityNotFound

PORT_KEY = compose(NAME, "port")
PARAMS_KEY = compose(NAME, "params")
TRACES = compose(NAME, "trace")
ESCROWS = compose(NAME, "escrow")


def trace_key(digest):
    return compose(NAME, "trace", digest)


def escrow_key(denom):
    return compose(NAME, "escrow", denom)


def default_params():
    return transfer_pb2.Params(send_enabled=True, receive_enabled=True)


def _go_upper(text):
    """strings.ToUpper, rune by rune (a rune whose upper case is several, such as ß, stays)."""
    return "".join(c.upper() if len(c.upper()) == 1 else c for c in text)


def voucher_metadata(trace):
    """setDenomMetadata's Metadata of a voucher, as bank keeps metadata (SDK JSON names)."""
    path = denoms.full_path(trace)
    return {"description": f"IBC token from {path}",
            "denom_units": [{"denom": trace.base_denom, "exponent": 0, "aliases": []}],
            "base": denoms.ibc_denom(trace), "display": path, "name": f"{path} IBC token",
            "symbol": _go_upper(trace.base_denom)}


class TransferKeeper:
    """Reads through a view or a block's context, writes through a block's context. Built from 04-channel's, auth's
    and bank's keepers, the addresses bank refuses to credit (`blocked`: module accounts and precompiles, Evmos'
    BlockedAddrs) and the port its genesis names, which it binds on 04-channel (InitGenesis' BindPort).

    For other modules: transfer(ctx, msg) is MsgTransfer's msg server (an ICS20 precompile calls it with the
    MsgTransfer it builds, once msgs.validate_transfer passed it); on_recv_packet (-> (acknowledgement, events)),
    on_acknowledgement_packet and on_timeout_packet (-> events) are the port's packet callbacks (ibc_module.py
    hands them over), each answering ibc-go's events, which other modules' records wrap with their
    ibc_middleware; denom_trace, denom_traces and denom_path_from_hash read the traces."""

    def __init__(self, channels, auth, bank, blocked, port_id=PORT_ID):
        self.channels = channels
        self.auth = auth
        self.bank = bank
        self.blocked = frozenset(blocked)
        self.port_id = port_id
        self.ibc_module = TransferIBCModule(self)
        channels.bind_port(port_id, self.ibc_module, NAME)

    # Store.

    @staticmethod
    def stored_port(state):
        """GetPort: the port genesis set (None on a chain whose genesis had no transfer section)."""
        raw = state.store.get(PORT_KEY)
        return None if raw is None else raw.decode()

    @staticmethod
    def set_port(ctx, port_id):
        ctx.store.set(PORT_KEY, port_id.encode())

    @staticmethod
    def params(state):
        """The params; a chain whose genesis had no transfer section has ibc-go's defaults."""
        raw = state.store.get(PARAMS_KEY)
        return default_params() if raw is None else transfer_pb2.Params.FromString(raw)

    @staticmethod
    def set_params(ctx, params):
        ctx.store.set(PARAMS_KEY, params.SerializeToString())

    @staticmethod
    def denom_trace(state, digest):
        """GetDenomTrace: the DenomTrace of a 32-byte hash, or None."""
        raw = state.store.get(trace_key(digest))
        return None if not raw else transfer_pb2.DenomTrace.FromString(raw)

    @staticmethod
    def set_denom_trace(ctx, trace):
        ctx.store.set(trace_key(denoms.trace_hash(trace)), trace.SerializeToString())

    @staticmethod
    def denom_traces(state):
        """GetAllDenomTraces: every trace, sorted by full path."""
        found = [transfer_pb2.DenomTrace.FromString(raw) for _, raw in state.store.iterate(TRACES)]
        return sorted(found, key=denoms.full_path)

    @staticmethod
    def total_escrow(state, denom):
        """GetTotalEscrowForDenom: the amount of `denom` this chain holds in escrow for all its channels."""
        raw = state.store.get(escrow_key(denom))
        return int(raw) if raw else 0

    @staticmethod
    def set_total_escrow(ctx, denom, amount):
        """SetTotalEscrowForDenom: kept only while not zero."""
        if amount < 0:
            raise plain(f"amount cannot be negative: {amount}")
        if amount:
            ctx.store.set(escrow_key(denom), str(amount).encode())
        else:
            ctx.store.delete(escrow_key(denom))

    @staticmethod
    def total_escrowed(state):
        """GetAllTotalEscrowed: [(denom, amount)] sorted by denom."""
        skip = len(ESCROWS) + 1
        return sorted((key[skip:].decode(), int(raw)) for key, raw in state.store.iterate(ESCROWS))

    def port(self, state):
        return self.stored_port(state) or self.port_id

    def denom_path_from_hash(self, state, denom):
        """DenomPathFromHash: the full path of an `ibc/{hash}` denom's trace."""
        hex_hash = denom[len(denoms.DENOM_PREFIX) + 1:]
        try:
            digest = denoms.parse_hex_hash(hex_hash)
        except TxError as error:
            raise e.transfer_error(e.INVALID_DENOM, error.log) from None
        trace = self.denom_trace(state, digest)
        if trace is None:
            raise e.transfer_error(e.TRACE_NOT_FOUND, hex_hash)
        return denoms.full_path(trace)

    # Bank moves, with the SDK's events.

    def _send(self, ctx, sender, recipient, denom, amount):
        """SendCoins: the recipient's account made if new."""
        self.auth.ensure_account(ctx, recipient)
        return self.bank.send(ctx, sender, recipient, [(denom, amount)])

    def _mint_to(self, ctx, recipient, denom, amount):
        """MintCoins to the module account, then SendCoinsFromModuleToAccount."""
        coins = format_coins([(denom, amount)])
        module = self.bank.bech32(MODULE_ADDRESS)
        self.auth.ensure_account(ctx, MODULE_ADDRESS)     # MintCoins' GetModuleAccount makes it at first use
        self.bank.mint(ctx, MODULE_ADDRESS, denom, amount)
        events = [event("coin_received", ("receiver", module), ("amount", coins)),
                  event("coinbase", ("minter", module), ("amount", coins))]
        if recipient in self.blocked:
            raise wrap(TxError("sdk", 4, f"{self.bank.bech32(recipient)} is not allowed to receive funds: "
                               "unauthorized"), f"failed to send coins to receiver {self.bank.bech32(recipient)}")
        return events + self._send(ctx, MODULE_ADDRESS, recipient, denom, amount)

    def _burn_from(self, ctx, sender, denom, amount):
        """SendCoinsFromAccountToModule, then BurnCoins."""
        events = self._send(ctx, sender, MODULE_ADDRESS, denom, amount)
        return events + self.bank.burn(ctx, MODULE_ADDRESS, [(denom, amount)])

    def _escrow(self, ctx, sender, escrow, denom, amount):
        events = self._send(ctx, sender, escrow, denom, amount)
        self.set_total_escrow(ctx, denom, self.total_escrow(ctx, denom) + amount)
        return events

    def _unescrow(self, ctx, escrow, receiver, denom, amount):
        try:
            events = self._send(ctx, escrow, receiver, denom, amount)
        except TxError as error:
            raise wrap(error, "unable to unescrow tokens, this may be caused by a malicious counterparty module or "
                       "a bug: please open an issue on counterparty module") from None
        self.set_total_escrow(ctx, denom, self.total_escrow(ctx, denom) - amount)
        return events

    # Sending: the msg server's Transfer and the keeper's sendTransfer.

    def transfer(self, ctx, msg):
        """Transfer (the msg server) of a checked MsgTransfer: the token escrowed (this chain its source) or burnt
        (a voucher going home), the packet sent; (sequence, events)."""
        if not self.params(ctx).send_enabled:
            raise e.transfer_error(e.SEND_DISABLED)
        sender = address_bytes(msg.sender, self.bank.prefix)
        denom, amount = msg.token.denom, pd.go_int(msg.token.amount)
        if not self.bank.default_send_enabled(ctx):
            raise e.transfer_error(e.SEND_DISABLED, f"{denom} transfers are currently disabled")
        if sender in self.blocked:
            raise e.ibc_error(e.UNAUTHORIZED, f"{self.bank.bech32(sender)} is not allowed to send funds")
        sequence, events = self.send_transfer(ctx, msg.source_port, msg.source_channel, denom, amount, sender,
                                              msg.receiver, msg.timeout_height, msg.timeout_timestamp, msg.memo)
        events += [event("ibc_transfer", ("sender", msg.sender), ("receiver", msg.receiver),
                         ("amount", str(amount)), ("denom", denom), ("memo", msg.memo)),
                   event("message", ("module", NAME))]
        return sequence, events

    def send_transfer(self, ctx, port_id, channel_id, denom, amount, sender, receiver, timeout_height,
                      timeout_timestamp, memo):
        """sendTransfer; (sequence, events)."""
        if self.channels.channel(ctx, port_id, channel_id) is None:
            raise channel_errors.channel_error(channel_errors.CHANNEL_NOT_FOUND,
                                               f"port ID ({port_id}) channel ID ({channel_id})")
        if port_id != self.port_id:
            # The channel's capability is its port's module's: this module owns its own port's channels only.
            raise channel_errors.channel_error(CHANNEL_CAPABILITY_NOT_FOUND, "module does not own channel capability")
        path = self.denom_path_from_hash(ctx, denom) if denom.startswith("ibc/") else denom
        if amount == UNBOUNDED_SPEND_LIMIT:
            amount = self.bank.balance(ctx, sender, denom)
        if denoms.sender_chain_is_source(port_id, channel_id, path):
            events = self._escrow(ctx, sender, denoms.escrow_address(port_id, channel_id), denom, amount)
        else:
            events = self._burn_from(ctx, sender, denom, amount)
        data = pd.packet_data(path, amount, self.bank.bech32(sender), receiver, memo)
        sequence, sent = self.channels.send_packet(ctx, port_id, channel_id, timeout_height, timeout_timestamp,
                                                   pd.to_bytes(data))
        return sequence, events + sent

    # Receiving.

    def receive(self, ctx, packet, data, events):
        """OnRecvPacket (the keeper's): vouchers minted to the receiver, or its own coins unescrowed when they come
        home; what it emits is appended to `events` as it goes (a failure keeps what came before it)."""
        try:
            amount = pd.validate(data)
        except TxError as error:
            raise wrap(error, "error validating ICS-20 transfer packet data") from None
        if not self.params(ctx).receive_enabled:
            raise e.transfer_error(e.RECEIVE_DISABLED)
        try:
            receiver = address_bytes(data.receiver, self.bank.prefix)
        except ValueError as error:
            raise plain(f"failed to decode receiver address: {data.receiver}: {error}") from None
        if denoms.receiver_chain_is_source(packet.source_port, packet.source_channel, data.denom):
            unprefixed = data.denom[len(denoms.denom_prefix(packet.source_port, packet.source_channel)):]
            denom = denoms.ibc_denom(denoms.parse_trace(unprefixed))
            if receiver in self.blocked:
                raise e.ibc_error(e.UNAUTHORIZED, f"{self.bank.bech32(receiver)} is not allowed to receive funds")
            escrow = denoms.escrow_address(packet.destination_port, packet.destination_channel)
            events += self._unescrow(ctx, escrow, receiver, denom, amount)
            return
        trace = denoms.parse_trace(denoms.denom_prefix(packet.destination_port, packet.destination_channel)
                                   + data.denom)
        digest = denoms.trace_hash(trace)
        if self.denom_trace(ctx, digest) is None:
            self.set_denom_trace(ctx, trace)
        voucher = denoms.ibc_denom(trace)
        if self.bank.metadata(ctx, voucher) is None:
            self.bank.set_metadata(ctx, voucher_metadata(trace))
        events.append(event("denomination_trace", ("trace_hash", denoms.hash_text(digest)), ("denom", voucher)))
        events += self._mint_to(ctx, receiver, voucher, amount)

    def on_recv_packet(self, ctx, packet, relayer):
        """The port's OnRecvPacket: (the acknowledgement, events), the fungible_token_packet event last."""
        events, error = [], None
        data = pd.packet_data("", "", "", "")
        try:
            data = pd.from_bytes(packet.data)
        except ValueError:
            error = e.ibc_error(e.INVALID_TYPE, "cannot unmarshal ICS-20 transfer packet data")
        if error is None:
            try:
                self.receive(ctx, packet, data, events)
            except TxError as failed:
                error = failed
        ack = Acknowledgement(result=b"\x01") if error is None else Acknowledgement.from_error(error)
        attributes = [("module", NAME), ("sender", data.sender), ("receiver", data.receiver), ("denom", data.denom),
                      ("amount", data.amount), ("memo", data.memo), ("success", "true" if ack.success else "false")]
        if error is not None:
            attributes.append(("error", error.log))
        return ack, events + [event("fungible_token_packet", *attributes)]

    # Acknowledgements and timeouts.

    @staticmethod
    def _sent_data(packet):
        try:
            return pd.from_bytes(packet.data)
        except ValueError as error:
            raise e.ibc_error(e.UNKNOWN_REQUEST, f"cannot unmarshal ICS-20 transfer packet data: {error}") from None

    def refund(self, ctx, packet, data):
        """refundPacketToken: the sender's tokens unescrowed (this chain their source) or minted back."""
        trace = denoms.parse_trace(data.denom)
        amount = pd.go_int(data.amount)
        if amount is None:
            raise e.transfer_error(e.INVALID_AMOUNT, f"unable to parse transfer amount ({data.amount}) into math.Int")
        denom = denoms.ibc_denom(trace)
        try:
            sender = address_bytes(data.sender, self.bank.prefix)
        except ValueError as error:
            raise plain(str(error)) from None
        if denoms.sender_chain_is_source(packet.source_port, packet.source_channel, data.denom):
            escrow = denoms.escrow_address(packet.source_port, packet.source_channel)
            return self._unescrow(ctx, escrow, sender, denom, amount)
        return self._mint_to(ctx, sender, denom, amount)

    def on_acknowledgement_packet(self, ctx, packet, ack, relayer):
        """The port's OnAcknowledgementPacket: a refund on an error acknowledgement; the events."""
        try:
            found = _acknowledgement(ack)
        except ValueError as error:
            raise e.ibc_error(e.UNKNOWN_REQUEST,
                              f"cannot unmarshal ICS-20 transfer packet acknowledgement: {error}") from None
        data = self._sent_data(packet)
        events = self.refund(ctx, packet, data) if found.WhichOneof("response") == "error" else []
        events.append(event("fungible_token_packet", ("module", NAME), ("sender", data.sender),
                            ("receiver", data.receiver), ("denom", data.denom), ("amount", data.amount),
                            ("memo", data.memo), ("acknowledgement", ack_text(found))))
        kind = found.WhichOneof("response")
        if kind == "result":
            events.append(event("fungible_token_packet", ("success", found.result.decode("utf-8", "replace"))))
        elif kind == "error":
            events.append(event("fungible_token_packet", ("error", found.error)))
        return events

    def on_timeout_packet(self, ctx, packet, relayer):
        """The port's OnTimeoutPacket: the sender refunded; the events."""
        data = self._sent_data(packet)
        events = self.refund(ctx, packet, data)
        events.append(event("timeout", ("module", NAME), ("refund_receiver", data.sender),
                            ("refund_denom", data.denom), ("refund_amount", data.amount), ("memo", data.memo)))
        return events


# ICS-20's success acknowledgement, byte for byte as every ibc-go chain writes it: read without ParseDict (~40 us).
_SUCCESS_ACK = b'{"result":"AQ=="}'


def _acknowledgement(raw):
    """ModuleCdc.UnmarshalJSON of an acknowledgement: ibc.core.channel.v1.Acknowledgement's proto JSON."""
    if raw == _SUCCESS_ACK:
        return channel_pb2.Acknowledgement(result=b"\x01")
    return pd.proto_json(raw, channel_pb2.Acknowledgement())


def _text_escape(raw):
    """The golang/protobuf v1 text format's quoting of a string or bytes field: C escapes, octal for the rest."""
    out = []
    for byte in raw:
        char = chr(byte)
        if char in '\n\r\t"\\':
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\"}[char])
        elif 0x20 <= byte < 0x7F:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def ack_text(ack):
    """Acknowledgement.String(): proto.CompactTextString, each field followed by a space."""
    kind = ack.WhichOneof("response")
    if kind == "result":
        return f"result:{_text_escape(ack.result)} "
    if kind == "error":
        return f"error:{_text_escape(ack.error.encode())} "
    return ""
