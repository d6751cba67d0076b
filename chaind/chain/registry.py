"""What the chain's modules plug in: message handlers by type URL, and what runs at the end of each block.

End blockers are end_block(app, ctx) functions; they add block events to ctx.events and validator
power changes to ctx.validator_updates (CometBFT's FinalizeBlock validator_updates).
"""

from chaind.chain.modules import bank

HANDLERS = {handler.type_url: handler for handler in (*bank.MESSAGES,)}

END_BLOCKERS = ()
