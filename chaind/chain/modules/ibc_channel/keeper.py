"""04-channel's keeper: channel ends at channelEnds/ports/{port}/channels/{ch}, the next send,
receive and ack sequences, the channel counter, the ports applications bind (05-port) and the handshake steps as
ibc-go v8.5's core msg server runs them, the counterparty's ends proven through 03-connection's keeper; packets are
PacketKeeper's (packets.py)."""

import struct

from chaind.chain.block import event
from chaind.chain.errors import TxError
from chaind.chain.modules.ibc_channel import errors as e
from chaind.chain.modules.ibc_channel.packets import PacketKeeper
from chaind.chain.modules.ibc_client import errors as client_errors
from chaind.chain.modules.ibc_client import host
from chaind.chain.modules.ibc_client import tendermint as tmc
from chaind.chain.modules.ibc_connection import errors as conn_errors
from chaind.chain.modules.ibc_connection import keeper as conn
from chaind.chain.modules.ibc_connection import version as conn_versions
from chaind.pb.ibc.core.channel.v1 import channel_pb2 as pb

NAME = "ibc_channel"
CATEGORY = "ibc_channel"        # the message event's module: ibc-go's "ibc" + "_" + "channel"
CHANNEL_PREFIX = "channel-"
DEFAULT_UPGRADE_TIMEOUT_NS = 10 * 60 * 10**9     # DefaultTimeout: ten minutes, height zero
_U64 = struct.Struct(">Q")

INIT, TRYOPEN, OPEN, CLOSED = pb.STATE_INIT, pb.STATE_TRYOPEN, pb.STATE_OPEN, pb.STATE_CLOSED
ORDERED, UNORDERED = pb.ORDER_ORDERED, pb.ORDER_UNORDERED


def state_name(state):
    return pb.State.Name(state) if state in pb.State.values() else str(state)


def order_name(order):
    return pb.Order.Name(order) if order in pb.Order.values() else str(order)


def default_params():
    """DefaultParams: an upgrade timeout of ten minutes at height zero."""
    found = pb.Params()
    found.upgrade_timeout.height.SetInParent()
    found.upgrade_timeout.timestamp = DEFAULT_UPGRADE_TIMEOUT_NS
    return found


def channel_end(state, ordering, counterparty, hops, version, upgrade_sequence=0):
    """NewChannel, with its non-nullable counterparty written as gogoproto writes it."""
    end = pb.Channel(state=state, ordering=ordering, connection_hops=list(hops), version=version,
                     upgrade_sequence=upgrade_sequence)
    end.counterparty.CopyFrom(counterparty)
    return end


def counterparty(port_id, channel_id):
    return pb.Counterparty(port_id=port_id, channel_id=channel_id)


def check_channel_id(channel_id):
    host.check_identifier(channel_id, 8, 64)


def check_port_id(port_id):
    host.check_identifier(port_id, 2, 128)


def is_valid_channel_id(channel_id):
    """IsValidChannelID: `channel-{N}`, N a uint64."""
    tail = channel_id.removeprefix(CHANNEL_PREFIX)
    return (channel_id.startswith(CHANNEL_PREFIX) and tail.isascii() and tail.isdigit() and len(tail) <= 20
            and int(tail) < 2**64)


def channel_path(port_id, channel_id):
    return f"channelEnds/ports/{port_id}/channels/{channel_id}"


def validate_counterparty(found):
    """Counterparty.ValidateBasic."""
    try:
        check_port_id(found.port_id)
    except TxError as error:
        raise client_errors.wrap(error, "invalid counterparty port ID") from None
    if found.channel_id:
        try:
            check_channel_id(found.channel_id)
        except TxError as error:
            raise client_errors.wrap(error, "invalid counterparty channel ID") from None


def validate_channel(end):
    """Channel.ValidateBasic."""
    if end.state == pb.STATE_UNINITIALIZED_UNSPECIFIED:
        raise e.channel_error(e.INVALID_STATE)
    if end.ordering not in (ORDERED, UNORDERED):
        raise e.channel_error(e.INVALID_ORDERING, order_name(end.ordering))
    if len(end.connection_hops) != 1:
        raise e.channel_error(e.TOO_MANY_HOPS, "current IBC version only supports one connection hop")
    try:
        conn.check_connection_id(end.connection_hops[0])
    except TxError as error:
        raise client_errors.wrap(error, "invalid connection hop ID") from None
    validate_counterparty(end.counterparty)


