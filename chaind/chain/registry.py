"""What the chain's modules plug in: message handlers by type URL, genesis setup, and end-of-block work.

Genesis initializers are init_genesis(app, ctx) functions run once, in order, when a new chain's
state is built. End blockers are end_block(app, ctx) functions; they add block events to ctx.events
and validator power changes to ctx.validator_updates (CometBFT's FinalizeBlock validator_updates).
Module accounts are the accounts modules hold coins in (x/auth answers them as ModuleAccounts).
"""

from chaind.chain.modules import bank, erc20, evm, feemarket

HANDLERS = {handler.type_url: handler for handler in (*bank.MESSAGES, *erc20.MESSAGES)}

GENESIS_INITIALIZERS = (erc20.init_genesis,)

END_BLOCKERS = (feemarket.end_block,)

# The module accounts the modules keep, name: (address, permissions), as x/auth's permission map lists them.
MODULE_ACCOUNTS = {
    "fee_collector": (evm.FEE_COLLECTOR, ()),
    "erc20": (erc20.MODULE_ADDRESS, ("minter", "burner")),
}
