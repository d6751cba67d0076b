"""04-channel's packets as ibc-go v8.5 keeps them: commitments, receipts and acknowledgements under their ICS-24
paths, SendPacket for applications, and the keeper steps of MsgRecvPacket, MsgAcknowledgement, MsgTimeout and
MsgTimeoutOnClose with their timeout checks, replay protection, proofs and events."""

import base64
import hashlib
import json
import struct

import attrs

from chaind.chain.block import event
from chaind.chain.errors import TxError
from chaind.chain.modules.ibc_channel import errors as e
from chaind.chain.modules.ibc_client import errors as client_errors
from chaind.chain.modules.ibc_client import host
from chaind.chain.modules.ibc_client import tendermint as tmc
from chaind.chain.modules.ibc_connection import errors as conn_errors
from chaind.pb.ibc.core.channel.v1 import channel_pb2 as pb

NAME = "ibc_channel"
CATEGORY = "ibc_channel"
RECEIPT = b"\x01"           # UNORDERED channels' receipt: ibc-go's byte{1}
_U64 = struct.Struct(">Q")
_OPEN, _CLOSED, _ORDERED, _UNORDERED = pb.STATE_OPEN, pb.STATE_CLOSED, pb.ORDER_ORDERED, pb.ORDER_UNORDERED


class NoOp(Exception):
    """ErrNoOpMsg: a redundant relay, which the msg server answers with RESPONSE_RESULT_TYPE_NOOP."""


@attrs.frozen
class Acknowledgement:
    """What an application's on_recv_packet answers (ibc-go's channeltypes.Acknowledgement): a result or an
    error; `success` keeps the callback's writes, a failure discards them (the msg server's cache context)."""

    result: bytes = b""
    error: str = ""

    @classmethod
    def from_error(cls, error):
        """NewErrorAcknowledgement of a TxError: only its code, which is deterministic, not its text."""
        return cls(error=f"ABCI code: {error.code}: error handling packet: see events for details")

    @property
    def success(self):
        return not self.error

    def bytes(self):
        """Acknowledgement(): its proto JSON with sorted keys, what the ack commitment hashes and relayers carry."""
        body = {"error": self.error} if self.error else {"result": base64.b64encode(self.result).decode()}
        return json.dumps(body, separators=(",", ":"), sort_keys=True).encode()


def commit_packet(packet):
    """CommitPacket (v1): sha256(timeout timestamp || timeout revision number || timeout revision height ||
    sha256(data)), each number 8 bytes big-endian."""
    height = packet.timeout_height
    return hashlib.sha256(_U64.pack(packet.timeout_timestamp) + _U64.pack(height.revision_number)
                          + _U64.pack(height.revision_height) + hashlib.sha256(packet.data).digest()).digest()


def commit_acknowledgement(ack):
    return hashlib.sha256(ack).digest()


def packet_path(kind, port_id, channel_id, sequence):
    """`commitments`, `receipts` or `acks`/ports/{port}/channels/{ch}/sequences/{n}."""
    return f"{kind}/ports/{port_id}/channels/{channel_id}/sequences/{sequence}"


def _key(kind, port_id, channel_id, sequence):
    return host.key(NAME, kind, "ports", port_id, "channels", channel_id, "sequences", str(sequence))


def _height_zero(height):
    return height.revision_number == 0 and height.revision_height == 0


def _height_text(height):
    return f"{height.revision_number}-{height.revision_height}"


def _height_elapsed(packet, height):
    timeout = packet.timeout_height
    return not _height_zero(timeout) and (height[0], height[1]) >= (timeout.revision_number, timeout.revision_height)


def _timestamp_elapsed(packet, timestamp):
    return packet.timeout_timestamp != 0 and timestamp >= packet.timeout_timestamp


def _elapsed(packet, height, timestamp):
    """Timeout.Elapsed at (revision, height) and a time in ns."""
    return _height_elapsed(packet, height) or _timestamp_elapsed(packet, timestamp)


def _timeout_elapsed(packet, height, timestamp):
    """ErrTimeoutElapsed as Timeout.ErrTimeoutElapsed words it."""
    if _height_elapsed(packet, height):
        detail = f"current height: {height[0]}-{height[1]}, timeout height {_height_text(packet.timeout_height)}"
    else:
        detail = f"current timestamp: {timestamp}, timeout timestamp {packet.timeout_timestamp}"
    return e.channel_error(e.TIMEOUT_ELAPSED, detail)


