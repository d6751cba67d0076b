"""genutil's genesis: app_state.genutil.gen_txs (read with the document, chain/genesis.py, as they make the
genesis validators), delivered as a block's txs are, then the validator set the txs made (staking's set updates).
Its export is empty, as x/genutil's: the exported chain's validators are in staking's section."""

from chaind.chain.module_genesis import GenesisError, ModuleGenesis


def validate(section, context):
    unknown = set(section or {}) - {"gen_txs"}
    if unknown:
        raise ValueError(f"unknown fields {sorted(unknown)}")


def init_genesis(app, ctx, _):
    """Deliver each gen tx as a block's tx is delivered; one that fails stops the chain's start (the SDK
    panics with its log), naming the tx."""
    if not app.genesis.gen_txs:
        return
    for index, raw in enumerate(app.genesis.gen_txs):
        result = app.deliver_gen_tx(ctx, raw)
        if result.code != 0:
            raise GenesisError(f"genesis transaction {index} failed: {result.log}")
    staking = app.keepers["staking"]
    updates, events = staking.apply_validator_set_updates(ctx, staking.params(ctx))
    ctx.validator_updates.extend(updates)
    ctx.events.extend(events)


GENESIS = ModuleGenesis(default=lambda context: {"gen_txs": []}, validate=validate, init=init_genesis,
                        export=lambda app, view: {"gen_txs": []})
