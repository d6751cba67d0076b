"""The staking hooks (x/staking's types/expected_keepers.go StakingHooks) x/staking calls and other modules listen
to, each called hook(app, ctx, ...) and returning events."""

from chaind.chain.module import HookFamily, hook_listeners, run_hook

STAKING_HOOKS = HookFamily("staking", (
    "after_validator_created",              # (operator)
    "after_validator_removed",              # (operator)
    "before_delegation_created",            # (delegator, operator)
    "before_delegation_shares_modified",    # (delegator, operator)
    "after_delegation_modified",            # (delegator, operator)
    "after_validator_bonded",               # (consensus address, operator)
    "before_validator_slashed",             # (operator, fraction in atomics)
))


def hook_caller(app):
    """hooks(ctx, name, *args), what staking's keeper calls its hooks with: the hook on every module of the app
    that listens, in the registry's order, their events returned (the SDK's MultiStakingHooks, set on the keeper
    once; a listener's hooks take the app, so this one holds it for them)."""
    listeners = hook_listeners(app.modules, STAKING_HOOKS.name)
    return lambda ctx, name, *args: run_hook(app, ctx, listeners, name, *args)