def _timeout_not_reached(packet, height, timestamp):
    if not _height_zero(packet.timeout_height) and not _height_elapsed(packet, height):
        detail = f"current height: {height[0]}-{height[1]}, timeout height {_height_text(packet.timeout_height)}"
    else:
        detail = f"current timestamp: {timestamp}, timeout timestamp {packet.timeout_timestamp}"
    return e.channel_error(e.TIMEOUT_NOT_REACHED, detail)


def validate_packet(packet):
    """Packet.ValidateBasic."""
    for text, check in ((packet.source_port, "source port"), (packet.destination_port, "destination port")):
        try:
            host.check_identifier(text, 2, 128)
        except TxError as error:
            raise client_errors.wrap(error, f"invalid {check} ID") from None
    for text, check in ((packet.source_channel, "source channel"),
                        (packet.destination_channel, "destination channel")):
        try:
            host.check_identifier(text, 8, 64)
        except TxError as error:
            raise client_errors.wrap(error, f"invalid {check} ID") from None
    if packet.sequence == 0:
        raise e.channel_error(e.INVALID_PACKET, "packet sequence cannot be 0")
    if _height_zero(packet.timeout_height) and packet.timeout_timestamp == 0:
        raise e.channel_error(e.INVALID_PACKET, "packet timeout height and packet timeout timestamp cannot both be 0")
    if not packet.data:
        raise e.channel_error(e.INVALID_PACKET, "packet data bytes cannot be empty")


def _order(end):
    return pb.Order.Name(end.ordering) if end.ordering in pb.Order.values() else str(end.ordering)


def _state(end):
    return pb.State.Name(end.state) if end.state in pb.State.values() else str(end.state)


def _packet_attributes(packet, timeout_height=None):
    return [("packet_timeout_height", _height_text(timeout_height or packet.timeout_height)),
            ("packet_timeout_timestamp", str(packet.timeout_timestamp)), ("packet_sequence", str(packet.sequence)),
            ("packet_src_port", packet.source_port), ("packet_src_channel", packet.source_channel),
            ("packet_dst_port", packet.destination_port), ("packet_dst_channel", packet.destination_channel)]


def _data_attributes(packet):
    # packet_data is Go's string(bytes): invalid UTF-8 becomes U+FFFD as CometBFT's JSON writes it.
    return [("packet_data", packet.data.decode("utf-8", "replace")), ("packet_data_hex", packet.data.hex())]


def _connection_attributes(end):
    return [("packet_channel_ordering", _order(end)), ("packet_connection", end.connection_hops[0]),
            ("connection_id", end.connection_hops[0])]


def _message():
    return event("message", ("module", CATEGORY))


