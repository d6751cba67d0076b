"""upgrade's genesis: the consensus version of every module the chain starts with (InitChainer's version map).
Its section is empty, as x/upgrade's: a plan or a done upgrade belongs to the chain exported, not to a new one."""

from chaind.chain.module_genesis import ModuleGenesis
from chaind.chain.modules.upgrade.keeper import CONSENSUS_VERSIONS


def validate(section, context):
    if section:
        raise ValueError(f"x/upgrade's genesis state is empty, got fields {sorted(section)}")


def init_genesis(app, ctx, _):
    app.keepers["upgrade"].set_module_versions(ctx, {m.name: CONSENSUS_VERSIONS.get(m.name, 1) for m in app.modules})


GENESIS = ModuleGenesis(default=lambda context: {}, validate=validate, init=init_genesis,
                        export=lambda app, view: {})
