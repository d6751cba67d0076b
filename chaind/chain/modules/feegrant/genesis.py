"""feegrant's genesis: app_state.feegrant.allowances, Grants in the SDK's JSON."""

from google.protobuf import json_format

from chaind.chain.modules.feegrant import keeper
from chaind.crypto.addresses import parse
from chaind.pb.cosmos.feegrant.v1beta1 import genesis_pb2


def init_genesis(app, ctx):
    section = app.genesis.document["app_state"].get("feegrant")
    if not section:
        return
    state = json_format.ParseDict(section, genesis_pb2.GenesisState(), ignore_unknown_fields=True)
    prefix = app.genesis.bech32_prefix
    for grant in state.allowances:
        keeper.grant_allowance(ctx, parse(grant.granter, prefix), parse(grant.grantee, prefix), grant.allowance,
                               app.bank.bech32)
