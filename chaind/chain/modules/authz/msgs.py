"""authz's messages: MsgGrant, MsgRevoke, and MsgExec, which runs its messages as their signer (the granter)
once the grantee's grant accepts each (x/authz keeper's DispatchActions, SDK v0.50)."""

from chaind.chain import block_time, errors
from chaind.chain.amino import Amino
from chaind.chain.modules.authz import authorizations
from chaind.chain.modules.authz.errors import (
    AUTHORIZATION_EXPIRED,
    GRANTEE_IS_GRANTER,
    INVALID_EXPIRATION_TIME,
    NO_AUTHORIZATION_FOUND,
    error,
    invalid_type,
    wrapped,
)
from chaind.chain.modules.authz.keeper import NAME, expiration_ns, grant_key
from chaind.chain.msgs import MsgHandler
from chaind.crypto.addresses import AddressError, parse
from chaind.gocompat import format_time_seconds
from chaind.pb.cosmos.authz.v1beta1 import authz_pb2, tx_pb2


def _address(app, text, what):
    try:
        return parse(text, app.genesis.bech32_prefix)
    except AddressError as e:
        raise errors.invalid_address(f"invalid {what} address: {e}") from None


def _signer_bytes(app, text):
    """A nested message's signer (an account or a valoper address) as account bytes."""
    prefix = app.genesis.bech32_prefix
    hrp = prefix + "valoper" if text.startswith(prefix + "valoper") else prefix
    try:
        return parse(text, hrp)
    except AddressError as e:
        raise errors.invalid_address(f"invalid signer address: {e}") from None


def _pair(app, msg):
    """(granter, grantee) of a grant or revoke: two distinct valid addresses."""
    if msg.grantee.lower() == msg.granter.lower():
        raise error(GRANTEE_IS_GRANTER)
    return _address(app, msg.granter, "granter"), _address(app, msg.grantee, "grantee")


def _validate_grant(app, msg):
    _pair(app, msg)
    if not msg.grant.HasField("authorization"):
        raise invalid_type("expected authz.Authorization, got <nil>")
    authorizations.decode(msg.grant.authorization)


def _grant(app, ctx, msg, signer):
    granter, grantee = _pair(app, msg)
    kind, authorization = authorizations.decode(msg.grant.authorization)
    kind.validate(authorization)
    expiration = expiration_ns(msg.grant)
    # The grantee gets an account, as the SDK's msg server makes one for a new address.
    app.ensure_account(ctx, grantee)
    type_url = kind.msg_type_url(authorization)
    if type_url not in app.handlers:
        raise invalid_type(f"{type_url} doesn't exist.")
    if expiration is not None:
        block_time.check_expiration(expiration, lambda message: error(INVALID_EXPIRATION_TIME, message))
    if expiration is not None and expiration <= ctx.time_ns:
        raise error(INVALID_EXPIRATION_TIME, f"expiration must be after the current block time "
                    f"({format_time_seconds(ctx.time_ns)}), got {format_time_seconds(expiration)}")
    events = app.keepers[NAME].save_grant(ctx, granter, grantee, msg.grant.authorization, type_url, expiration)
    return events, tx_pb2.MsgGrantResponse()


def _validate_revoke(app, msg):
    _pair(app, msg)


def _revoke(app, ctx, msg, signer):
    granter, grantee = _pair(app, msg)
    if not msg.msg_type_url:
        raise errors.invalid_request("missing msg method name")
    if app.keepers[NAME].grant(ctx, granter, grantee, msg.msg_type_url) is None:
        raise error(NO_AUTHORIZATION_FOUND, "failed to delete grant with key "
                    + grant_key(granter, grantee, msg.msg_type_url).hex())
    return app.keepers[NAME].delete_grant(ctx, granter, grantee, msg.msg_type_url), tx_pb2.MsgRevokeResponse()