class PacketKeeper:
    """The packet half of ChannelKeeper (which it is mixed into): its channel, sequence, connection and client
    reads are the handshake's."""

    # Store.

    @staticmethod
    def packet_commitment(state, port_id, channel_id, sequence):
        return state.store.get(_key("commitments", port_id, channel_id, sequence)) or None

    @staticmethod
    def has_packet_receipt(state, port_id, channel_id, sequence):
        return state.store.get(_key("receipts", port_id, channel_id, sequence)) is not None

    @staticmethod
    def packet_acknowledgement(state, port_id, channel_id, sequence):
        return state.store.get(_key("acks", port_id, channel_id, sequence)) or None

    @staticmethod
    def packet_states(state, kind, port_id, channel_id):
        """[(sequence, value)] under `kind` ("commitments", "receipts", "acks") of one channel, by sequence."""
        prefix = host.scan_prefix(NAME, kind, "ports", port_id, "channels", channel_id, "sequences")
        found = []
        for native, raw in state.store.iterate(prefix):
            path = host.path_of(native[len(host.scan_prefix(NAME)):])
            parts = None if path is None else path.split(b"/")
            if parts and len(parts) == 7 and parts[6].isdigit():
                found.append((int(parts[6]), raw))
        return sorted(found)

    # SendPacket, for applications.

    def send_packet(self, ctx, port_id, channel_id, timeout_height, timeout_timestamp, data):
        """SendPacket: the next send sequence's packet committed on an OPEN channel, unless its timeout has passed
        on the counterparty as our client of it knows it; (sequence, events). `timeout_height` is an
        ibc.core.client.v1.Height."""
        end = self.channel(ctx, port_id, channel_id)
        if end is None:
            raise e.channel_error(e.CHANNEL_NOT_FOUND, channel_id)
        if end.state != _OPEN:
            raise e.channel_error(e.INVALID_STATE, f"channel is not OPEN (got {_state(end)})")
        sequence = self.next_sequence_send(ctx, port_id, channel_id)
        if sequence is None:
            raise e.channel_error(e.SEQUENCE_SEND_NOT_FOUND, f"source port: {port_id}, source channel: {channel_id}")
        packet = pb.Packet(sequence=sequence, source_port=port_id, source_channel=channel_id,
                           destination_port=end.counterparty.port_id, destination_channel=end.counterparty.channel_id,
                           data=data, timeout_timestamp=timeout_timestamp)
        packet.timeout_height.CopyFrom(timeout_height)
        try:
            validate_packet(packet)
        except TxError as error:
            raise client_errors.wrap(error, "constructed packet failed basic validation") from None
        connection = self.connections.connection(ctx, end.connection_hops[0])
        if connection is None:
            raise conn_errors.connection_error(conn_errors.CONNECTION_NOT_FOUND, end.connection_hops[0])
        cs = self.clients.client_state(ctx, connection.client_id)
        if cs is None:
            raise client_errors.client_error(client_errors.CLIENT_NOT_FOUND)
        status = self.clients.status(ctx, connection.client_id, ctx.time_ns, cs)
        if status != tmc.ACTIVE:
            raise client_errors.client_error(
                client_errors.CLIENT_NOT_ACTIVE,
                f"cannot send packet using client ({connection.client_id}) with status {status}")
        latest = host.height_of(cs.latest_height)
        latest_time = self.connections.timestamp_at_height(ctx, connection, latest)
        if _elapsed(packet, latest, latest_time):
            raise client_errors.wrap(_timeout_elapsed(packet, latest, latest_time), "invalid packet timeout")
        self.set_next_sequence_send(ctx, port_id, channel_id, sequence + 1)
        ctx.store.set(_key("commitments", port_id, channel_id, sequence), commit_packet(packet))
        attributes = _data_attributes(packet) + _packet_attributes(packet, timeout_height) + _connection_attributes(end)
        return sequence, [event("send_packet", *attributes), _message()]

    # The relayer's messages, keeper steps.

    def _counterparty_matches(self, end, port_id, channel_id, side):
        if port_id != end.counterparty.port_id:
            raise e.channel_error(e.INVALID_PACKET, f"packet {side} port doesn't match the counterparty's port "
                                  f"({port_id} ≠ {end.counterparty.port_id})")
        if channel_id != end.counterparty.channel_id:
            raise e.channel_error(e.INVALID_PACKET, f"packet {side} channel doesn't match the counterparty's channel "
                                  f"({channel_id} ≠ {end.counterparty.channel_id})")

    def _hop(self, ctx, end):
        connection = self.connections.connection(ctx, end.connection_hops[0])
        if connection is None:
            raise conn_errors.connection_error(conn_errors.CONNECTION_NOT_FOUND, end.connection_hops[0])
        return connection

    def _source_end(self, ctx, packet):
        end = self.channel(ctx, packet.source_port, packet.source_channel)
        if end is None:
            raise e.channel_error(e.CHANNEL_NOT_FOUND,
                                  f"port ID ({packet.source_port}) channel ID ({packet.source_channel})")
        return end

    def recv_packet(self, ctx, packet, proof, proof_height):
        """RecvPacket: the counterparty's commitment proven and replay protection applied; the recv_packet
        events. NoOp for a packet received before."""
        end = self.channel(ctx, packet.destination_port, packet.destination_channel)
        if end is None:
            raise e.channel_error(e.CHANNEL_NOT_FOUND, packet.destination_channel)
        if end.state != _OPEN:
            raise e.channel_error(e.INVALID_STATE, "expected channel state to be one of [STATE_OPEN, STATE_FLUSHING, "
                                  f"STATE_FLUSHCOMPLETE], but got {_state(end)}")
        self._counterparty_matches(end, packet.source_port, packet.source_channel, "source")
        connection = self._hop(ctx, end)
        self._open(connection)
        now = host.self_height(self.clients.chain_id, ctx.height)
        if _elapsed(packet, now, ctx.time_ns):
            raise client_errors.wrap(_timeout_elapsed(packet, now, ctx.time_ns), "packet timeout elapsed")
        try:
            self.connections.verify_path(
                ctx, connection, proof_height, proof,
                packet_path("commitments", packet.source_port, packet.source_channel, packet.sequence).encode(),
                commit_packet(packet), "packet commitment", delay=True)
        except TxError as error:
            raise client_errors.wrap(error, "couldn't verify counterparty packet commitment") from None
        port_id, channel_id = packet.destination_port, packet.destination_channel
        if end.ordering == _UNORDERED:
            if self.has_packet_receipt(ctx, port_id, channel_id, packet.sequence):
                raise NoOp
            ctx.store.set(_key("receipts", port_id, channel_id, packet.sequence), RECEIPT)
        else:
            expected = self.next_sequence_recv(ctx, port_id, channel_id)
            if expected is None:
                raise e.channel_error(e.SEQUENCE_RECV_NOT_FOUND,
                                      f"destination port: {port_id}, destination channel: {channel_id}")
            if packet.sequence < expected:
                raise NoOp
            if packet.sequence != expected:
                raise e.channel_error(e.OUT_OF_ORDER,
                                      f"packet sequence ≠ next receive sequence ({packet.sequence} ≠ {expected})")
            self.set_next_sequence_recv(ctx, port_id, channel_id, expected + 1)
        attributes = _data_attributes(packet) + _packet_attributes(packet) + _connection_attributes(end)
        return [event("recv_packet", *attributes), _message()]

    def write_acknowledgement(self, ctx, packet, ack):
        """WriteAcknowledgement: sha256 of the ack bytes at acks/...; the write_acknowledgement events. Applications
        that acknowledge asynchronously call it later with the packet they received."""
        port_id, channel_id = packet.destination_port, packet.destination_channel
        end = self.channel(ctx, port_id, channel_id)
        if end is None:
            raise e.channel_error(e.CHANNEL_NOT_FOUND, channel_id)
        if end.state != _OPEN:
            raise e.channel_error(e.INVALID_STATE, "expected one of [STATE_OPEN, STATE_FLUSHING, STATE_FLUSHCOMPLETE], "
                                  f"got {_state(end)}")
        if self.packet_acknowledgement(ctx, port_id, channel_id, packet.sequence) is not None:
            raise e.channel_error(e.ACK_EXISTS)
        if ack is None:
            raise e.channel_error(e.INVALID_ACK, "acknowledgement cannot be nil")
        raw = ack.bytes()
        ctx.store.set(_key("acks", port_id, channel_id, packet.sequence), commit_acknowledgement(raw))
        attributes = (_data_attributes(packet) + _packet_attributes(packet)
                      + [("packet_ack", raw.decode("utf-8", "replace")), ("packet_ack_hex", raw.hex())]
                      + _connection_attributes(end))
        return [event("write_acknowledgement", *attributes), _message()]

    def acknowledge_packet(self, ctx, packet, ack, proof, proof_height):
        """AcknowledgePacket: the counterparty's ack commitment proven, our packet commitment deleted; the
        acknowledge_packet events. NoOp for a packet acknowledged (or timed out) before."""
        end = self._source_end(ctx, packet)
        if end.state != _OPEN:
            raise e.channel_error(e.INVALID_STATE,
                                  f"packets cannot be acknowledged on channel with state ({_state(end)})")
        self._counterparty_matches(end, packet.destination_port, packet.destination_channel, "destination")
        connection = self._hop(ctx, end)
        self._open(connection)
        port_id, channel_id = packet.source_port, packet.source_channel
        stored = self.packet_commitment(ctx, port_id, channel_id, packet.sequence)
        if stored is None:
            raise NoOp
        computed = commit_packet(packet)
        if stored != computed:
            raise e.channel_error(e.INVALID_PACKET, f"commitment bytes are not equal: got ({list(computed)}), "
                                  f"expected ({list(stored)})")
        self.connections.verify_path(
            ctx, connection, proof_height, proof,
            packet_path("acks", packet.destination_port, packet.destination_channel, packet.sequence).encode(),
            commit_acknowledgement(ack), "packet acknowledgement", delay=True)
        if end.ordering == _ORDERED:
            expected = self.next_sequence_ack(ctx, port_id, channel_id)
            if expected is None:
                raise e.channel_error(e.SEQUENCE_ACK_NOT_FOUND, f"source port: {port_id}, source channel: {channel_id}")
            if packet.sequence != expected:
                raise e.channel_error(e.OUT_OF_ORDER,
                                      f"packet sequence ≠ next ack sequence ({packet.sequence} ≠ {expected})")
            self.set_next_sequence_ack(ctx, port_id, channel_id, expected + 1)
        ctx.store.delete(_key("commitments", port_id, channel_id, packet.sequence))
        return [event("acknowledge_packet", *_packet_attributes(packet), *_connection_attributes(end)), _message()]

    def _stored_commitment(self, ctx, packet):
        stored = self.packet_commitment(ctx, packet.source_port, packet.source_channel, packet.sequence)
        if stored is None:
            raise NoOp
        computed = commit_packet(packet)
        if stored != computed:
            raise e.channel_error(e.INVALID_PACKET, f"packet commitment bytes are not equal: got ({list(stored)}), "
                                  f"expected ({list(computed)})")

    def _verify_unreceived(self, ctx, connection, end, packet, proof, proof_height, next_sequence_recv, code):
        """The counterparty never received the packet: nextSequenceRecv (ORDERED) or no receipt (UNORDERED)."""
        if end.ordering == _ORDERED:
            if next_sequence_recv > packet.sequence:
                # TimeoutOnClose's text lacks its closing parenthesis in ibc-go.
                close = ")" if code == e.RECEIVED else ""
                raise e.channel_error(code, "packet already received, next sequence receive > packet sequence "
                                      f"({next_sequence_recv} > {packet.sequence}{close}")
            path = f"nextSequenceRecv/ports/{packet.destination_port}/channels/{packet.destination_channel}"
            self.connections.verify_path(ctx, connection, proof_height, proof, path.encode(),
                                         _U64.pack(next_sequence_recv), "next sequence receive", delay=True)
        else:
            path = packet_path("receipts", packet.destination_port, packet.destination_channel, packet.sequence)
            self.connections.verify_path(ctx, connection, proof_height, proof, path.encode(), None,
                                         "packet receipt absence", delay=True)

    def timeout_packet(self, ctx, packet, proof, proof_height, next_sequence_recv):
        """TimeoutPacket: the timeout passed on the counterparty at the proof height, and it never received the
        packet. NoOp for a packet acknowledged or timed out before."""
        end = self._source_end(ctx, packet)
        self._counterparty_matches(end, packet.destination_port, packet.destination_channel, "destination")
        connection = self._hop(ctx, end)
        proof_time = self.connections.timestamp_at_height(ctx, connection, proof_height)
        if not _elapsed(packet, proof_height, proof_time):
            raise client_errors.wrap(_timeout_not_reached(packet, proof_height, proof_time),
                                     "packet timeout not reached")
        self._stored_commitment(ctx, packet)
        self._verify_unreceived(ctx, connection, end, packet, proof, proof_height, next_sequence_recv, e.RECEIVED)

    def timeout_on_close(self, ctx, packet, proof, proof_close, proof_height, next_sequence_recv,
                         their_upgrade_sequence):
        """TimeoutOnCloseWithCounterpartyUpgradeSequence: the counterparty's end proven CLOSED and the packet never
        received there. NoOp as timeout_packet."""
        end = self._source_end(ctx, packet)
        self._counterparty_matches(end, packet.destination_port, packet.destination_channel, "destination")
        connection = self._hop(ctx, end)
        self._stored_commitment(ctx, packet)
        expected = pb.Channel(state=_CLOSED, ordering=end.ordering, connection_hops=[
            connection.counterparty.connection_id], version=end.version, upgrade_sequence=their_upgrade_sequence)
        expected.counterparty.port_id, expected.counterparty.channel_id = packet.source_port, packet.source_channel
        self._verify_channel(ctx, connection, proof_height, proof_close, end.counterparty.port_id,
                             end.counterparty.channel_id, expected)
        self._verify_unreceived(ctx, connection, end, packet, proof, proof_height, next_sequence_recv,
                                e.INVALID_PACKET)

    def timeout_executed(self, ctx, packet):
        """TimeoutExecuted: the commitment deleted, an ORDERED channel CLOSED; the events."""
        port_id, channel_id = packet.source_port, packet.source_channel
        end = self._source_end(ctx, packet)
        ctx.store.delete(_key("commitments", port_id, channel_id, packet.sequence))
        events = []
        if end.ordering == _ORDERED:
            end.state = _CLOSED
            self.set_channel(ctx, port_id, channel_id, end)
            events += [event("channel_close", ("port_id", port_id), ("channel_id", channel_id),
                             ("counterparty_port_id", end.counterparty.port_id),
                             ("counterparty_channel_id", end.counterparty.channel_id),
                             ("connection_id", end.connection_hops[0]), ("packet_channel_ordering", _order(end))),
                       _message()]
        attributes = _packet_attributes(packet) + [("connection_id", end.connection_hops[0]),
                                                   ("packet_channel_ordering", _order(end))]
        return events + [event("timeout_packet", *attributes), _message()]
