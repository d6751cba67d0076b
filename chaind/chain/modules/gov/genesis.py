"""gov's genesis: app_state.gov {starting_proposal_id, params, constitution} (SDK JSON), and the gov account."""

from chaind.chain.modules.gov import keeper
from chaind.chain.modules.gov.params import parse_params


def init_genesis(app, ctx):
    g = app.genesis
    section = g.document["app_state"].get("gov", {})
    unknown = set(section) - {"starting_proposal_id", "params", "constitution", "deposits", "votes", "proposals"}
    if unknown:
        raise ValueError(f"app_state.gov: unknown fields {sorted(unknown)}")
    if section.get("deposits") or section.get("votes") or section.get("proposals"):
        raise ValueError("app_state.gov: a genesis with proposals, deposits or votes is not supported")
    keeper.set_params(ctx, parse_params(section.get("params"), g.staking_params.bond_denom, g.bech32_prefix))
    keeper.set_next_proposal_id(ctx, int(section.get("starting_proposal_id", "1")))
    keeper.set_constitution(ctx, section.get("constitution", ""))
    app.ensure_account(ctx, keeper.GOV)
