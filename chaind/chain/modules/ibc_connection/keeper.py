"""03-connection's keeper: connection ends at connections/{id}, each client's connection ids at
clients/{id}/connections, the connection counter and params in the `ibc` store, and the four-step handshake as
ibc-go v8.5 runs it (since v8.5.0, #7129, the handshake no longer proves the counterparty's client of us nor its
consensus state: the deprecated fields are not read)."""

import math
import struct

from chaind.chain.block import event
from chaind.chain.errors import TxError
from chaind.chain.modules.ibc_client import errors as client_errors
from chaind.chain.modules.ibc_client import host
from chaind.chain.modules.ibc_client import tendermint as tmc
from chaind.chain.modules.ibc_connection import errors as e
from chaind.chain.modules.ibc_connection import version as versions
from chaind.pb.ibc.core.connection.v1 import connection_pb2 as pb

NAME = "ibc_connection"
CATEGORY = "ibc_connection"     # the message event's module: ibc-go's "ibc" + "_" + "connection"
PREFIX = b"ibc"                 # our commitment prefix: the store key of the ibc store
CONNECTION_PREFIX = "connection-"
DEFAULT_TIME_PER_BLOCK = 30 * 10**9
LOCALHOST_CLIENT = "09-localhost"
LOCALHOST_CONNECTION = "connection-localhost"
_U64 = struct.Struct(">Q")

INIT, TRYOPEN, OPEN = pb.STATE_INIT, pb.STATE_TRYOPEN, pb.STATE_OPEN


def state_name(state):
    return pb.State.Name(state)


def connection_end(state, client_id, counterparty, versions_, delay_period):
    """NewConnectionEnd, with its non-nullable counterparty and prefix written as gogoproto writes them."""
    end = pb.ConnectionEnd(state=state, client_id=client_id, versions=list(versions_), delay_period=delay_period)
    end.counterparty.CopyFrom(counterparty)
    end.counterparty.prefix.SetInParent()
    return end


def counterparty(client_id, connection_id, prefix):
    found = pb.Counterparty(client_id=client_id, connection_id=connection_id)
    found.prefix.key_prefix = prefix
    return found


def parse_sequence(connection_id):
    """ParseConnectionSequence; TxError (24-host's invalid identifier) for an id not `connection-{N}`."""
    tail = connection_id.removeprefix(CONNECTION_PREFIX)
    if not connection_id.startswith(CONNECTION_PREFIX) or not tail.isascii() or not tail.isdigit() or len(tail) > 20:
        raise host.invalid_id("connection identifier is not in the format: `connection-{N}`")
    sequence = int(tail)
    if sequence >= 2**64:
        raise host.invalid_id(f"failed to parse identifier sequence: strconv.ParseUint: parsing \"{tail}\": value out "
                              "of range: invalid connection identifier")
    return sequence


def check_connection_id(connection_id):
    host.check_identifier(connection_id, 10, 64)


def validate_counterparty(found):
    """Counterparty.ValidateBasic."""
    if found.connection_id:
        try:
            check_connection_id(found.connection_id)
        except TxError as error:
            raise client_errors.wrap(error, "invalid counterparty connection ID") from None
    try:
        host.check_client_id(found.client_id)
    except TxError as error:
        raise client_errors.wrap(error, "invalid counterparty client ID") from None
    if not found.prefix.key_prefix:
        raise e.connection_error(e.INVALID_COUNTERPARTY, "counterparty prefix cannot be empty")


def validate_connection_end(end):
    """ConnectionEnd.ValidateBasic."""
    try:
        host.check_client_id(end.client_id)
    except TxError as error:
        raise client_errors.wrap(error, "invalid client ID") from None
    if not end.versions:
        raise e.ibc_invalid_version("empty connection versions")
    for found in end.versions:
        versions.validate(found)
    validate_counterparty(end.counterparty)


def validate_params(params):
    """Params.Validate; ValueError with ibc-go's text."""
    if params.max_expected_time_per_block == 0:
        raise ValueError("MaxExpectedTimePerBlock cannot be zero")


