"""authz's genesis: app_state.authz.authorization, the SDK's GrantAuthorization list (JSON), saved as grants;
one already expired at genesis time is skipped, as x/authz's InitGenesis skips it."""

from google.protobuf import json_format

from chaind.chain import errors
from chaind.chain.genesis import GenesisError
from chaind.chain.modules.authz import authorizations
from chaind.chain.modules.authz.keeper import NAME
from chaind.crypto.addresses import AddressError, parse
from chaind.pb.cosmos.authz.v1beta1 import authz_pb2


def init_genesis(app, ctx):
    section = app.genesis.document["app_state"].get("authz") or {}
    prefix = app.genesis.bech32_prefix
    for i, entry in enumerate(section.get("authorization") or []):
        try:
            grant = json_format.ParseDict(entry, authz_pb2.GrantAuthorization())
            granter, grantee = parse(grant.granter, prefix), parse(grant.grantee, prefix)
            kind, authorization = authorizations.decode(grant.authorization)
            kind.validate(authorization)
            type_url = kind.msg_type_url(authorization)
        except (json_format.ParseError, AddressError, errors.TxError) as e:
            raise GenesisError(f"invalid genesis: app_state.authz.authorization[{i}]: {e}") from None
        expiration = grant.expiration.ToNanoseconds() if grant.HasField("expiration") else None
        if expiration is not None and expiration < ctx.time_ns:
            continue
        app.ensure_account(ctx, grantee)
        app.keepers[NAME].save_grant(ctx, granter, grantee, grant.authorization, type_url, expiration)
