"""genutil's InitGenesis: DeliverGenTxs, then the validator set the txs made (staking's set updates)."""

from chaind.chain.genesis import GenesisError
from chaind.chain.modules.staking.keeper import Keeper


def init_genesis(app, ctx):
    """Deliver each gen tx as a block's tx is delivered; one that fails stops the chain's start (the SDK
    panics with its log), naming the tx."""
    if not app.genesis.gen_txs:
        return
    for index, raw in enumerate(app.genesis.gen_txs):
        result = app.deliver_gen_tx(ctx, raw)
        if result.code != 0:
            raise GenesisError(f"genesis transaction {index} failed: {result.log}")
    keeper = Keeper(app, ctx)
    ctx.validator_updates.extend(keeper.apply_validator_set_updates())
    ctx.events.extend(keeper.events)
