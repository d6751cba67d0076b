"""upgrade's genesis: the consensus version of every module the chain starts with (InitChainer's version map)."""

from chaind.chain.modules.upgrade import keeper


def init_genesis(app, ctx):
    keeper.set_module_versions(ctx, {m.name: keeper.CONSENSUS_VERSIONS.get(m.name, 1) for m in app.modules})
