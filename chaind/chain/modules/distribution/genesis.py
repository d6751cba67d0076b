"""distribution's genesis: params from app_state.distribution, an empty community pool, its module account."""

from chaind.chain.modules.distribution.params import PARAMS_KEY, parse_params
from chaind.chain.modules.distribution.state import DISTRIBUTION_ACCOUNT, set_community_pool


def init_genesis(app, ctx):
    section = app.genesis.document["app_state"].get("distribution", {})
    ctx.store.set(PARAMS_KEY, parse_params(section.get("params", {})).to_record())
    set_community_pool(ctx, {})
    app.ensure_account(ctx, DISTRIBUTION_ACCOUNT)
