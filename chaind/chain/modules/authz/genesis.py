"""authz's genesis: app_state.authz.authorization, the SDK's GrantAuthorization list (JSON), saved as grants;
one already expired at genesis time is skipped, as x/authz's InitGenesis skips it. The export lists every grant."""

import attrs
from google.protobuf import json_format

from chaind.chain import errors
from chaind.chain.module_genesis import ModuleGenesis, to_json
from chaind.chain.modules.authz import authorizations
from chaind.chain.modules.authz.keeper import NAME
from chaind.crypto.addresses import AddressError, parse, to_bech32
from chaind.pb.cosmos.authz.v1beta1 import authz_pb2


@attrs.frozen
class GenesisGrant:
    granter: bytes
    grantee: bytes
    authorization: object      # its Any
    msg_type_url: str
    expiration_ns: int | None


def validate(section, context):
    section = section or {}
    unknown = set(section) - {"authorization"}
    if unknown:
        raise ValueError(f"unknown fields {sorted(unknown)}")
    out = []
    for i, entry in enumerate(section.get("authorization") or []):
        try:
            grant = json_format.ParseDict(entry, authz_pb2.GrantAuthorization())
            granter, grantee = parse(grant.granter, context.bech32_prefix), parse(grant.grantee, context.bech32_prefix)
            kind, authorization = authorizations.decode(grant.authorization)
            kind.validate(authorization)
            type_url = kind.msg_type_url(authorization)
        except (json_format.ParseError, AddressError, errors.TxError) as e:
            raise ValueError(f"authorization[{i}]: {e}") from None
        expiration = grant.expiration.ToNanoseconds() if grant.HasField("expiration") else None
        out.append(GenesisGrant(granter, grantee, grant.authorization, type_url, expiration))
    return tuple(out)


def init_genesis(app, ctx, grants):
    for grant in grants:
        if grant.expiration_ns is not None and grant.expiration_ns < ctx.time_ns:
            continue
        app.ensure_account(ctx, grant.grantee)
        app.keepers[NAME].save_grant(ctx, grant.granter, grant.grantee, grant.authorization, grant.msg_type_url,
                          grant.expiration_ns)


def default(context):
    return {"authorization": []}


def export_genesis(app, view):
    """Every grant, in store order (granter, grantee, message type), as x/authz's ExportGenesis lists them."""
    prefix = app.genesis.bech32_prefix
    entries = []
    for _, granter, grantee, grant in app.keepers[NAME].all_grants(view):
        entry = authz_pb2.GrantAuthorization(granter=to_bech32(prefix, granter), grantee=to_bech32(prefix, grantee),
                                             authorization=grant.authorization)
        if grant.HasField("expiration"):
            entry.expiration.CopyFrom(grant.expiration)
        entries.append(to_json(entry))
    return {"authorization": entries}


GENESIS = ModuleGenesis(default=default, validate=validate, init=init_genesis, export=export_genesis)
