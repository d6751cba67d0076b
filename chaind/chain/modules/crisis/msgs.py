"""crisis's messages: MsgVerifyInvariant (anyone, for the constant fee) and MsgUpdateParams (the gov account)."""

import re

from chaind.chain import authority, errors
from chaind.chain.amino import Amino
from chaind.chain.block import event
from chaind.chain.modules.auth import FEE_COLLECTOR
from chaind.chain.modules.crisis import keeper
from chaind.chain.msgs import MsgHandler
from chaind.crypto.addresses import AddressError, parse
from chaind.pb.cosmos.crisis.v1beta1 import tx_pb2

CODESPACE = "crisis"
_DENOM = re.compile(r"[a-zA-Z][a-zA-Z0-9/:._-]{2,127}")


def _validate(app, msg):
    pass    # v0.50's crisis messages have no ValidateBasic: the msg server checks all


def _verify_invariant(app, ctx, msg, signer):
    if not msg.sender:
        raise errors.invalid_address("empty address")
    try:
        sender = parse(msg.sender, app.genesis.bech32_prefix)
    except AddressError as e:
        raise errors.invalid_address(str(e)) from None
    crisis = app.keepers["crisis"]
    denom, amount = crisis.constant_fee(ctx)
    events = app.keepers["bank"].send(ctx, sender, FEE_COLLECTOR, [(denom, amount)]) if amount else []
    for module, route, check in crisis.routes:  # noqa: B007 (the one the loop breaks at runs below)
        if (module, route) == (msg.invariant_module_name, msg.invariant_route):
            break
    else:
        raise errors.TxError(CODESPACE, 3, "unknown invariant")
    report = keeper.run(check, module, route, app, ctx)
    if report is not None:
        # The SDK panics here, and its runTx recovers a message's panic as ErrPanic: the tx fails, the fee stays
        # unpaid (the message's writes are undone) and the chain goes on.
        raise errors.TxError(errors.SDK, 111222, f"recovered: {report}: panic")
    return events + [event("invariant", ("route", msg.invariant_route)),
                     event("message", ("module", "crisis"), ("sender", msg.sender))], \
        tx_pb2.MsgVerifyInvariantResponse()


def _update_params(app, ctx, msg, signer):
    authority.check(app, msg.authority)
    fee = msg.constant_fee
    valid = msg.HasField("constant_fee") and _DENOM.fullmatch(fee.denom) and fee.amount.isdigit()
    if not valid:
        raise errors.invalid_coins("invalid costant fee")
    app.keepers["crisis"].set_constant_fee(ctx, fee.denom, int(fee.amount))
    return [], tx_pb2.MsgUpdateParamsResponse()


MESSAGES = (
    MsgHandler("/cosmos.crisis.v1beta1.MsgVerifyInvariant", tx_pb2.MsgVerifyInvariant, lambda m: m.sender,
               _validate, _verify_invariant, amino=Amino("cosmos-sdk/MsgVerifyInvariant")),
    MsgHandler("/cosmos.crisis.v1beta1.MsgUpdateParams", tx_pb2.MsgUpdateParams, lambda m: m.authority,
               _validate, _update_params,
               amino=Amino("cosmos-sdk/x/crisis/MsgUpdateParams", keep=("constant_fee",))),
)
