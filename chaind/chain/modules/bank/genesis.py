"""bank's genesis: the balances the genesis document gives, minted; its params."""

from chaind.chain.modules.bank.params import parse_params, set_default_send_enabled


def init_genesis(app, ctx):
    try:
        enabled = parse_params(app.genesis.document["app_state"]["bank"].get("params"))
    except ValueError as e:
        raise ValueError(f"app_state.bank.params: {e}") from None
    set_default_send_enabled(ctx, enabled)
    for address, coins in app.genesis.balances:
        for denom, amount in coins:
            app.bank.mint(ctx, address, denom, amount)
