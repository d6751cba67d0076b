"""What the chain's modules plug in: message handlers by type URL, genesis setup, and end-of-block work.

Genesis initializers are init_genesis(app, ctx) functions run once, in order, when a new chain's
state is built. End blockers are end_block(app, ctx) functions; they add block events to ctx.events
and validator power changes to ctx.validator_updates (CometBFT's FinalizeBlock validator_updates).
"""

from chaind.chain.modules import bank, staking

HANDLERS = {handler.type_url: handler for handler in (*bank.MESSAGES, *staking.MESSAGES)}

GENESIS_INITIALIZERS = (staking.init_genesis,)

END_BLOCKERS = (staking.end_block,)
