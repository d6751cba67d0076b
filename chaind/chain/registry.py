"""What the chain's modules plug in: message handlers by type URL, genesis setup, and end-of-block work.

Genesis initializers are init_genesis(app, ctx) functions run once, in order, when a new chain's
state is built. End blockers are end_block(app, ctx) functions; they add block events to ctx.events
and validator power changes to ctx.validator_updates (CometBFT's FinalizeBlock validator_updates).
Module accounts are the accounts modules hold coins in (x/auth answers them as ModuleAccounts).
"""

from chaind.chain.modules import bank, erc20, evm, feemarket, staking

HANDLERS = {handler.type_url: handler for handler in (*bank.MESSAGES, *staking.MESSAGES, *erc20.MESSAGES)}

# In the SDK's InitGenesis order (Evmos: ..., staking, ..., erc20).
GENESIS_INITIALIZERS = (staking.init_genesis, erc20.init_genesis)

# In Evmos' EndBlocker order: staking before feemarket.
END_BLOCKERS = (staking.end_block, feemarket.end_block)

# The module accounts the modules keep, name: (address, permissions), as x/auth's permission map lists them.
MODULE_ACCOUNTS = {
    "fee_collector": (evm.FEE_COLLECTOR, ()),
    "bonded_tokens_pool": (staking.BONDED_POOL, ("burner", "staking")),
    "not_bonded_tokens_pool": (staking.NOT_BONDED_POOL, ("burner", "staking")),
    "erc20": (erc20.MODULE_ADDRESS, ("minter", "burner")),
}
