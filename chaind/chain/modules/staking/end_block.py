"""staking's end blocker: validator updates, then what matured (validators, unbondings, redelegations)."""


def end_block(app, ctx):
    """The SDK's staking EndBlocker: validator updates, then matured validators, unbondings and redelegations."""
    keeper = app.keepers["staking"]
    p = keeper.params(ctx)
    updates, events = keeper.apply_validator_set_updates(ctx, p)
    ctx.validator_updates.extend(updates)
    events += keeper.unbond_mature_validators(ctx)
    events += keeper.complete_unbondings(ctx, p)
    events += keeper.complete_redelegations(ctx, p)
    ctx.events.extend(events)
