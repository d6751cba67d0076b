"""feegrant's messages: MsgGrantAllowance, MsgRevokeAllowance, MsgPruneAllowances.

As in SDK v0.50 the checks live in the msg server, so they run when the message executes; validate() keeps
only the address checks of the signer every message gets.
"""

from chaind.chain import errors
from chaind.chain.amino import Amino
from chaind.chain.block import event
from chaind.chain.modules.feegrant import allowances
from chaind.chain.modules.feegrant.keeper import MSG_PRUNE_LIMIT, NAME
from chaind.chain.msgs import MsgHandler
from chaind.crypto.addresses import AddressError, parse
from chaind.pb.cosmos.feegrant.v1beta1 import feegrant_pb2, tx_pb2


def _address(app, text, what):
    try:
        return parse(text, app.genesis.bech32_prefix)
    except AddressError as e:
        raise errors.invalid_address(f"invalid {what} address: {e}") from None


def _check(field):
    def validate(app, msg):
        _address(app, getattr(msg, field), field)
    return validate


def _grant(app, ctx, msg, signer):
    if msg.grantee.lower() == msg.granter.lower():
        raise errors.invalid_address("cannot self-grant fee authorization")
    grantee, granter = _address(app, msg.grantee, "grantee"), _address(app, msg.granter, "granter")
    keeper = app.keepers[NAME]
    if keeper.grant(ctx, granter, grantee) is not None:
        raise errors.invalid_request("fee allowance already exists")
    if not msg.HasField("allowance"):
        raise errors.TxError(errors.SDK, 2, "fee allowance is empty: tx parse error")
    allowances.validate(msg.allowance)
    return keeper.grant_allowance(ctx, granter, grantee, msg.allowance), tx_pb2.MsgGrantAllowanceResponse()


def _revoke(app, ctx, msg, signer):
    if msg.grantee == msg.granter:
        raise errors.invalid_address("addresses must be different")
    grantee, granter = _address(app, msg.grantee, "grantee"), _address(app, msg.granter, "granter")
    return app.keepers[NAME].revoke_allowance(ctx, granter, grantee), tx_pb2.MsgRevokeAllowanceResponse()


def _prune(app, ctx, msg, signer):
    app.keepers[NAME].remove_expired(ctx, MSG_PRUNE_LIMIT)
    return [event("prune_feegrant", ("pruner", msg.pruner))], tx_pb2.MsgPruneAllowancesResponse()


MESSAGES = (
    MsgHandler("/cosmos.feegrant.v1beta1.MsgGrantAllowance", tx_pb2.MsgGrantAllowance, lambda m: m.granter,
               _check("granter"), _grant, amino=Amino("cosmos-sdk/MsgGrantAllowance")),
    MsgHandler("/cosmos.feegrant.v1beta1.MsgRevokeAllowance", tx_pb2.MsgRevokeAllowance, lambda m: m.granter,
               _check("granter"), _revoke, amino=Amino("cosmos-sdk/MsgRevokeAllowance")),
    MsgHandler("/cosmos.feegrant.v1beta1.MsgPruneAllowances", tx_pb2.MsgPruneAllowances, lambda m: m.pruner,
               _check("pruner"), _prune, amino=Amino("cosmos-sdk/MsgPruneAllowances")),
)

# The allowances an amino-JSON-signed MsgGrantAllowance carries in its Any (x/feegrant's amino names).
AMINO_SHAPES = {
    feegrant_pb2.BasicAllowance: Amino("cosmos-sdk/BasicAllowance", keep=("spend_limit",), coins=("spend_limit",)),
    feegrant_pb2.PeriodicAllowance: Amino("cosmos-sdk/PeriodicAllowance",
                                          keep=("basic", "period", "period_spend_limit", "period_can_spend",
                                                "period_reset"),
                                          coins=("period_spend_limit", "period_can_spend")),
    feegrant_pb2.AllowedMsgAllowance: Amino("cosmos-sdk/AllowedMsgAllowance"),
}
