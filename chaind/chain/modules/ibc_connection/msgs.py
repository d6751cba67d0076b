"""03-connection's messages as ibc-go v8.5's core msg server runs them: MsgConnectionOpenInit, OpenTry, OpenAck,
OpenConfirm, and governance's MsgUpdateParams. SIGN_MODE_DIRECT only: ibc-go registers no amino names for them.
The deprecated client state, its proofs and the consensus height of OpenTry and OpenAck are not verified (ibc-go
v8.5.0, #7129); a client state given must still be a client state's Any, as the SDK's unpacking requires."""

from chaind.chain import authority
from chaind.chain.errors import TxError, decode_error
from chaind.chain.modules.ibc_client import errors as client_errors
from chaind.chain.modules.ibc_client import host
from chaind.chain.modules.ibc_client import tendermint as tmc
from chaind.chain.modules.ibc_connection import errors as e
from chaind.chain.modules.ibc_connection import version as versions
from chaind.chain.modules.ibc_connection.keeper import (
    LOCALHOST_CLIENT,
    NAME,
    check_connection_id,
    parse_sequence,
    validate_counterparty,
    validate_params,
)
from chaind.chain.msgs import MsgHandler
from chaind.chain.queries import address_bytes
from chaind.crypto.addresses import to_bech32
from chaind.pb.ibc.core.connection.v1 import tx_pb2

PREFIX = "/ibc.core.connection.v1."


def _signer(app, text):
    try:
        address_bytes(text, app.genesis.bech32_prefix)
    except ValueError as error:
        raise client_errors.ibc_error(client_errors.INVALID_ADDRESS,
                                      f"string could not be parsed as address: {error}") from None


def _not_localhost(client_id):
    if client_id == LOCALHOST_CLIENT:
        raise client_errors.client_error(client_errors.INVALID_CLIENT_TYPE,
                                         "localhost connection handshakes are disallowed")


def _client_id(client_id):
    try:
        host.check_client_id(client_id)
    except TxError as error:
        raise client_errors.wrap(error, "invalid client ID") from None


def _connection_id(connection_id):
    """IsValidConnectionID, failing with ErrInvalidConnectionIdentifier as the msgs' ValidateBasic does."""
    try:
        parse_sequence(connection_id)
    except TxError:
        raise e.connection_error(e.INVALID_IDENTIFIER) from None


def _counterparty_connection_id(connection_id):
    try:
        check_connection_id(connection_id)
    except TxError as error:
        raise client_errors.wrap(error, "invalid counterparty connection ID") from None


def _client_state_any(found):
    """The deprecated client state: nil, or an Any the SDK can unpack into a client state."""
    if found.type_url and found.type_url != tmc.CLIENT_STATE_URL:
        raise decode_error(f"unable to resolve type URL {found.type_url}")


def _validate_init(app, msg):
    _not_localhost(msg.client_id)
    _client_id(msg.client_id)
    if msg.counterparty.connection_id:
        raise e.connection_error(e.INVALID_COUNTERPARTY, "counterparty connection identifier must be empty")
    if msg.HasField("version"):
        try:
            versions.validate(msg.version)
        except TxError as error:
            raise client_errors.wrap(error, "basic validation of the provided version failed") from None
    _signer(app, msg.signer)
    validate_counterparty(msg.counterparty)


def _init(app, ctx, msg, signer):
    version = msg.version if msg.HasField("version") else None
    _, events = app.keepers[NAME].open_init(ctx, msg.client_id, msg.counterparty, version, msg.delay_period)
    return events, tx_pb2.MsgConnectionOpenInitResponse()


def _validate_try(app, msg):
    _not_localhost(msg.client_id)
    if msg.previous_connection_id:
        raise e.connection_error(e.INVALID_IDENTIFIER, "previous connection identifier must be empty, this field has "
                                 "been deprecated as crossing hellos are no longer supported")
    _client_id(msg.client_id)
    _counterparty_connection_id(msg.counterparty.connection_id)
    if not msg.counterparty_versions:
        raise e.ibc_invalid_version("empty counterparty versions")
    for index, found in enumerate(msg.counterparty_versions):
        try:
            versions.validate(found)
        except TxError as error:
            raise client_errors.wrap(error, f"basic validation failed on version with index {index}") from None
    if not msg.proof_init:
        raise e.empty_proof("cannot submit an empty proof init")
    _signer(app, msg.signer)
    validate_counterparty(msg.counterparty)
    _client_state_any(msg.client_state)


def _try(app, ctx, msg, signer):
    _, events = app.keepers[NAME].open_try(ctx, msg.client_id, msg.counterparty, msg.delay_period,
                                           list(msg.counterparty_versions), msg.proof_init,
                                           host.height_of(msg.proof_height))
    return events, tx_pb2.MsgConnectionOpenTryResponse()


def _validate_ack(app, msg):
    _connection_id(msg.connection_id)
    _counterparty_connection_id(msg.counterparty_connection_id)
    versions.validate(msg.version if msg.HasField("version") else None)
    if not msg.proof_try:
        raise e.empty_proof("cannot submit an empty proof try")
    _signer(app, msg.signer)
    _client_state_any(msg.client_state)


def _ack(app, ctx, msg, signer):
    events = app.keepers[NAME].open_ack(ctx, msg.connection_id, msg.version, msg.counterparty_connection_id,
                                        msg.proof_try, host.height_of(msg.proof_height))
    return events, tx_pb2.MsgConnectionOpenAckResponse()


def _validate_confirm(app, msg):
    _connection_id(msg.connection_id)
    if not msg.proof_ack:
        raise e.empty_proof("cannot submit an empty proof ack")
    _signer(app, msg.signer)


def _confirm(app, ctx, msg, signer):
    events = app.keepers[NAME].open_confirm(ctx, msg.connection_id, msg.proof_ack, host.height_of(msg.proof_height))
    return events, tx_pb2.MsgConnectionOpenConfirmResponse()


def _validate_params(app, msg):
    _signer(app, msg.signer)
    try:
        validate_params(msg.params)
    except ValueError as error:
        raise client_errors.plain(str(error)) from None


def _update_params(app, ctx, msg, signer):
    expected = to_bech32(app.genesis.bech32_prefix, authority.GOV)
    if msg.signer != expected:
        raise client_errors.ibc_error(client_errors.UNAUTHORIZED, f"expected {expected}, got {msg.signer}")
    app.keepers[NAME].set_params(ctx, msg.params)
    return [], tx_pb2.MsgUpdateParamsResponse()


MESSAGES = (
    MsgHandler(PREFIX + "MsgConnectionOpenInit", tx_pb2.MsgConnectionOpenInit, lambda m: m.signer,
               _validate_init, _init),
    MsgHandler(PREFIX + "MsgConnectionOpenTry", tx_pb2.MsgConnectionOpenTry, lambda m: m.signer,
               _validate_try, _try),
    MsgHandler(PREFIX + "MsgConnectionOpenAck", tx_pb2.MsgConnectionOpenAck, lambda m: m.signer,
               _validate_ack, _ack),
    MsgHandler(PREFIX + "MsgConnectionOpenConfirm", tx_pb2.MsgConnectionOpenConfirm, lambda m: m.signer,
               _validate_confirm, _confirm),
    MsgHandler(PREFIX + "MsgUpdateParams", tx_pb2.MsgUpdateParams, lambda m: m.signer,
               _validate_params, _update_params),
)
