"""feemarket's genesis: app_state.feemarket.params (Evmos JSON) into state."""

from chaind.chain.modules.feemarket.params import parse_params, set_params


def init_genesis(app, ctx):
    try:
        p = parse_params(app.genesis.document["app_state"]["feemarket"]["params"])
    except ValueError as e:
        raise ValueError(f"app_state.feemarket.params: {e}") from None
    set_params(ctx, p)
