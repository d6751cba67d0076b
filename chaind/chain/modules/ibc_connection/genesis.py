"""03-connection's genesis: app_state.ibc.connection_genesis, ibc-go v8's ibc.core.connection.v1.GenesisState
(connections, each client's connection ids, the next connection sequence, params). A chain whose genesis has no
such section starts with none of its keys written (the params read as ibc-go's default, the sequence as 0).
ibc-go's InitGenesis also writes a sentinel connection-localhost of its 09-localhost client, which chaind's
02-client does not have: a genesis may carry that connection, none is made."""

from google.protobuf import json_format

from chaind.chain.errors import TxError
from chaind.chain.module_genesis import ModuleGenesis, to_json
from chaind.chain.modules.ibc_client import host
from chaind.chain.modules.ibc_connection.keeper import (
    DEFAULT_TIME_PER_BLOCK,
    LOCALHOST_CONNECTION,
    NAME,
    check_connection_id,
    connection_end,
    parse_sequence,
    validate_connection_end,
    validate_params,
)
from chaind.pb.ibc.core.connection.v1 import connection_pb2, genesis_pb2

PATH = ("app_state", "ibc", "connection_genesis")


def default(context):
    return to_json(genesis_pb2.GenesisState(params=connection_pb2.Params(
        max_expected_time_per_block=DEFAULT_TIME_PER_BLOCK)))


def _log(error):
    return error.log if isinstance(error, TxError) else str(error)


def validate(section, context):
    """GenesisState.Validate; None for a document without the section."""
    if section is None:
        return None
    state = json_format.ParseDict(section, genesis_pb2.GenesisState())
    highest = 0
    for index, found in enumerate(state.connections):
        try:
            if found.id != LOCALHOST_CONNECTION:
                highest = max(highest, parse_sequence(found.id))
            try:
                check_connection_id(found.id)
            except TxError as error:
                raise TxError(error.codespace, error.code, f"invalid connection ID: {error.log}") from None
            validate_connection_end(_end(found))
        except TxError as error:
            raise ValueError(f"connections[{index}]: invalid connection {found.id} index {index}: {_log(error)}") \
                from None
    for index, found in enumerate(state.client_connection_paths):
        try:
            host.check_client_id(found.client_id)
        except TxError as error:
            raise ValueError(f"client_connection_paths[{index}]: invalid client connection path {index}: "
                             f"{error.log}") from None
        for connection_id in found.paths:
            try:
                check_connection_id(connection_id)
            except TxError as error:
                raise ValueError(f"client_connection_paths[{index}]: invalid client connection ID ({connection_id}) "
                                 f"in connection paths {index}: {error.log}") from None
    if highest and highest >= state.next_connection_sequence:
        raise ValueError(f"next_connection_sequence: next connection sequence {state.next_connection_sequence} must "
                         f"be greater than maximum sequence used in connection identifier {highest}")
    try:
        validate_params(state.params)
    except ValueError as error:
        raise ValueError(f"params: {error}") from None
    return state


def _end(identified):
    return connection_end(identified.state, identified.client_id, identified.counterparty, identified.versions,
                          identified.delay_period)


def init(app, ctx, state):
    if state is None:
        return
    keeper = app.keepers[NAME]
    for found in state.connections:
        keeper.set_connection(ctx, found.id, _end(found))
    for found in state.client_connection_paths:
        keeper.set_client_connection_paths(ctx, found.client_id, list(found.paths))
    keeper.set_next_connection_sequence(ctx, state.next_connection_sequence)
    keeper.set_params(ctx, state.params)


def export(app, view):
    keeper = app.keepers[NAME]
    state = genesis_pb2.GenesisState(next_connection_sequence=keeper.next_connection_sequence(view),
                                     params=keeper.params(view))
    for connection_id, end in keeper.connections(view):
        state.connections.add(id=connection_id, client_id=end.client_id, versions=end.versions, state=end.state,
                              counterparty=end.counterparty, delay_period=end.delay_period)
    for client_id, paths in keeper.all_client_connection_paths(view):
        state.client_connection_paths.add(client_id=client_id, paths=paths)
    return to_json(state)


GENESIS = ModuleGenesis(default=default, validate=validate, init=init, export=export, key=PATH)
