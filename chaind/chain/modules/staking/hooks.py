"""The staking hooks (x/staking's types/expected_keepers.go StakingHooks) x/staking calls and other modules listen
to, each called hook(app, ctx, ...) and returning events."""

from chaind.chain.module import HookFamily

STAKING_HOOKS = HookFamily("staking", (
    "after_validator_created",              # (operator)
    "after_validator_removed",              # (operator)
    "before_delegation_created",            # (delegator, operator)
    "before_delegation_shares_modified",    # (delegator, operator)
    "after_delegation_modified",            # (delegator, operator)
    "after_validator_bonded",               # (consensus address, operator)
    "before_validator_slashed",             # (operator, fraction in atomics)
))
