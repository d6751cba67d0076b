"""erc20's genesis: app_state.erc20 (Evmos' GenesisState {params, token_pairs}, and the authority that may
register pairs besides gov) parsed and checked, then params, token pairs and the module account."""

import attrs
from google.protobuf import json_format

from chaind.chain.module_genesis import ModuleGenesis, to_json
from chaind.chain.modules.erc20.keeper import (
    MODULE_ADDRESS,
    OWNER_EXTERNAL,
    OWNER_MODULE,
    hex_bytes,
    is_denom,
    is_hex_address,
    pair_address,
    pair_id,
    validate_params,
)
from chaind.crypto.addresses import checksum_address, module_address, parse, to_bech32
from chaind.pb.evmos.erc20.v1 import genesis_pb2


@attrs.frozen
class Erc20Genesis:
    state: object              # evmos.erc20.v1.GenesisState
    authority: bytes           # who may register pairs and change erc20 params (Evmos: gov)


def init_genesis(app, ctx, genesis):
    """Params and token pairs from genesis (Evmos' InitGenesis), and the module account."""
    app.keepers["auth"].ensure_account(ctx, MODULE_ADDRESS)
    keeper = app.keepers["erc20"]
    keeper.set_params(ctx, genesis.state.params)
    for pair in genesis.state.token_pairs:
        keeper.set_pair(ctx, pair)


def validate(section, context):
    return Erc20Genesis(*parse_genesis(section, context.bech32_prefix))


def default(context):
    return to_json(genesis_pb2.GenesisState(params=genesis_pb2.Params(enable_erc20=True)))


def export_genesis(app, view):
    """Params and token pairs in id order (Evmos' ExportGenesis), and the authority."""
    keeper = app.keepers["erc20"]
    state = genesis_pb2.GenesisState(params=keeper.params(view),
                                     token_pairs=[pair for _, pair in keeper.all_pairs(view)])
    return {**to_json(state), "authority": to_bech32(app.genesis.bech32_prefix, app.genesis.erc20_authority)}


def parse_genesis(section, prefix):
    """(GenesisState, authority bytes) of app_state.erc20; raises ValueError naming what is wrong.

    The authority (Evmos: the gov module account) defaults to the gov module's address.
    """
    section = dict(section or {})
    authority = section.pop("authority", None)
    state = json_format.ParseDict(section, genesis_pb2.GenesisState())
    if not section.get("params"):
        state.params.enable_erc20 = True
    try:
        validate_params(state.params)
    except ValueError as e:
        raise ValueError(f"erc20 params: {e}") from None
    for name in ("native_precompiles", "dynamic_precompiles"):
        values = list(getattr(state.params, name))
        if values != sorted(values):
            raise ValueError(f"erc20 params: precompiles need to be sorted: {values}")
    seen_ids, seen_denoms, seen_addresses = set(), set(), set()
    for pair in state.token_pairs:
        if not is_denom(pair.denom):
            raise ValueError(f"erc20 token pair: invalid denom: {pair.denom}")
        if not is_hex_address(pair.erc20_address) or not pair.erc20_address.startswith("0x"):
            raise ValueError(f"erc20 token pair: invalid address {pair.erc20_address!r}")
        address = hex_bytes(pair.erc20_address)
        if pair.contract_owner == OWNER_MODULE and address != pair_address(pair.denom):
            raise ValueError(f"erc20 token pair {pair.denom}: a native coin's contract is at "
                             f"{checksum_address(pair_address(pair.denom))}, not {pair.erc20_address}")
        if pair.contract_owner not in (OWNER_MODULE, OWNER_EXTERNAL):
            raise ValueError(f"erc20 token pair {pair.denom}: contract_owner must be OWNER_MODULE or OWNER_EXTERNAL")
        found_id = pair_id(pair)
        if found_id in seen_ids or pair.denom in seen_denoms or address in seen_addresses:
            raise ValueError(f"erc20 token pair {pair.denom}: duplicate token pair")
        seen_ids.add(found_id)
        seen_denoms.add(pair.denom)
        seen_addresses.add(address)
    return state, parse(authority, prefix) if authority else module_address("gov")


GENESIS = ModuleGenesis(default=default, validate=validate, init=init_genesis, export=export_genesis)
