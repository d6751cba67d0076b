"""feemarket's genesis: app_state.feemarket {params, block_gas} (Evmos JSON); params into state. The export's
params carry the exported block's base fee, and block_gas its gas, as Evmos' ExportGenesis writes them."""

from chaind.chain import legacy_dec
from chaind.chain.module_genesis import ModuleGenesis
from chaind.chain.modules.feemarket.params import parse_params


def validate(section, context):
    """Params; block_gas, when given, a gas amount (Evmos' InitGenesis records it as the last block's gas wanted,
    which no base fee reads here: the first block's base fee is params.base_fee, as Evmos' at its enable
    height)."""
    section = section or {}
    unknown = set(section) - {"params", "block_gas"}
    if unknown:
        raise ValueError(f"unknown fields {sorted(unknown)}")
    if int(section.get("block_gas", 0)) < 0:
        raise ValueError(f"block_gas: must not be negative: {section['block_gas']}")
    try:
        return parse_params(section["params"])
    except KeyError:
        raise ValueError("params: missing") from None
    except ValueError as e:
        raise ValueError(f"params: {e}") from None


def init_genesis(app, ctx, p):
    app.keepers["feemarket"].set_params(ctx, p)


def default(context):
    return {"params": {"no_base_fee": False, "base_fee_change_denominator": 8, "elasticity_multiplier": 2,
                       "enable_height": "0", "base_fee": "1000000000", "min_gas_price": "0.000000000000000000",
                       "min_gas_multiplier": "0.500000000000000000"},
            "block_gas": "0"}


def export_genesis(app, view):
    p = app.keepers["feemarket"].params(view)
    _, meta = app.block_at(view.height)
    return {"params": {"no_base_fee": p.no_base_fee, "base_fee_change_denominator": p.base_fee_change_denominator,
                       "elasticity_multiplier": p.elasticity_multiplier, "enable_height": str(p.enable_height),
                       "base_fee": str(meta.base_fee), "min_gas_price": legacy_dec.format(p.min_gas_price),
                       "min_gas_multiplier": legacy_dec.format(p.min_gas_multiplier)},
            "block_gas": str(meta.gas_used)}


GENESIS = ModuleGenesis(default=default, validate=validate, init=init_genesis, export=export_genesis)
