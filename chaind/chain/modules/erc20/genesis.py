"""erc20's genesis: app_state.erc20 (Evmos' GenesisState {params, token_pairs}, and the authority that may
register pairs besides gov) parsed and checked, then params, token pairs and the module account."""

import attrs
from google.protobuf import json_format

from chaind.chain.module_genesis import GenesisError, ModuleGenesis, to_json
from chaind.chain.modules.erc20.keeper import (
    MODULE_ADDRESS,
    OWNER_EXTERNAL,
    OWNER_MODULE,
    PRECOMPILE_CODE,
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
    for text in genesis.state.params.native_precompiles:
        taken = _taken(app, ctx, hex_bytes(text))
        if taken:
            raise GenesisError(f"invalid genesis: app_state.erc20.params.native_precompiles: {text} already holds "
                               f"{taken}: a native precompile needs an address of its own")
    keeper = app.keepers["erc20"]
    keeper.set_params(ctx, genesis.state.params)
    for pair in genesis.state.token_pairs:
        keeper.set_pair(ctx, pair)


def _taken(app, ctx, address):
    """What the genesis put at `address` before erc20's init (code, a signer's account, coins), or None. A
    precompile's placeholder code and its bare account (an exported chain's) are not in the way."""
    code = ctx.accounts.get_code(address)
    if code and code != PRECOMPILE_CODE:
        return "code"
    auth = app.keepers["auth"]
    found = auth.account(ctx, address)
    if ctx.accounts.get_nonce(address) or (found is not None and found[1]) or auth.vesting_account(ctx, address):
        return "an account"
    if app.keepers["bank"].all_balances(ctx, address):
        return "an account with coins"
    return None


def validate(section, context):
    state, authority = parse_genesis(section, context.bech32_prefix)
    for text in (*state.params.native_precompiles, *state.params.dynamic_precompiles):
        if hex_bytes(text) in context.precompiles:
            raise ValueError(f"erc20 params: precompile {text} is the address of a module's precompile")
    return Erc20Genesis(state, authority)


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
    # cosmos/evm's erc20 genesis lists the native precompiles (WERC20s) at addresses of its choice.
    native = {hex_bytes(a) for a in state.params.native_precompiles}
    seen_ids, seen_denoms, seen_addresses = set(), set(), set()
    for pair in state.token_pairs:
        if not is_denom(pair.denom):
            raise ValueError(f"erc20 token pair: invalid denom: {pair.denom}")
        if not is_hex_address(pair.erc20_address) or not pair.erc20_address.startswith("0x"):
            raise ValueError(f"erc20 token pair: invalid address {pair.erc20_address!r}")
        address = hex_bytes(pair.erc20_address)
        if pair.contract_owner == OWNER_MODULE and address != pair_address(pair.denom) and address not in native:
            raise ValueError(f"erc20 token pair {pair.denom}: a native coin's contract is at "
                             f"{checksum_address(pair_address(pair.denom))}, not {pair.erc20_address} "
                             f"(unless params.native_precompiles lists it)")
        if pair.contract_owner not in (OWNER_MODULE, OWNER_EXTERNAL):
            raise ValueError(f"erc20 token pair {pair.denom}: contract_owner must be OWNER_MODULE or OWNER_EXTERNAL")
        found_id = pair_id(pair)
        if found_id in seen_ids or pair.denom in seen_denoms or address in seen_addresses:
            raise ValueError(f"erc20 token pair {pair.denom}: duplicate token pair")
        seen_ids.add(found_id)
        seen_denoms.add(pair.denom)
        seen_addresses.add(address)
    enabled = {hex_bytes(p.erc20_address) for p in state.token_pairs if p.enabled}
    for name in ("dynamic", "native"):
        for text in getattr(state.params, f"{name}_precompiles"):
            if hex_bytes(text) not in enabled:
                raise ValueError(f"invalid {name} precompiles on genesis: precompile address '{text}' not found in "
                                 f"token pairs")
    return state, parse(authority, prefix) if authority else module_address("gov")


GENESIS = ModuleGenesis(default=default, validate=validate, init=init_genesis, export=export_genesis)
