"""crisis's genesis: app_state.crisis.constant_fee (SDK JSON coin); default 1000 of the bond denom, as the SDK's."""

from chaind.chain.module_genesis import ModuleGenesis
from chaind.chain.modules.crisis.keeper import NAME


def validate(section, context):
    """(denom, amount) of the constant fee."""
    section = section or {}
    unknown = set(section) - {"constant_fee"}
    if unknown:
        raise ValueError(f"unknown fields {sorted(unknown)}")
    fee = section.get("constant_fee", {"denom": context.bond_denom, "amount": "1000"})
    try:
        denom, amount = fee["denom"], int(fee["amount"])
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"constant_fee: want {{denom, amount}}, got {fee!r}") from None
    if not denom or amount < 0:
        raise ValueError(f"constant_fee: invalid coin {fee!r}")
    return denom, amount


def init_genesis(app, ctx, fee):
    app.keepers[NAME].set_constant_fee(ctx, *fee)


def default(context):
    return {"constant_fee": {"denom": context.bond_denom, "amount": "1000"}}


def export_genesis(app, view):
    denom, amount = app.keepers[NAME].constant_fee(view)
    return {"constant_fee": {"denom": denom, "amount": str(amount)}}


GENESIS = ModuleGenesis(default=default, validate=validate, init=init_genesis, export=export_genesis)
