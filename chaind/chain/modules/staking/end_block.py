"""staking's end blocker: validator updates, then what matured (validators, unbondings, redelegations)."""


def end_block(app, ctx):
    """The SDK's staking EndBlocker: validator updates, then matured validators, unbondings and redelegations."""
    keeper = app.keepers["staking"]
    updates, events = keeper.apply_validator_set_updates(ctx)
    ctx.validator_updates.extend(updates)
    events += keeper.unbond_mature_validators(ctx)
    events += keeper.complete_unbondings(ctx)
    events += keeper.complete_redelegations(ctx)
    ctx.events.extend(events)
