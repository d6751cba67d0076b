"""02-client's genesis: app_state.ibc.client_genesis, ibc-go v8's ibc.core.client.v1.GenesisState (clients,
their consensus states and metadata, params, the next client sequence). A chain whose genesis has no ibc section
starts with none of its keys written (the params read as ibc-go's default, the sequence as 0)."""

import re

from google.protobuf import json_format

from chaind.chain.errors import TxError
from chaind.chain.module_genesis import ModuleGenesis, to_json
from chaind.chain.modules.ibc_client import host
from chaind.chain.modules.ibc_client import tendermint as tmc
from chaind.chain.modules.ibc_client.keeper import ALLOW_ALL, NAME, ClientStore, pack, validate_params
from chaind.pb.ibc.core.client.v1 import client_pb2, genesis_pb2
from chaind.pb.ibc.lightclients.tendermint.v1 import tendermint_pb2 as tm

PATH = ("app_state", "ibc", "client_genesis")
_CLIENT_ID = re.compile(r"^\w+([\w-]+\w)?-[0-9]{1,20}$")


def default(context):
    return to_json(genesis_pb2.GenesisState(params=client_pb2.Params(allowed_clients=[ALLOW_ALL])))


def _check(what, check, *args):
    try:
        return check(*args)
    except TxError as error:
        raise ValueError(f"{what}: {error.log}") from None


def _clients(state):
    """{client id: client state} of the genesis clients, checked, and the highest sequence their ids use."""
    clients, highest = {}, -1
    for index, found in enumerate(state.clients):
        where = f"clients[{index}]"
        _check(f"{where}.client_id", host.check_client_id, found.client_id)
        if not _CLIENT_ID.match(found.client_id) or not found.client_id.startswith(tmc.CLIENT_TYPE + "-"):
            raise ValueError(f"{where}.client_id: invalid client identifier {found.client_id} is not in format: "
                             f"`{tmc.CLIENT_TYPE}-{{N}}`")
        if found.client_id in clients:
            raise ValueError(f"{where}: client {found.client_id} already exists")
        if found.client_state.type_url != tmc.CLIENT_STATE_URL:
            raise ValueError(f"{where}.client_state: unknown client state type {found.client_state.type_url}")
        cs = tm.ClientState.FromString(found.client_state.value)
        _check(f"{where}.client_state", tmc.validate_client_state, cs)
        clients[found.client_id] = cs
        highest = max(highest, int(found.client_id.rsplit("-", 1)[1]))
    return clients, highest


def validate(section, context):
    """GenesisState.Validate; None for a document without the section."""
    if section is None:
        return None
    state = json_format.ParseDict(section, genesis_pb2.GenesisState())
    try:
        validate_params(state.params)
    except ValueError as error:
        raise ValueError(f"params: {error}") from None
    clients, highest = _clients(state)
    for index, found in enumerate(state.clients_consensus):
        where = f"clients_consensus[{index}]"
        if found.client_id not in clients:
            raise ValueError(f"{where}: consensus states of client {found.client_id}, which genesis does not have")
        for j, with_height in enumerate(found.consensus_states):
            if with_height.height.revision_height == 0:
                raise ValueError(f"{where}.consensus_states[{j}]: consensus state height cannot be zero")
            if with_height.consensus_state.type_url != tmc.CONSENSUS_STATE_URL:
                raise ValueError(f"{where}.consensus_states[{j}]: unknown consensus state type "
                                 f"{with_height.consensus_state.type_url}")
            cons = tm.ConsensusState.FromString(with_height.consensus_state.value)
            _check(f"{where}.consensus_states[{j}]", tmc.validate_consensus_state, cons)
    for index, found in enumerate(state.clients_metadata):
        if found.client_id not in clients:
            raise ValueError(f"clients_metadata[{index}]: metadata of client {found.client_id}, which genesis does "
                             "not have")
        for j, entry in enumerate(found.client_metadata):
            if not entry.key or not entry.value:
                raise ValueError(f"clients_metadata[{index}].client_metadata[{j}]: metadata key and value cannot "
                                 "be empty")
    if state.next_client_sequence <= highest:
        raise ValueError(f"next_client_sequence: next client identifier sequence {state.next_client_sequence} must "
                         f"be greater than maximum sequence used in the provided client identifiers {highest}")
    return state


def init(app, ctx, state):
    if state is None:
        return
    keeper = app.keepers[NAME]
    keeper.set_params(ctx, state.params)
    for found in state.clients:
        ClientStore(ctx, found.client_id).set_client_state(tm.ClientState.FromString(found.client_state.value))
    for found in state.clients_consensus:
        store = ClientStore(ctx, found.client_id)
        for with_height in found.consensus_states:
            store.set_consensus_state(host.height_of(with_height.height),
                                      tm.ConsensusState.FromString(with_height.consensus_state.value))
    for found in state.clients_metadata:
        store = ClientStore(ctx, found.client_id)
        for entry in found.client_metadata:
            store.set(entry.value, *_metadata_segments(entry.key))
    keeper.set_next_client_sequence(ctx, state.next_client_sequence)


def _metadata_segments(key):
    """The segments of a metadata key below clients/{id}/: an iteration key is one segment (its height bytes may
    hold a "/"), a processed time or height key three."""
    if key.startswith(b"iterateConsensusStates"):
        return (key,)
    return tuple(part.decode() for part in key.split(b"/"))


def export(app, view):
    keeper = app.keepers[NAME]
    state = genesis_pb2.GenesisState(params=keeper.params(view),
                                     next_client_sequence=keeper.next_client_sequence(view))
    for client_id in keeper.client_ids(view):
        store = ClientStore(view, client_id)
        state.clients.add(client_id=client_id, client_state=pack(tmc.CLIENT_STATE_URL, store.client_state()))
        heights = store.heights()
        if heights:
            consensus = state.clients_consensus.add(client_id=client_id)
            for height in heights:
                consensus.consensus_states.add(
                    height=client_pb2.Height(revision_number=height[0], revision_height=height[1]),
                    consensus_state=pack(tmc.CONSENSUS_STATE_URL, store.consensus_state(height)))
        metadata = store.metadata()
        if metadata:
            state.clients_metadata.add(client_id=client_id, client_metadata=[
                genesis_pb2.GenesisMetadata(key=key, value=value) for key, value in metadata])
    return to_json(state)


GENESIS = ModuleGenesis(default=default, validate=validate, init=init, export=export, key=PATH)
