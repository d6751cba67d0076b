"""02-client's messages as ibc-go v8's core msg server runs them: MsgCreateClient, MsgUpdateClient, the
deprecated MsgSubmitMisbehaviour (an update with a Misbehaviour), for 07-tendermint clients, and governance's
MsgRecoverClient and MsgUpdateParams. SIGN_MODE_DIRECT only: ibc-go registers no amino names for them."""

from google.protobuf.message import DecodeError

from chaind.chain import authority
from chaind.chain.errors import TxError, decode_error
from chaind.chain.modules.ibc_client import errors as e
from chaind.chain.modules.ibc_client import tendermint as tmc
from chaind.chain.modules.ibc_client.host import check_client_id
from chaind.chain.modules.ibc_client.keeper import NAME, validate_params
from chaind.chain.msgs import MsgHandler
from chaind.chain.queries import address_bytes
from chaind.crypto.addresses import to_bech32
from chaind.pb.ibc.core.client.v1 import tx_pb2
from chaind.pb.ibc.lightclients.tendermint.v1 import tendermint_pb2 as tm


def _signer(app, text):
    try:
        address_bytes(text, app.genesis.bech32_prefix)
    except ValueError as error:
        raise e.ibc_error(e.INVALID_ADDRESS, f"string could not be parsed as address: {error}") from None


def _unpack(any_message, url, proto, what):
    if not any_message.type_url:
        raise e.ibc_error(e.UNPACK_ANY, "protobuf Any message cannot be nil")
    if any_message.type_url != url:
        raise e.ibc_error(e.UNPACK_ANY, f"cannot unpack Any into {what} {any_message.type_url}")
    try:
        return proto.FromString(any_message.value)
    except DecodeError as error:
        raise decode_error(f"{any_message.type_url}: {error}") from None


def _client_message(any_message):
    try:
        return tmc.unpack_client_message(any_message)
    except DecodeError as error:
        raise decode_error(f"{any_message.type_url}: {error}") from None


def _states(msg):
    """MsgCreateClient's client and consensus states, unpacked and checked (ValidateBasic)."""
    cs = _unpack(msg.client_state, tmc.CLIENT_STATE_URL, tm.ClientState, "ClientState")
    tmc.validate_client_state(cs)
    cons = _unpack(msg.consensus_state, tmc.CONSENSUS_STATE_URL, tm.ConsensusState, "ConsensusState")
    tmc.validate_consensus_state(cons)
    return cs, cons


def _validate_create(app, msg):
    _signer(app, msg.signer)
    _states(msg)


def _create(app, ctx, msg, signer):
    cs, cons = _states(msg)
    _, events = app.keepers[NAME].create_client(ctx, cs, cons)
    return events, tx_pb2.MsgCreateClientResponse()


def _validate_update(app, msg):
    _signer(app, msg.signer)
    _client_message(msg.client_message)
    check_client_id(msg.client_id)


def _update(app, ctx, msg, signer):
    events = app.keepers[NAME].update_client(ctx, msg.client_id, _client_message(msg.client_message))
    return events, tx_pb2.MsgUpdateClientResponse()


def _validate_misbehaviour(app, msg):
    _signer(app, msg.signer)
    _unpack(msg.misbehaviour, tmc.MISBEHAVIOUR_URL, tm.Misbehaviour, "ClientMessage")
    _client_message(msg.misbehaviour)
    check_client_id(msg.client_id)


def _submit_misbehaviour(app, ctx, msg, signer):
    try:
        events = app.keepers[NAME].update_client(ctx, msg.client_id, _client_message(msg.misbehaviour))
    except TxError as error:
        raise e.wrap(error, "failed to process misbehaviour for IBC client") from None
    return events, tx_pb2.MsgSubmitMisbehaviourResponse()


def _governed(app, signer):
    """The msg server's check of its authority (the gov module account)."""
    expected = to_bech32(app.genesis.bech32_prefix, authority.GOV)
    if signer != expected:
        raise e.ibc_error(e.UNAUTHORIZED, f"expected {expected}, got {signer}")


def _validate_recover(app, msg):
    _signer(app, msg.signer)
    check_client_id(msg.subject_client_id)
    check_client_id(msg.substitute_client_id)
    if msg.subject_client_id == msg.substitute_client_id:
        raise e.client_error(e.INVALID_SUBSTITUTE, "subject and substitute clients must be different")


def _recover(app, ctx, msg, signer):
    _governed(app, msg.signer)
    try:
        events = app.keepers[NAME].recover_client(ctx, msg.subject_client_id, msg.substitute_client_id)
    except TxError as error:
        raise e.wrap(error, "client recovery failed") from None
    return events, tx_pb2.MsgRecoverClientResponse()


def _validate_params(app, msg):
    _signer(app, msg.signer)
    try:
        validate_params(msg.params)
    except ValueError as error:
        raise e.plain(str(error)) from None


def _update_params(app, ctx, msg, signer):
    _governed(app, msg.signer)
    app.keepers[NAME].set_params(ctx, msg.params)
    return [], tx_pb2.MsgUpdateParamsResponse()


MESSAGES = (
    MsgHandler("/ibc.core.client.v1.MsgCreateClient", tx_pb2.MsgCreateClient, lambda m: m.signer,
               _validate_create, _create),
    MsgHandler("/ibc.core.client.v1.MsgUpdateClient", tx_pb2.MsgUpdateClient, lambda m: m.signer,
               _validate_update, _update),
    MsgHandler("/ibc.core.client.v1.MsgSubmitMisbehaviour", tx_pb2.MsgSubmitMisbehaviour, lambda m: m.signer,
               _validate_misbehaviour, _submit_misbehaviour),
    MsgHandler("/ibc.core.client.v1.MsgRecoverClient", tx_pb2.MsgRecoverClient, lambda m: m.signer,
               _validate_recover, _recover),
    MsgHandler("/ibc.core.client.v1.MsgUpdateParams", tx_pb2.MsgUpdateParams, lambda m: m.signer,
               _validate_params, _update_params),
)
