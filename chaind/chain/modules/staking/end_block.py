"""staking's end blocker: validator updates, then what matured (validators, unbondings, redelegations)."""

from chaind.chain.modules.staking.keeper import Keeper


def end_block(app, ctx):
    """The SDK's staking EndBlocker: validator updates, then matured validators, unbondings and redelegations."""
    keeper = Keeper(app, ctx)
    ctx.validator_updates.extend(keeper.apply_validator_set_updates())
    keeper.unbond_mature_validators()
    keeper.complete_unbondings()
    keeper.complete_redelegations()
    ctx.events.extend(keeper.events)
