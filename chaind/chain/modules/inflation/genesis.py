"""inflation's genesis: params and schedule from app_state.inflation, and its module account."""

from chaind.chain.modules.inflation.keeper import INFLATION_ACCOUNT
from chaind.chain.modules.inflation.params import PARAMS_KEY, parse_genesis, set_schedule


def init_genesis(app, ctx):
    p, schedule = parse_genesis(app.genesis.document["app_state"].get("inflation"), app.genesis.base_denom)
    ctx.store.set(PARAMS_KEY, p.to_record())
    set_schedule(ctx, schedule)
    app.ensure_account(ctx, INFLATION_ACCOUNT)
