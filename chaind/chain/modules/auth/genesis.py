"""auth's genesis: an account for every address the genesis document funds, then the fee collector's."""

from chaind.chain.modules.auth.keeper import FEE_COLLECTOR, ensure_account


def init_genesis(app, ctx):
    for address, _ in app.genesis.balances:
        ensure_account(ctx, address)
    ensure_account(ctx, FEE_COLLECTOR)
