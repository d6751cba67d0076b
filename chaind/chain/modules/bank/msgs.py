"""bank's messages: MsgSend and MsgMultiSend."""

from chaind.chain import errors
from chaind.chain.amino import Amino
from chaind.chain.block import event
from chaind.chain.modules.bank.keeper import CODESPACE, format_coins, validate_coins
from chaind.chain.msgs import MsgHandler
from chaind.crypto.addresses import AddressError, parse
from chaind.pb.cosmos.bank.v1beta1 import bank_pb2, tx_pb2


def _coins(proto_coins):
    try:
        coins = [(c.denom, int(c.amount)) for c in proto_coins]
    except ValueError:
        raise errors.invalid_coins("amount is not an integer") from None
    validate_coins(coins)
    return coins


def _address(app, text, what="address"):
    try:
        return parse(text, app.genesis.bech32_prefix)
    except AddressError as e:
        raise errors.invalid_address(f"invalid {what}: {e}") from None


def _validate_send(app, msg):
    _address(app, msg.from_address, "from address")
    _address(app, msg.to_address, "to address")
    if not _coins(msg.amount):
        raise errors.invalid_coins("empty amount")


def _send(app, ctx, msg, signer):
    bank = app.keepers["bank"]
    coins = _coins(msg.amount)
    bank.require_send_enabled(ctx, coins)
    recipient = _address(app, msg.to_address)
    app.ensure_account(ctx, recipient)
    events = bank.send(ctx, signer, recipient, coins)
    events.append(event("message", ("sender", bank.bech32(signer))))
    return events, tx_pb2.MsgSendResponse()


def _validate_multi_send(app, msg):
    if not msg.inputs:
        raise errors.TxError(CODESPACE, 2, "no inputs to send transaction")
    if len(msg.inputs) != 1:
        raise errors.TxError(CODESPACE, 9, "multiple senders not allowed")
    if not msg.outputs:
        raise errors.TxError(CODESPACE, 3, "no outputs to send transaction")
    total_in, total_out = {}, {}
    for side, totals in ((msg.inputs, total_in), (msg.outputs, total_out)):
        for entry in side:
            _address(app, entry.address)
            coins = _coins(entry.coins)
            if not coins:
                raise errors.invalid_coins(f"empty coins for {entry.address}")
            for denom, amount in coins:
                totals[denom] = totals.get(denom, 0) + amount
    if total_in != total_out:
        raise errors.TxError(CODESPACE, 4, "sum inputs != sum outputs")


def _multi_send(app, ctx, msg, signer):
    """x/bank v0.50 InputOutputCoins: take from the one input, then credit each output."""
    bank = app.keepers["bank"]
    sender_b32 = bank.bech32(signer)
    taken = _coins(msg.inputs[0].coins)
    bank.require_send_enabled(ctx, taken)
    events = bank.burn_from(ctx, signer, taken)
    events.append(event("message", ("sender", sender_b32)))
    for output in msg.outputs:
        recipient = _address(app, output.address)
        app.ensure_account(ctx, recipient)
        coins = _coins(output.coins)
        events += bank.credit(ctx, recipient, coins)
        events.append(event("transfer", ("recipient", bank.bech32(recipient)), ("amount", format_coins(coins))))
    return events, tx_pb2.MsgMultiSendResponse()


MESSAGES = (
    MsgHandler("/cosmos.bank.v1beta1.MsgSend", tx_pb2.MsgSend, lambda m: m.from_address,
               _validate_send, _send, amino=Amino("cosmos-sdk/MsgSend", keep=("amount",), coins=("amount",))),
    MsgHandler("/cosmos.bank.v1beta1.MsgMultiSend", tx_pb2.MsgMultiSend,
               lambda m: m.inputs[0].address if m.inputs else "", _validate_multi_send, _multi_send,
               amino=Amino("cosmos-sdk/MsgMultiSend", keep=("inputs", "outputs"))),
)

# Amino JSON of the nested types (cosmos-sdk v0.50 proto/cosmos/bank/v1beta1/bank.proto).
AMINO_SHAPES = {
    bank_pb2.Input: Amino(keep=("coins",), coins=("coins",)),
    bank_pb2.Output: Amino(keep=("coins",), coins=("coins",)),
}
