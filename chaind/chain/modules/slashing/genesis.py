"""slashing's genesis: params from app_state.slashing, and a signing info for each validator bonded at genesis
(what AfterValidatorBonded gives the SDK's gentx validators when InitChain bonds them)."""

from chaind.chain.modules import staking
from chaind.chain.modules.slashing import state
from chaind.chain.modules.slashing.keeper import new_signing_info
from chaind.chain.modules.slashing.params import parse_params, set_params
from chaind.crypto.addresses import to_bech32


def init_genesis(app, ctx):
    section = app.genesis.document["app_state"].get("slashing", {})
    unknown = set(section) - {"params", "signing_infos", "missed_blocks"}
    if unknown or section.get("signing_infos") or section.get("missed_blocks"):
        raise ValueError(f"slashing genesis: only params are read (got {sorted(section)}); signing infos "
                         "start with the validators")
    set_params(ctx, parse_params(section.get("params", {})))
    prefix = app.genesis.bech32_prefix + "valcons"
    for v in staking.validators(ctx):
        if v.status == staking.BONDED and state.signing_info(ctx, v.cons_address) is None:
            state.set_signing_info(ctx, v.cons_address,
                                   new_signing_info(to_bech32(prefix, v.cons_address), ctx.height))