def _decode_nested(app, msg):
    """The messages of a MsgExec as (handler, message); an unknown type does not decode, as in the SDK."""
    out = []
    for item in msg.msgs:
        handler = app.handlers.get(item.type_url)
        if handler is None:
            raise errors.decode_error(f"unable to resolve type URL {item.type_url}")
        try:
            out.append((handler, handler.message_class.FromString(item.value)))
        except Exception:  # noqa: BLE001 (untrusted bytes: any decode failure is the sender's error)
            raise errors.decode_error(f"unable to decode {item.type_url}") from None
    return out


def _validate_exec(app, msg):
    _address(app, msg.grantee, "grantee")
    if not msg.msgs:
        raise errors.invalid_request("messages cannot be empty")
    _decode_nested(app, msg)


def _exec(app, ctx, msg, signer):
    grantee = _address(app, msg.grantee, "grantee")
    decoded = _decode_nested(app, msg)
    for i, (handler, nested) in enumerate(decoded):
        try:
            handler.validate(app, nested)
        except errors.TxError as e:
            raise wrapped(e, f"msg {i}") from None
    events, results = [], []
    for i, (handler, nested) in enumerate(decoded):
        granter = _signer_bytes(app, handler.signer(nested))
        if granter != grantee:
            events += _authorize(app, ctx, granter, grantee, handler.type_url, nested)
        try:
            emitted, response = handler.execute(app, ctx, nested, granter)
        except errors.TxError as e:
            raise wrapped(e, f"failed to execute message; message {handler.type_url}") from None
        results.append(response.SerializeToString())
        index = ("authz_msg_index", str(i), True)
        events += [type(e)(e.type, e.attributes + (index,)) for e in emitted]
    return events, tx_pb2.MsgExecResponse(results=results)


def _authorize(app, ctx, granter, grantee, type_url, nested):
    """The grant's Accept of one message: the grant is updated or deleted; events of a deletion."""
    keeper = app.keepers[NAME]
    found = keeper.grant(ctx, granter, grantee, type_url)
    if found is None:
        raise error(NO_AUTHORIZATION_FOUND, f"failed to get grant with given granter: {keeper.bank.bech32(granter)}, "
                    f"grantee: {keeper.bank.bech32(grantee)} & msgType: {type_url} ")
    expiration = expiration_ns(found)
    if expiration is not None and expiration < ctx.time_ns:
        raise error(AUTHORIZATION_EXPIRED)
    kind, authorization = authorizations.decode(found.authorization)
    accepted = kind.accept(authorization, type_url, nested)
    if accepted.gas:
        ctx.use_gas(accepted.gas, accepted.gas_location)
    if accepted.delete:
        return keeper.delete_grant(ctx, granter, grantee, type_url)
    if accepted.updated is not None:
        keeper.update_authorization(ctx, granter, grantee, type_url, found, authorizations.to_any(accepted.updated))
    return []


MESSAGES = (
    MsgHandler("/cosmos.authz.v1beta1.MsgGrant", tx_pb2.MsgGrant, lambda m: m.granter, _validate_grant, _grant,
               amino=Amino("cosmos-sdk/MsgGrant", keep=("grant",))),
    MsgHandler("/cosmos.authz.v1beta1.MsgRevoke", tx_pb2.MsgRevoke, lambda m: m.granter, _validate_revoke, _revoke,
               amino=Amino("cosmos-sdk/MsgRevoke")),
    MsgHandler("/cosmos.authz.v1beta1.MsgExec", tx_pb2.MsgExec, lambda m: m.grantee, _validate_exec, _exec,
               amino=Amino("cosmos-sdk/MsgExec")),
)

# Amino JSON of the authorizations a MsgGrant carries (their amino.name options upstream).
AMINO_SHAPES = {
    authz_pb2.GenericAuthorization: Amino("cosmos-sdk/GenericAuthorization"),
    authorizations.Send.cls: Amino("cosmos-sdk/SendAuthorization", keep=("spend_limit",), coins=("spend_limit",)),
    authorizations.Stake.cls: Amino("cosmos-sdk/StakeAuthorization", oneofs={
        "allow_list": "cosmos-sdk/StakeAuthorization/AllowList",
        "deny_list": "cosmos-sdk/StakeAuthorization/DenyList"}),
}
