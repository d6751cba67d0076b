"""slashing's genesis: app_state.slashing {params, signing_infos, missed_blocks} (the SDK's GenesisState), and a
signing info for each validator bonded at genesis that has none (what AfterValidatorBonded gives the SDK's gentx
validators when InitChain bonds them)."""

import attrs
from google.protobuf import json_format

from chaind.chain import legacy_dec
from chaind.chain.module_genesis import ModuleGenesis, to_json
from chaind.chain.modules import staking
from chaind.chain.modules.slashing.keeper import new_signing_info
from chaind.chain.modules.slashing.params import DECIMALS, Params, parse_params
from chaind.chain.modules.staking import format_duration
from chaind.crypto.addresses import AddressError, parse, to_bech32
from chaind.pb.cosmos.slashing.v1beta1 import slashing_pb2


@attrs.frozen
class SlashingGenesis:
    params: Params
    signing_infos: tuple       # (consensus address, ValidatorSigningInfo)
    missed_blocks: tuple       # (consensus address, ((window index, missed), ...))


def validate(section, context):
    section = section or {}
    unknown = set(section) - {"params", "signing_infos", "missed_blocks"}
    if unknown:
        raise ValueError(f"unknown fields {sorted(unknown)}")
    try:
        p = parse_params(section.get("params", {}))
    except ValueError as e:
        raise ValueError(f"params: {e}") from None
    valcons = context.bech32_prefix + "valcons"
    infos, missed = [], []
    for i, entry in enumerate(section.get("signing_infos") or ()):
        try:
            address = parse(entry["address"], valcons)
            info = json_format.ParseDict(entry["validator_signing_info"], slashing_pb2.ValidatorSigningInfo())
        except (KeyError, TypeError, AddressError, json_format.ParseError) as e:
            raise ValueError(f"signing_infos[{i}]: {e}") from None
        infos.append((address, info))
    for i, entry in enumerate(section.get("missed_blocks") or ()):
        try:
            address = parse(entry["address"], valcons)
            blocks = tuple((int(b["index"]), bool(b["missed"])) for b in entry.get("missed_blocks") or ())
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"missed_blocks[{i}]: {e}") from None
        for index, _ in blocks:
            if not 0 <= index < p.signed_blocks_window:
                raise ValueError(f"missed_blocks[{i}]: index {index} is outside the signed blocks window "
                                 f"{p.signed_blocks_window}")
        missed.append((address, blocks))
    return SlashingGenesis(p, tuple(infos), tuple(missed))


def init_genesis(app, ctx, genesis):
    keeper = app.keepers["slashing"]
    keeper.set_params(ctx, genesis.params)
    for cons_address, info in genesis.signing_infos:
        keeper.set_signing_info(ctx, cons_address, info)
    for cons_address, blocks in genesis.missed_blocks:
        for index, value in blocks:
            keeper.set_missed(ctx, cons_address, index, value)
    for v in app.keepers["staking"].validators(ctx):
        if v.status == staking.BONDED and keeper.signing_info(ctx, v.cons_address) is None:
            keeper.set_signing_info(ctx, v.cons_address, new_signing_info(keeper.valcons(v.cons_address), ctx.height))


def _params_json(p):
    return {"signed_blocks_window": str(p.signed_blocks_window),
            **{name: legacy_dec.format(getattr(p, name)) for name in DECIMALS},
            "downtime_jail_duration": format_duration(p.downtime_jail_duration_ns)}


def default(context):
    return {"params": _params_json(Params()), "signing_infos": [], "missed_blocks": []}


def export_genesis(app, view):
    """Params, every signing info, and each validator's missed blocks in its window (x/slashing's ExportGenesis:
    the missed ones only)."""
    valcons = app.genesis.bech32_prefix + "valcons"
    keeper = app.keepers["slashing"]
    p = keeper.params(view)
    infos, missed = [], []
    for cons_address, info in keeper.signing_infos(view):
        address = to_bech32(valcons, cons_address)
        infos.append({"address": address, "validator_signing_info": to_json(info)})
        blocks = [{"index": str(i), "missed": True} for i in range(p.signed_blocks_window)
                  if keeper.missed(view, cons_address, i)]
        missed.append({"address": address, "missed_blocks": blocks})
    return {"params": _params_json(p), "signing_infos": infos, "missed_blocks": missed}


GENESIS = ModuleGenesis(default=default, validate=validate, init=init_genesis, export=export_genesis)
