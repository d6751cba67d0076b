"""crisis's genesis: app_state.crisis.constant_fee (SDK JSON coin); default 1000 of the bond denom, as the SDK's."""


def init_genesis(app, ctx):
    g = app.genesis
    section = g.document["app_state"].get("crisis", {})
    unknown = set(section) - {"constant_fee"}
    if unknown:
        raise ValueError(f"app_state.crisis: unknown fields {sorted(unknown)}")
    fee = section.get("constant_fee", {"denom": g.staking_params.bond_denom, "amount": "1000"})
    try:
        denom, amount = fee["denom"], int(fee["amount"])
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"app_state.crisis.constant_fee: want {{denom, amount}}, got {fee!r}") from None
    if not denom or amount < 0:
        raise ValueError(f"app_state.crisis.constant_fee: invalid coin {fee!r}")
    app.keepers["crisis"].set_constant_fee(ctx, denom, amount)
