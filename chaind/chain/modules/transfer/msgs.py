"""ICS-20's messages as ibc-go v8.5's transfer msg server runs them: MsgTransfer (amino-signable as
cosmos-sdk/MsgTransfer, as @cosmjs' sendIbcTokens and Ledger sign it) and governance's MsgUpdateParams."""

from chaind.chain import authority
from chaind.chain.amino import Amino
from chaind.chain.errors import TxError, decode_error
from chaind.chain.modules.ibc_client import host
from chaind.chain.modules.ibc_client.errors import wrap
from chaind.chain.modules.transfer import denoms
from chaind.chain.modules.transfer import errors as e
from chaind.chain.modules.transfer.keeper import MAX_MEMO_LENGTH, MAX_RECEIVER_LENGTH, NAME
from chaind.chain.modules.transfer.packet_data import go_int
from chaind.chain.msgs import MsgHandler
from chaind.chain.queries import address_bytes
from chaind.crypto.addresses import to_bech32
from chaind.pb.ibc.applications.transfer.v1 import tx_pb2

PREFIX = "/ibc.applications.transfer.v1."


def _address(app, text):
    try:
        address_bytes(text, app.genesis.bech32_prefix)
    except ValueError as error:
        raise e.ibc_error(e.INVALID_ADDRESS, f"string could not be parsed as address: {error}") from None


def _token(token):
    """Coin.Validate of MsgTransfer's token, then IsPositive; its amount."""
    if not token.amount:
        raise e.ibc_error(e.INVALID_COINS, f"<nil>{token.denom}")
    amount = go_int(token.amount)
    if amount is None:
        raise decode_error(f"invalid token amount {token.amount!r}")
    try:
        denoms.validate_sdk_denom(token.denom)
    except TxError:
        raise e.ibc_error(e.INVALID_COINS, f"{amount}{token.denom}") from None
    if amount < 0:
        raise e.ibc_error(e.INVALID_COINS, f"{amount}{token.denom}")
    if amount == 0:
        raise e.ibc_error(e.INSUFFICIENT_FUNDS, f"{amount}{token.denom}")
    return amount


def validate_transfer(app, msg):
    """MsgTransfer.ValidateBasic (an ICS20 precompile runs it on the MsgTransfer it builds, before the keeper's
    transfer)."""
    for check, text, low, high in ((msg.source_port, "invalid source port ID", 2, 128),
                                   (msg.source_channel, "invalid source channel ID", 8, 64)):
        try:
            host.check_identifier(check, low, high)
        except TxError as error:
            raise wrap(error, text) from None
    _token(msg.token)
    _address(app, msg.sender)
    if not msg.receiver.strip():
        raise e.ibc_error(e.INVALID_ADDRESS, "missing recipient address")
    if len(msg.receiver.encode()) > MAX_RECEIVER_LENGTH:
        raise e.ibc_error(e.INVALID_ADDRESS, f"recipient address must not exceed {MAX_RECEIVER_LENGTH} bytes")
    if len(msg.memo.encode()) > MAX_MEMO_LENGTH:
        raise e.transfer_error(e.INVALID_MEMO, f"memo must not exceed {MAX_MEMO_LENGTH} bytes")
    denoms.validate_ibc_denom(msg.token.denom)


def _transfer(app, ctx, msg, signer):
    sequence, events = app.keepers[NAME].transfer(ctx, msg)
    return events, tx_pb2.MsgTransferResponse(sequence=sequence)


def _validate_update_params(app, msg):
    _address(app, msg.signer)


def _update_params(app, ctx, msg, signer):
    expected = to_bech32(app.genesis.bech32_prefix, authority.GOV)
    if msg.signer != expected:
        raise e.ibc_error(e.UNAUTHORIZED, f"expected {expected}, got {msg.signer}")
    app.keepers[NAME].set_params(ctx, msg.params)
    return [], tx_pb2.MsgUpdateParamsResponse()


MESSAGES = (
    MsgHandler(PREFIX + "MsgTransfer", tx_pb2.MsgTransfer, lambda m: m.sender, validate_transfer, _transfer,
               amino=Amino("cosmos-sdk/MsgTransfer", keep=("token", "timeout_height"))),
    MsgHandler(PREFIX + "MsgUpdateParams", tx_pb2.MsgUpdateParams, lambda m: m.signer, _validate_update_params,
               _update_params),
)

