"""bank's genesis: the balances the genesis document gives, minted."""


def init_genesis(app, ctx):
    for address, coins in app.genesis.balances:
        for denom, amount in coins:
            app.bank.mint(ctx, address, denom, amount)
