"""04-channel's handshake messages as ibc-go v8.5's core msg server runs them: MsgChannelOpenInit, OpenTry, OpenAck,
OpenConfirm, CloseInit and CloseConfirm, each with its ValidateBasic. SIGN_MODE_DIRECT only: ibc-go registers no
amino names for them."""

from chaind.chain.errors import TxError
from chaind.chain.modules.ibc_channel import errors as e
from chaind.chain.modules.ibc_channel.keeper import (
    NAME,
    TRYOPEN,
    check_channel_id,
    check_port_id,
    is_valid_channel_id,
    state_name,
    validate_channel,
)
from chaind.chain.modules.ibc_client import errors as client_errors
from chaind.chain.modules.ibc_client import host
from chaind.chain.modules.ibc_connection import errors as conn_errors
from chaind.chain.msgs import MsgHandler
from chaind.chain.queries import address_bytes
from chaind.pb.ibc.core.channel.v1 import channel_pb2, tx_pb2

PREFIX = "/ibc.core.channel.v1."


def _signer(app, text):
    try:
        address_bytes(text, app.genesis.bech32_prefix)
    except ValueError as error:
        raise client_errors.ibc_error(client_errors.INVALID_ADDRESS,
                                      f"string could not be parsed as address: {error}") from None


def _port_id(port_id):
    try:
        check_port_id(port_id)
    except TxError as error:
        raise client_errors.wrap(error, "invalid port ID") from None


def _channel_id(channel_id):
    if not is_valid_channel_id(channel_id):
        raise e.channel_error(e.INVALID_IDENTIFIER)


def _counterparty_channel_id(channel_id):
    try:
        check_channel_id(channel_id)
    except TxError as error:
        raise client_errors.wrap(error, "invalid counterparty channel ID") from None


def _proof(proof, detail):
    if not proof:
        raise conn_errors.empty_proof(detail)


def _state(msg, expected, name):
    if msg.channel.state != expected:
        wanted = state_name(expected)
        raise e.channel_error(e.INVALID_STATE, f"channel state must be {wanted} in {name}. expected: {wanted}, got: "
                              f"{state_name(msg.channel.state)}")


def _validate_init(app, msg):
    _port_id(msg.port_id)
    _state(msg, channel_pb2.STATE_INIT, "MsgChannelOpenInit")
    if msg.channel.counterparty.channel_id:
        raise e.channel_error(e.INVALID_COUNTERPARTY, "counterparty channel identifier must be empty")
    _signer(app, msg.signer)
    validate_channel(msg.channel)


def _init(app, ctx, msg, signer):
    channel_id, version, events = app.keepers[NAME].open_init(ctx, msg.port_id, msg.channel)
    return events, tx_pb2.MsgChannelOpenInitResponse(channel_id=channel_id, version=version)


def _validate_try(app, msg):
    _port_id(msg.port_id)
    if msg.previous_channel_id:
        raise e.channel_error(e.INVALID_IDENTIFIER, "previous channel identifier must be empty, this field has been "
                              "deprecated as crossing hellos are no longer supported")
    _proof(msg.proof_init, "cannot submit an empty init proof")
    _state(msg, TRYOPEN, "MsgChannelOpenTry")
    _counterparty_channel_id(msg.channel.counterparty.channel_id)
    _signer(app, msg.signer)
    validate_channel(msg.channel)


def _try(app, ctx, msg, signer):
    channel_id, version, events = app.keepers[NAME].open_try(ctx, msg.port_id, msg.channel, msg.counterparty_version,
                                                             msg.proof_init, host.height_of(msg.proof_height))
    return events, tx_pb2.MsgChannelOpenTryResponse(version=version, channel_id=channel_id)


def _validate_ack(app, msg):
    _port_id(msg.port_id)
    _channel_id(msg.channel_id)
    _counterparty_channel_id(msg.counterparty_channel_id)
    _proof(msg.proof_try, "cannot submit an empty try proof")
    _signer(app, msg.signer)


def _ack(app, ctx, msg, signer):
    events = app.keepers[NAME].open_ack(ctx, msg.port_id, msg.channel_id, msg.counterparty_version,
                                        msg.counterparty_channel_id, msg.proof_try, host.height_of(msg.proof_height))
    return events, tx_pb2.MsgChannelOpenAckResponse()


def _validate_confirm(app, msg):
    _port_id(msg.port_id)
    _channel_id(msg.channel_id)
    _proof(msg.proof_ack, "cannot submit an empty acknowledgement proof")
    _signer(app, msg.signer)


def _confirm(app, ctx, msg, signer):
    events = app.keepers[NAME].open_confirm(ctx, msg.port_id, msg.channel_id, msg.proof_ack,
                                            host.height_of(msg.proof_height))
    return events, tx_pb2.MsgChannelOpenConfirmResponse()


def _validate_close_init(app, msg):
    _port_id(msg.port_id)
    _channel_id(msg.channel_id)
    _signer(app, msg.signer)


def _close_init(app, ctx, msg, signer):
    return app.keepers[NAME].close_init(ctx, msg.port_id, msg.channel_id), tx_pb2.MsgChannelCloseInitResponse()


def _validate_close_confirm(app, msg):
    _port_id(msg.port_id)
    _channel_id(msg.channel_id)
    _proof(msg.proof_init, "cannot submit an empty init proof")
    _signer(app, msg.signer)


def _close_confirm(app, ctx, msg, signer):
    events = app.keepers[NAME].close_confirm(ctx, msg.port_id, msg.channel_id, msg.proof_init,
                                             host.height_of(msg.proof_height), msg.counterparty_upgrade_sequence)
    return events, tx_pb2.MsgChannelCloseConfirmResponse()


MESSAGES = (
    MsgHandler(PREFIX + "MsgChannelOpenInit", tx_pb2.MsgChannelOpenInit, lambda m: m.signer, _validate_init, _init),
    MsgHandler(PREFIX + "MsgChannelOpenTry", tx_pb2.MsgChannelOpenTry, lambda m: m.signer, _validate_try, _try),
    MsgHandler(PREFIX + "MsgChannelOpenAck", tx_pb2.MsgChannelOpenAck, lambda m: m.signer, _validate_ack, _ack),
    MsgHandler(PREFIX + "MsgChannelOpenConfirm", tx_pb2.MsgChannelOpenConfirm, lambda m: m.signer,
               _validate_confirm, _confirm),
    MsgHandler(PREFIX + "MsgChannelCloseInit", tx_pb2.MsgChannelCloseInit, lambda m: m.signer,
               _validate_close_init, _close_init),
    MsgHandler(PREFIX + "MsgChannelCloseConfirm", tx_pb2.MsgChannelCloseConfirm, lambda m: m.signer,
               _validate_close_confirm, _close_confirm),
)
