"""feegrant's genesis: app_state.feegrant.allowances, Grants in the SDK's JSON; the export lists every grant."""

from google.protobuf import json_format

from chaind.chain import errors
from chaind.chain.module_genesis import GenesisError, ModuleGenesis, to_json
from chaind.chain.modules.feegrant import allowances
from chaind.chain.modules.feegrant.keeper import NAME
from chaind.crypto.addresses import parse
from chaind.pb.cosmos.feegrant.v1beta1 import genesis_pb2


def validate(section, context):
    """[(granter, grantee, allowance Any)], each allowance of a kind the SDK knows, as its ValidateGenesis."""
    try:
        state = json_format.ParseDict(section or {}, genesis_pb2.GenesisState())
    except json_format.ParseError as e:
        raise ValueError(str(e)) from None
    out = []
    for i, grant in enumerate(state.allowances):
        try:
            granter, grantee = parse(grant.granter, context.bech32_prefix), parse(grant.grantee, context.bech32_prefix)
            allowances.validate(grant.allowance)
        except (ValueError, errors.TxError) as e:
            raise ValueError(f"allowances[{i}]: {e}") from None
        out.append((granter, grantee, grant.allowance))
    return tuple(out)


def init_genesis(app, ctx, grants):
    keeper = app.keepers[NAME]
    for i, (granter, grantee, allowance) in enumerate(grants):
        try:
            keeper.grant_allowance(ctx, granter, grantee, allowance)
        except errors.TxError as e:
            raise GenesisError(f"invalid genesis: app_state.feegrant.allowances[{i}]: {e}") from None


def default(context):
    return {"allowances": []}


def export_genesis(app, view):
    return to_json(genesis_pb2.GenesisState(allowances=[grant for _, grant in app.keepers[NAME].grants(view)]))


GENESIS = ModuleGenesis(default=default, validate=validate, init=init_genesis, export=export_genesis)
