"""nft's message: MsgSend, as x/nft's msg server checks and runs it (SDK v0.50; SIGN_MODE_DIRECT only, as the
SDK's message has no amino name)."""

from chaind.chain import errors
from chaind.chain.block import typed_event
from chaind.chain.modules.nft.keeper import EMPTY_CLASS_ID, EMPTY_NFT_ID, NAME, error
from chaind.chain.msgs import MsgHandler
from chaind.crypto.addresses import AddressError, parse
from chaind.pb.cosmos.nft.v1beta1 import tx_pb2


def _address(app, text, what):
    try:
        return parse(text, app.genesis.bech32_prefix)
    except AddressError:
        raise errors.invalid_address(f"invalid {what} address ({text})") from None


def _validate(app, msg):
    _address(app, msg.sender, "sender")


def _send(app, ctx, msg, signer):
    if not msg.class_id:
        raise error(EMPTY_CLASS_ID)
    if not msg.id:
        raise error(EMPTY_NFT_ID)
    sender, receiver = _address(app, msg.sender, "sender"), _address(app, msg.receiver, "receiver")
    keeper = app.keepers[NAME]
    if keeper.owner(ctx, msg.class_id, msg.id) != sender:
        raise errors.unauthorized(f"{msg.sender} is not the owner of nft {msg.id}")
    keeper.transfer(ctx, msg.class_id, msg.id, receiver)
    app.ensure_account(ctx, receiver)
    return [typed_event("cosmos.nft.v1beta1.EventSend", class_id=msg.class_id, id=msg.id, sender=msg.sender,
                               receiver=msg.receiver)], tx_pb2.MsgSendResponse()


MESSAGES = (
    MsgHandler("/cosmos.nft.v1beta1.MsgSend", tx_pb2.MsgSend, lambda m: m.sender, _validate, _send),
)