class ChannelKeeper(PacketKeeper):
    """Reads through a view or a block's context, writes through a block's context; `connections` is
    03-connection's keeper. Applications bind their ports with bind_port at app construction (05-port); a port's
    callbacks object answers on_chan_open_init/try(ctx, order, hops, port, channel, counterparty, version) with
    the version, on_chan_open_ack(ctx, port, channel, counterparty channel, counterparty version),
    on_chan_open_confirm, on_chan_close_init and on_chan_close_confirm(ctx, port, channel), raising TxError to
    refuse. For packets it answers on_recv_packet(ctx, packet, relayer) with (Acknowledgement or None for an
    asynchronous one, events), on_acknowledgement_packet(ctx, packet, ack bytes, relayer) and
    on_timeout_packet(ctx, packet, relayer) with events. Capabilities are not kept: a port is owned by the
    callbacks bound to it, a channel by its port's. `stack(application, callbacks)` puts the middleware other
    modules declare for an application around the callbacks it binds (the identity when not given)."""

    def __init__(self, connections, stack=None):
        self.connections = connections
        self.clients = connections.clients
        self.ports = {}
        self.stack = stack

    # 05-port.

    def bind_port(self, port_id, callbacks, application=None):
        """BindPort: `port_id` answered by `callbacks`, within the middleware stack of IBC application module
        `application` (the router's route for it); a port binds once."""
        check_port_id(port_id)
        if port_id in self.ports:
            raise e.port_error(e.PORT_EXISTS, port_id)
        if application is not None and self.stack is not None:
            callbacks = self.stack(application, callbacks)
        self.ports[port_id] = callbacks

    def _module_by_port(self, port_id):
        """LookupModuleByPort, as the msg server wraps its failure."""
        found = self.ports.get(port_id)
        if found is None:
            raise client_errors.wrap(e.capability_not_found(f"ports/{port_id}"),
                                     "could not retrieve module from port-id")
        return found

    def _module_by_channel(self, state, port_id, channel_id):
        """LookupModuleByChannel: a channel's capability exists once its end does, owned by its port's module."""
        found = self.ports.get(port_id)
        if found is None or self.channel(state, port_id, channel_id) is None:
            raise client_errors.wrap(e.capability_not_found(f"capabilities/ports/{port_id}/channels/{channel_id}"),
                                     "could not retrieve module from port-id")
        return found

    # Store.

    @staticmethod
    def channel(state, port_id, channel_id):
        """GetChannel: the Channel, or None."""
        raw = state.store.get(host.key(NAME, "channelEnds", "ports", port_id, "channels", channel_id))
        return None if not raw else pb.Channel.FromString(raw)

    @staticmethod
    def set_channel(ctx, port_id, channel_id, end):
        ctx.store.set(host.key(NAME, "channelEnds", "ports", port_id, "channels", channel_id),
                      end.SerializeToString())

    @staticmethod
    def channels(state):
        """[(port id, channel id, Channel)] of every channel, in ibc-go's store order (their paths' bytes)."""
        found = []
        for native, raw in state.store.iterate(host.scan_prefix(NAME, "channelEnds")):
            path = host.path_of(native[len(host.scan_prefix(NAME)):])
            parts = None if path is None else path.split(b"/")
            if parts and len(parts) == 5 and parts[1] == b"ports" and parts[3] == b"channels":
                found.append((parts[2].decode(), parts[4].decode(), pb.Channel.FromString(raw)))
        return sorted(found, key=lambda item: channel_path(item[0], item[1]).encode())

    @staticmethod
    def sequence(state, kind, port_id, channel_id):
        raw = state.store.get(host.key(NAME, kind, "ports", port_id, "channels", channel_id))
        return None if raw is None else _U64.unpack(raw)[0]

    @staticmethod
    def set_sequence(ctx, kind, port_id, channel_id, sequence):
        ctx.store.set(host.key(NAME, kind, "ports", port_id, "channels", channel_id), _U64.pack(sequence))

    def next_sequence_send(self, state, port_id, channel_id):
        return self.sequence(state, "nextSequenceSend", port_id, channel_id)

    def next_sequence_recv(self, state, port_id, channel_id):
        return self.sequence(state, "nextSequenceRecv", port_id, channel_id)

    def next_sequence_ack(self, state, port_id, channel_id):
        return self.sequence(state, "nextSequenceAck", port_id, channel_id)

    def set_next_sequence_send(self, ctx, port_id, channel_id, sequence):
        self.set_sequence(ctx, "nextSequenceSend", port_id, channel_id, sequence)

    def set_next_sequence_recv(self, ctx, port_id, channel_id, sequence):
        self.set_sequence(ctx, "nextSequenceRecv", port_id, channel_id, sequence)

    def set_next_sequence_ack(self, ctx, port_id, channel_id, sequence):
        self.set_sequence(ctx, "nextSequenceAck", port_id, channel_id, sequence)

    def sequences(self, state, kind):
        """[(port id, channel id, sequence)] of every channel's `kind` ("nextSequenceSend"...), in store order."""
        found = []
        for native, raw in state.store.iterate(host.scan_prefix(NAME, kind)):
            path = host.path_of(native[len(host.scan_prefix(NAME)):])
            parts = None if path is None else path.split(b"/")
            if parts and len(parts) == 5:
                found.append((parts[2].decode(), parts[4].decode(), _U64.unpack(raw)[0]))
        return sorted(found, key=lambda item: f"{kind}/ports/{item[0]}/channels/{item[1]}".encode())

    @staticmethod
    def params(state):
        """The params (the upgrade timeout); a chain whose genesis had no ibc section has ibc-go's default."""
        raw = state.store.get(host.key(NAME, "channelParams"))
        return default_params() if raw is None else pb.Params.FromString(raw)

    @staticmethod
    def set_params(ctx, params):
        ctx.store.set(host.key(NAME, "channelParams"), params.SerializeToString())

    @staticmethod
    def next_channel_sequence(state):
        raw = state.store.get(host.key(NAME, "nextChannelSequence"))
        return 0 if raw is None else _U64.unpack(raw)[0]

    @staticmethod
    def set_next_channel_sequence(ctx, sequence):
        ctx.store.set(host.key(NAME, "nextChannelSequence"), _U64.pack(sequence))

    def _generate_id(self, ctx):
        sequence = self.next_channel_sequence(ctx)
        self.set_next_channel_sequence(ctx, sequence + 1)
        return f"{CHANNEL_PREFIX}{sequence}"

    # Checks the steps share.

    def _connection(self, state, connection_id):
        end = self.connections.connection(state, connection_id)
        if end is None:
            raise conn_errors.connection_error(conn_errors.CONNECTION_NOT_FOUND, connection_id)
        return end

    @staticmethod
    def _open(end):
        if end.state != conn.OPEN:
            raise conn_errors.connection_error(
                conn_errors.INVALID_STATE, f"connection state is not OPEN (got {conn.state_name(end.state)})")

    @staticmethod
    def _supports(end, ordering):
        if len(end.versions) != 1:
            raise conn_errors.connection_error(
                conn_errors.INVALID_VERSION, "single version must be negotiated on connection before opening "
                f"channel, got: {conn_versions.texts(end.versions)}")
        if order_name(ordering) not in end.versions[0].features:
            raise conn_errors.connection_error(
                conn_errors.INVALID_VERSION, f"connection version {conn_versions.text(end.versions[0])} does not "
                f"support channel ordering: {order_name(ordering)}")

    def _active(self, state, client_id):
        cs = self.clients.client_state(state, client_id)
        if cs is None:
            raise client_errors.client_error(client_errors.CLIENT_NOT_FOUND, f"clientID ({client_id})")
        status = self.clients.status(state, client_id, state.time_ns, cs)
        if status != tmc.ACTIVE:
            raise client_errors.client_error(client_errors.CLIENT_NOT_ACTIVE,
                                             f"client ({client_id}) status is {status}")

    def _existing(self, state, port_id, channel_id):
        end = self.channel(state, port_id, channel_id)
        if end is None:
            raise e.channel_error(e.CHANNEL_NOT_FOUND, f"port ID ({port_id}) channel ID ({channel_id})")
        return end

    def _verify_channel(self, ctx, connection, height, proof, port_id, channel_id, expected):
        """VerifyChannelState: the counterparty holds `expected` at its channel end's path."""
        self.connections.verify_path(ctx, connection, height, proof, channel_path(port_id, channel_id).encode(),
                                     expected.SerializeToString(), "channel state")

    @staticmethod
    def _events(kind, port_id, channel_id, end, with_channel=True, with_version=True):
        attributes = [("port_id", port_id), ("channel_id", channel_id),
                      ("counterparty_port_id", end.counterparty.port_id)]
        if with_channel:
            attributes.append(("counterparty_channel_id", end.counterparty.channel_id))
        attributes.append(("connection_id", end.connection_hops[0]))
        if with_version:
            attributes.append(("version", end.version))
        return [event(kind, *attributes), event("message", ("module", CATEGORY))]

    def _write_new(self, ctx, port_id, channel_id, end):
        self.set_channel(ctx, port_id, channel_id, end)
        self.set_next_sequence_send(ctx, port_id, channel_id, 1)
        self.set_next_sequence_recv(ctx, port_id, channel_id, 1)
        self.set_next_sequence_ack(ctx, port_id, channel_id, 1)

    # The handshake: msg server and keeper steps in ibc-go's order.

    def open_init(self, ctx, port_id, proposed):
        """ChannelOpenInit: a new end in INIT with the version the port's app answers; (channel id, version,
        events)."""
        app = self._module_by_port(port_id)
        hops = list(proposed.connection_hops)
        try:
            connection = self._connection(ctx, hops[0])
            self._supports(connection, proposed.ordering)
            self._active(ctx, connection.client_id)
        except TxError as error:
            raise client_errors.wrap(error, "channel handshake open init failed") from None
        channel_id = self._generate_id(ctx)
        try:
            version = app.on_chan_open_init(ctx, proposed.ordering, hops, port_id, channel_id, proposed.counterparty,
                                            proposed.version)
        except TxError as error:
            raise client_errors.wrap(error, f"channel open init callback failed for port ID: {port_id}, channel "
                                     f"ID: {channel_id}") from None
        end = channel_end(INIT, proposed.ordering, proposed.counterparty, hops, version)
        self._write_new(ctx, port_id, channel_id, end)
        return channel_id, version, self._events("channel_open_init", port_id, channel_id, end, with_channel=False)

    def open_try(self, ctx, port_id, proposed, their_version, proof_init, proof_height):
        """ChannelOpenTry: the counterparty's INIT end proven, a new end in TRYOPEN; (channel id, version,
        events)."""
        app = self._module_by_port(port_id)
        hops = list(proposed.connection_hops)
        try:
            if len(hops) != 1:
                raise e.channel_error(e.TOO_MANY_HOPS, f"expected 1, got {len(hops)}")
            channel_id = self._generate_id(ctx)
            connection = self._connection(ctx, hops[0])
            self._open(connection)
            self._supports(connection, proposed.ordering)
            expected = channel_end(INIT, proposed.ordering, counterparty(port_id, ""),
                                   [connection.counterparty.connection_id], their_version)
            self._verify_channel(ctx, connection, proof_height, proof_init, proposed.counterparty.port_id,
                                 proposed.counterparty.channel_id, expected)
        except TxError as error:
            raise client_errors.wrap(error, "channel handshake open try failed") from None
        try:
            version = app.on_chan_open_try(ctx, proposed.ordering, hops, port_id, channel_id, proposed.counterparty,
                                           their_version)
        except TxError as error:
            raise client_errors.wrap(error, f"channel open try callback failed for port ID: {port_id}, channel "
                                     f"ID: {channel_id}") from None
        end = channel_end(TRYOPEN, proposed.ordering, proposed.counterparty, hops, version)
        self._write_new(ctx, port_id, channel_id, end)
        return channel_id, version, self._events("channel_open_try", port_id, channel_id, end)

    def open_ack(self, ctx, port_id, channel_id, their_version, their_channel_id, proof_try, proof_height):
        """ChannelOpenAck: the counterparty's TRYOPEN end proven, ours OPEN with their channel id and version."""
        app = self._module_by_channel(ctx, port_id, channel_id)
        try:
            end = self._existing(ctx, port_id, channel_id)
            if end.state != INIT:
                raise e.channel_error(e.INVALID_STATE, f"channel state should be INIT (got {state_name(end.state)})")
            connection = self._connection(ctx, end.connection_hops[0])
            self._open(connection)
            expected = channel_end(TRYOPEN, end.ordering, counterparty(port_id, channel_id),
                                   [connection.counterparty.connection_id], their_version)
            self._verify_channel(ctx, connection, proof_height, proof_try, end.counterparty.port_id,
                                 their_channel_id, expected)
        except TxError as error:
            raise client_errors.wrap(error, "channel handshake open ack failed") from None
        end.state, end.version, end.counterparty.channel_id = OPEN, their_version, their_channel_id
        self.set_channel(ctx, port_id, channel_id, end)
        events = self._events("channel_open_ack", port_id, channel_id, end, with_version=False)
        try:
            app.on_chan_open_ack(ctx, port_id, channel_id, their_channel_id, their_version)
        except TxError as error:
            raise client_errors.wrap(error, f"channel open ack callback failed for port ID: {port_id}, channel "
                                     f"ID: {channel_id}") from None
        return events

    def open_confirm(self, ctx, port_id, channel_id, proof_ack, proof_height):
        """ChannelOpenConfirm: the counterparty's OPEN end proven, ours OPEN."""
        app = self._module_by_channel(ctx, port_id, channel_id)
        try:
            end = self._existing(ctx, port_id, channel_id)
            if end.state != TRYOPEN:
                raise e.channel_error(e.INVALID_STATE, f"channel state is not TRYOPEN (got {state_name(end.state)})")
            connection = self._connection(ctx, end.connection_hops[0])
            self._open(connection)
            expected = channel_end(OPEN, end.ordering, counterparty(port_id, channel_id),
                                   [connection.counterparty.connection_id], end.version)
            self._verify_channel(ctx, connection, proof_height, proof_ack, end.counterparty.port_id,
                                 end.counterparty.channel_id, expected)
        except TxError as error:
            raise client_errors.wrap(error, "channel handshake open confirm failed") from None
        end.state = OPEN
        self.set_channel(ctx, port_id, channel_id, end)
        events = self._events("channel_open_confirm", port_id, channel_id, end, with_version=False)
        try:
            app.on_chan_open_confirm(ctx, port_id, channel_id)
        except TxError as error:
            raise client_errors.wrap(error, f"channel open confirm callback failed for port ID: {port_id}, channel "
                                     f"ID: {channel_id}") from None
        return events

    def close_init(self, ctx, port_id, channel_id):
        """ChannelCloseInit: the app's callback first (it may refuse, as ICS-20 does), then ours CLOSED."""
        app = self._module_by_channel(ctx, port_id, channel_id)
        try:
            app.on_chan_close_init(ctx, port_id, channel_id)
        except TxError as error:
            raise client_errors.wrap(error, f"channel close init callback failed for port ID: {port_id}, channel "
                                     f"ID: {channel_id}") from None
        try:
            end = self._existing(ctx, port_id, channel_id)
            if end.state == CLOSED:
                raise e.channel_error(e.INVALID_STATE, "channel is already CLOSED")
            connection = self._connection(ctx, end.connection_hops[0])
            self._active(ctx, connection.client_id)
            self._open(connection)
        except TxError as error:
            raise client_errors.wrap(error, "channel handshake close init failed") from None
        end.state = CLOSED
        self.set_channel(ctx, port_id, channel_id, end)
        return self._events("channel_close_init", port_id, channel_id, end, with_version=False)

    def close_confirm(self, ctx, port_id, channel_id, proof_init, proof_height, their_upgrade_sequence):
        """ChannelCloseConfirm: the counterparty's CLOSED end proven, ours CLOSED."""
        app = self._module_by_channel(ctx, port_id, channel_id)
        try:
            app.on_chan_close_confirm(ctx, port_id, channel_id)
        except TxError as error:
            raise client_errors.wrap(error, f"channel close confirm callback failed for port ID: {port_id}, "
                                     f"channel ID: {channel_id}") from None
        try:
            end = self._existing(ctx, port_id, channel_id)
            if end.state == CLOSED:
                raise e.channel_error(e.INVALID_STATE, "channel is already CLOSED")
            connection = self._connection(ctx, end.connection_hops[0])
            self._open(connection)
            expected = channel_end(CLOSED, end.ordering, counterparty(port_id, channel_id),
                                   [connection.counterparty.connection_id], end.version, their_upgrade_sequence)
            self._verify_channel(ctx, connection, proof_height, proof_init, end.counterparty.port_id,
                                 end.counterparty.channel_id, expected)
        except TxError as error:
            raise client_errors.wrap(error, "channel handshake close confirm failed") from None
        end.state = CLOSED
        self.set_channel(ctx, port_id, channel_id, end)
        return self._events("channel_close_confirm", port_id, channel_id, end, with_version=False)
