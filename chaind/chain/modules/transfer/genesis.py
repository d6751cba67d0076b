"""ICS-20's genesis: app_state.transfer, ibc-go v8.5's ibc.applications.transfer.v1.GenesisState (the port, denom
traces, params, total escrow per denom). A chain whose genesis has no such section binds port `transfer` with
ibc-go's default params and writes none of its keys."""

from google.protobuf import json_format

from chaind.chain.errors import TxError
from chaind.chain.module_genesis import ModuleGenesis, to_json
from chaind.chain.modules.ibc_client import host
from chaind.chain.modules.transfer import denoms
from chaind.chain.modules.transfer.keeper import NAME, PORT_ID, default_params, voucher_metadata
from chaind.chain.modules.transfer.packet_data import go_int
from chaind.pb.ibc.applications.transfer.v1 import genesis_pb2


def default(context):
    return to_json(genesis_pb2.GenesisState(port_id=PORT_ID, params=default_params()))


def _coins(coins):
    """sdk.Coins.Validate."""
    previous = None
    for coin in coins:
        try:
            denoms.validate_sdk_denom(coin.denom)
        except TxError as error:
            raise ValueError(error.log) from None
        amount = go_int(coin.amount) if coin.amount else None
        if amount is None:
            raise ValueError("amount is nil")
        if previous is not None and coin.denom <= previous:
            raise ValueError(f"denomination {coin.denom} is not sorted")
        if amount <= 0:
            raise ValueError(f"coin {amount}{coin.denom} amount is not positive" if previous is None
                             else f"coin {coin.denom} amount is not positive")
        previous = coin.denom


def validate(section, context):
    """GenesisState.Validate; None for a document without the section."""
    if section is None:
        return None
    try:
        state = json_format.ParseDict(section, genesis_pb2.GenesisState())
    except json_format.ParseError as error:
        raise ValueError(str(error)) from None
    try:
        host.check_identifier(state.port_id, 2, 128)
    except TxError as error:
        raise ValueError(f"port_id: {error.log}") from None
    seen = set()
    for index, trace in enumerate(state.denom_traces):
        digest = denoms.trace_hash(trace)
        if digest in seen:
            raise ValueError(f"denom_traces: duplicated denomination trace with hash {denoms.hash_text(digest)}")
        try:
            denoms.validate_trace(trace)
        except TxError as error:
            raise ValueError(f"denom_traces: failed denom trace {index} validation: {error.log}") from None
        seen.add(digest)
    try:
        _coins(state.total_escrowed)
    except ValueError as error:
        raise ValueError(f"total_escrowed: {error}") from None
    return state


def init(app, ctx, state):
    """InitGenesis; the port was bound when the keeper was built. A voucher's metadata is written unless genesis
    (bank's section) already has one, which stays."""
    if state is None:
        return
    keeper, bank = app.keepers[NAME], app.keepers["bank"]
    keeper.set_port(ctx, state.port_id)
    for trace in state.denom_traces:
        keeper.set_denom_trace(ctx, trace)
        if bank.metadata(ctx, denoms.ibc_denom(trace)) is None:
            bank.set_metadata(ctx, voucher_metadata(trace))
    keeper.set_params(ctx, state.params)
    for coin in state.total_escrowed:
        keeper.set_total_escrow(ctx, coin.denom, go_int(coin.amount))


def export(app, view):
    keeper = app.keepers[NAME]
    state = genesis_pb2.GenesisState(port_id=keeper.port(view), denom_traces=keeper.denom_traces(view),
                                     params=keeper.params(view))
    for denom, amount in keeper.total_escrowed(view):
        state.total_escrowed.add(denom=denom, amount=str(amount))
    return to_json(state)


GENESIS = ModuleGenesis(default=default, validate=validate, init=init, export=export)