class ConnectionKeeper:
    """Reads through a view (any height) or a block's context, writes through a block's context; `clients` is
    02-client's keeper, whose clients verify the counterparty's proofs."""

    def __init__(self, clients):
        self.clients = clients

    # Store.

    @staticmethod
    def connection(state, connection_id):
        """GetConnection: the ConnectionEnd, or None."""
        raw = state.store.get(host.key(NAME, "connections", connection_id))
        return None if not raw else pb.ConnectionEnd.FromString(raw)

    @staticmethod
    def set_connection(ctx, connection_id, end):
        ctx.store.set(host.key(NAME, "connections", connection_id), end.SerializeToString())

    @staticmethod
    def connections(state):
        """[(connection id, ConnectionEnd)] of every connection, in ibc-go's store order (their paths' bytes)."""
        prefix = host.scan_prefix(NAME, "connections")
        found = []
        for native, raw in state.store.iterate(prefix):
            path = host.path_of(native[len(host.scan_prefix(NAME)):])
            if path is not None and path.count(b"/") == 1:
                found.append((path.split(b"/")[1].decode(), pb.ConnectionEnd.FromString(raw)))
        return sorted(found, key=lambda item: item[0].encode())

    @staticmethod
    def client_connection_paths(state, client_id):
        """GetClientConnectionPaths: the ids of the client's connections, or None when it has none."""
        raw = state.store.get(host.key(NAME, "clients", client_id, "connections"))
        return None if not raw else list(pb.ClientPaths.FromString(raw).paths)

    @staticmethod
    def set_client_connection_paths(ctx, client_id, paths):
        ctx.store.set(host.key(NAME, "clients", client_id, "connections"),
                      pb.ClientPaths(paths=paths).SerializeToString())

    def all_client_connection_paths(self, state):
        """GetAllClientConnectionPaths: (client id, paths) of every client that has connections, in client order."""
        found = []
        for client_id in self.clients.client_ids(state):
            paths = self.client_connection_paths(state, client_id)
            if paths is not None:
                found.append((client_id, paths))
        return found

    @staticmethod
    def next_connection_sequence(state):
        raw = state.store.get(host.key(NAME, "nextConnectionSequence"))
        return 0 if raw is None else _U64.unpack(raw)[0]

    @staticmethod
    def set_next_connection_sequence(ctx, sequence):
        ctx.store.set(host.key(NAME, "nextConnectionSequence"), _U64.pack(sequence))

    @staticmethod
    def params(state):
        """The params; a chain whose genesis had no ibc section has ibc-go's default (30 s per block)."""
        raw = state.store.get(host.key(NAME, "connectionParams"))
        if raw is None:
            return pb.Params(max_expected_time_per_block=DEFAULT_TIME_PER_BLOCK)
        return pb.Params.FromString(raw)

    @staticmethod
    def set_params(ctx, params):
        ctx.store.set(host.key(NAME, "connectionParams"), params.SerializeToString())

    @staticmethod
    def commitment_prefix():
        return PREFIX

    # What 04-channel reads.

    def block_delay(self, state, end):
        """getBlockDelay: the connection's delay period in blocks, rounded up, at the params' time per block."""
        per_block = self.params(state).max_expected_time_per_block
        return 0 if per_block == 0 else math.ceil(end.delay_period / per_block)

    def timestamp_at_height(self, state, end, height):
        """GetTimestampAtHeight: the time of the connection's client's consensus state at `height` (ns)."""
        if self.clients.client_state(state, end.client_id) is None:
            raise client_errors.client_error(client_errors.CLIENT_NOT_FOUND, f"clientID ({end.client_id})")
        return self.clients.timestamp_at_height(state, end.client_id, height)

    def verify_path(self, ctx, end, height, proof, path, value, what, delay=False):
        """The connection's client verifies that the counterparty stores `value` (None: nothing) at ICS-24 `path`
        (bytes) under the counterparty's prefix, at the client's `height`: VerifyConnectionState and its siblings
        ("failed {what} verification for client (...)"); `delay` applies the connection's delay period (packets)."""
        client_id = end.client_id
        cs = self.clients.client_state(ctx, client_id)
        if cs is None:
            raise client_errors.client_error(client_errors.CLIENT_NOT_FOUND, client_id)
        status = self.clients.status(ctx, client_id, ctx.time_ns, cs)
        if status != tmc.ACTIVE:
            raise client_errors.client_error(client_errors.CLIENT_NOT_ACTIVE,
                                             f"client ({client_id}) status is {status}")
        delay_ns, delay_blocks = (end.delay_period, self.block_delay(ctx, end)) if delay else (0, 0)
        merkle_path = (end.counterparty.prefix.key_prefix, path)
        try:
            if value is None:
                self.clients.verify_non_membership(ctx, client_id, height, delay_ns, delay_blocks, proof, merkle_path,
                                                   active=cs)
            else:
                self.clients.verify_membership(ctx, client_id, height, delay_ns, delay_blocks, proof, merkle_path,
                                               value, active=cs)
        except TxError as error:
            raise client_errors.wrap(error, f"failed {what} verification for client ({client_id})") from None

    def verify_connection_state(self, ctx, end, height, proof, connection_id, expected):
        self.verify_path(ctx, end, height, proof, f"connections/{connection_id}".encode(),
                         expected.SerializeToString(), "connection state")

    # The handshake.

    def _generate_id(self, ctx):
        sequence = self.next_connection_sequence(ctx)
        self.set_next_connection_sequence(ctx, sequence + 1)
        return f"{CONNECTION_PREFIX}{sequence}"

    def _add_to_client(self, ctx, client_id, connection_id):
        if self.clients.client_state(ctx, client_id) is None:
            raise client_errors.client_error(client_errors.CLIENT_NOT_FOUND, client_id)
        paths = self.client_connection_paths(ctx, client_id) or []
        self.set_client_connection_paths(ctx, client_id, [*paths, connection_id])

    @staticmethod
    def _events(kind, connection_id, client_id, theirs, with_connection=True):
        attributes = [("connection_id", connection_id), ("client_id", client_id),
                      ("counterparty_client_id", theirs.client_id)]
        if with_connection:
            attributes.append(("counterparty_connection_id", theirs.connection_id))
        return [event(kind, *attributes), event("message", ("module", CATEGORY))]

    def open_init(self, ctx, client_id, theirs, version, delay_period):
        """ConnOpenInit: a new connection end in INIT; (connection id, events). `version` None: all of ours."""
        proposed = versions.compatible()
        if version is not None:
            if not versions.is_supported(versions.compatible(), version):
                raise e.connection_error(e.INVALID_VERSION, "version is not supported")
            proposed = [version]
        cs = self.clients.client_state(ctx, client_id)
        if cs is None:
            raise client_errors.client_error(client_errors.CLIENT_NOT_FOUND, f"clientID ({client_id})")
        status = self.clients.status(ctx, client_id, ctx.time_ns, cs)
        if status != tmc.ACTIVE:
            raise client_errors.client_error(client_errors.CLIENT_NOT_ACTIVE,
                                             f"client ({client_id}) status is {status}")
        connection_id = self._generate_id(ctx)
        self._add_to_client(ctx, client_id, connection_id)
        self.set_connection(ctx, connection_id, connection_end(INIT, client_id, theirs, proposed, delay_period))
        return connection_id, self._events("connection_open_init", connection_id, client_id, theirs, False)

    def open_try(self, ctx, client_id, theirs, delay_period, their_versions, proof_init, proof_height):
        """ConnOpenTry: the counterparty's INIT end proven, a new end in TRYOPEN with the version picked from
        theirs; (connection id, events)."""
        connection_id = self._generate_id(ctx)
        expected = connection_end(INIT, theirs.client_id, counterparty(client_id, "", PREFIX), their_versions,
                                  delay_period)
        picked = versions.pick(versions.compatible(), their_versions)
        end = connection_end(TRYOPEN, client_id, theirs, [picked], delay_period)
        self.verify_connection_state(ctx, end, proof_height, proof_init, theirs.connection_id, expected)
        try:
            self._add_to_client(ctx, client_id, connection_id)
        except TxError as error:
            raise client_errors.wrap(error, f"failed to add connection with ID {connection_id} to client with ID "
                                            f"{client_id}") from None
        self.set_connection(ctx, connection_id, end)
        return connection_id, self._events("connection_open_try", connection_id, client_id, theirs)

    def _stored(self, ctx, connection_id, state):
        end = self.connection(ctx, connection_id)
        if end is None:
            raise e.connection_error(e.CONNECTION_NOT_FOUND, connection_id)
        if end.state != state:
            raise e.connection_error(e.INVALID_STATE, f"connection state is not {state_name(state)[6:]} (got "
                                                      f"{state_name(end.state)})")
        return end

    def open_ack(self, ctx, connection_id, version, their_connection_id, proof_try, proof_height):
        """ConnOpenAck: the counterparty's TRYOPEN end proven, ours OPEN with the version it picked; the events."""
        end = self._stored(ctx, connection_id, INIT)
        if not versions.is_supported(end.versions, version):
            raise e.connection_error(e.INVALID_STATE, f"the counterparty selected version {versions.text(version)} is "
                                                      "not supported by versions selected on INIT")
        ours = counterparty(end.client_id, connection_id, PREFIX)
        expected = connection_end(TRYOPEN, end.counterparty.client_id, ours, [version], end.delay_period)
        self.verify_connection_state(ctx, end, proof_height, proof_try, their_connection_id, expected)
        end.state = OPEN
        del end.versions[:]
        end.versions.append(version)
        end.counterparty.connection_id = their_connection_id
        self.set_connection(ctx, connection_id, end)
        return self._events("connection_open_ack", connection_id, end.client_id, end.counterparty)

    def open_confirm(self, ctx, connection_id, proof_ack, proof_height):
        """ConnOpenConfirm: the counterparty's OPEN end proven, ours OPEN; the events."""
        end = self._stored(ctx, connection_id, TRYOPEN)
        expected = connection_end(OPEN, end.counterparty.client_id, counterparty(end.client_id, connection_id, PREFIX),
                                  end.versions, end.delay_period)
        self.verify_connection_state(ctx, end, proof_height, proof_ack, end.counterparty.connection_id, expected)
        end.state = OPEN
        self.set_connection(ctx, connection_id, end)
        return self._events("connection_open_confirm", connection_id, end.client_id, end.counterparty)
