"""04-channel's genesis: app_state.ibc.channel_genesis, ibc-go v8's ibc.core.channel.v1.GenesisState (channels,
packet commitments, receipts and acknowledgements, the next send/receive/ack sequences, the next channel sequence,
params). A chain whose genesis has no such section starts with none of its keys written."""

from google.protobuf import json_format

from chaind.chain.errors import TxError
from chaind.chain.module_genesis import ModuleGenesis, to_json
from chaind.chain.modules.ibc_channel.keeper import (
    NAME,
    channel_end,
    check_channel_id,
    check_port_id,
    default_params,
    is_valid_channel_id,
    validate_channel,
)
from chaind.chain.modules.ibc_client import host
from chaind.pb.ibc.core.channel.v1 import genesis_pb2

PATH = ("app_state", "ibc", "channel_genesis")
PACKETS = (("acknowledgements", "acks"), ("commitments", "commitments"), ("receipts", "receipts"))
SEQUENCES = (("send_sequences", "nextSequenceSend", "send sequence"),
             ("recv_sequences", "nextSequenceRecv", "receive sequence"),
             ("ack_sequences", "nextSequenceAck", "acknowledgement sequence"))


def default(context):
    return to_json(genesis_pb2.GenesisState(params=default_params()))


def _log(error):
    return error.log if isinstance(error, TxError) else str(error)


def _fields(port_id, channel_id, sequence):
    """validateGenFields."""
    try:
        check_port_id(port_id)
    except TxError as error:
        raise ValueError(f"invalid port Id: {error.log}") from None
    try:
        check_channel_id(channel_id)
    except TxError as error:
        raise ValueError(f"invalid channel Id: {error.log}") from None
    if sequence == 0:
        raise ValueError("sequence cannot be 0")


def _end(identified):
    return channel_end(identified.state, identified.ordering, identified.counterparty, identified.connection_hops,
                       identified.version, identified.upgrade_sequence)


def validate(section, context):
    """GenesisState.Validate; None for a document without the section."""
    if section is None:
        return None
    state = json_format.ParseDict(section, genesis_pb2.GenesisState())
    highest = 0
    for index, found in enumerate(state.channels):
        if not is_valid_channel_id(found.channel_id):
            raise ValueError(f"channels[{index}]: invalid channel identifier {found.channel_id}")
        highest = max(highest, int(found.channel_id.removeprefix("channel-")))
        try:
            check_channel_id(found.channel_id)
            check_port_id(found.port_id)
            validate_channel(_end(found))
        except TxError as error:
            raise ValueError(f"channels[{index}]: invalid channel {found.port_id}/{found.channel_id} channel index "
                             f"{index}: {_log(error)}") from None
    if highest and highest >= state.next_channel_sequence:
        raise ValueError(f"next_channel_sequence: next channel sequence {state.next_channel_sequence} must be "
                         f"greater than maximum sequence used in channel identifier {highest}")
    for field, _ in PACKETS:
        for index, found in enumerate(getattr(state, field)):
            try:
                _fields(found.port_id, found.channel_id, found.sequence)
                if field != "receipts" and not found.data:
                    raise ValueError("data bytes cannot be empty")
            except ValueError as error:
                raise ValueError(f"{field}[{index}]: invalid packet state index {index}: {error}") from None
    for field, _, what in SEQUENCES:
        for index, found in enumerate(getattr(state, field)):
            try:
                _fields(found.port_id, found.channel_id, 1)
            except ValueError as error:
                raise ValueError(f"{field}[{index}]: invalid {what} index {index}: {error}") from None
    return state


def init(app, ctx, state):
    if state is None:
        return
    keeper = app.keepers[NAME]
    for found in state.channels:
        keeper.set_channel(ctx, found.port_id, found.channel_id, _end(found))
    for field, kind in PACKETS:
        for found in getattr(state, field):
            value = b"\x01" if field == "receipts" else found.data
            ctx.store.set(host.key(NAME, kind, "ports", found.port_id, "channels", found.channel_id, "sequences",
                                   str(found.sequence)), value)
    for field, kind, _ in SEQUENCES:
        for found in getattr(state, field):
            keeper.set_sequence(ctx, kind, found.port_id, found.channel_id, found.sequence)
    keeper.set_next_channel_sequence(ctx, state.next_channel_sequence)
    keeper.set_params(ctx, state.params)


def _packet_states(view, kind):
    """[(port, channel, sequence, data)] under `kind` ("commitments"...), in store order."""
    found = []
    for native, raw in view.store.iterate(host.scan_prefix(NAME, kind)):
        path = host.path_of(native[len(host.scan_prefix(NAME)):])
        parts = None if path is None else path.split(b"/")
        if parts and len(parts) == 7:
            found.append((path, parts[2].decode(), parts[4].decode(), int(parts[6]), raw))
    return [item[1:] for item in sorted(found)]


def export(app, view):
    keeper = app.keepers[NAME]
    state = genesis_pb2.GenesisState(next_channel_sequence=keeper.next_channel_sequence(view),
                                     params=keeper.params(view))
    for port_id, channel_id, end in keeper.channels(view):
        state.channels.add(state=end.state, ordering=end.ordering, counterparty=end.counterparty,
                           connection_hops=end.connection_hops, version=end.version, port_id=port_id,
                           channel_id=channel_id, upgrade_sequence=end.upgrade_sequence)
    for field, kind in PACKETS:
        for port_id, channel_id, sequence, data in _packet_states(view, kind):
            getattr(state, field).add(port_id=port_id, channel_id=channel_id, sequence=sequence,
                                      data=b"" if field == "receipts" else data)
    for field, kind, _ in SEQUENCES:
        for port_id, channel_id, sequence in keeper.sequences(view, kind):
            getattr(state, field).add(port_id=port_id, channel_id=channel_id, sequence=sequence)
    return to_json(state)


GENESIS = ModuleGenesis(default=default, validate=validate, init=init, export=export, key=PATH)
