"""distribution's staking hooks (x/distribution/keeper/hooks.go): F1 records follow validators and delegations."""


class StakingHooks:
    def after_validator_created(self, app, ctx, operator):
        app.keepers["distribution"].initialize_validator(ctx, operator)
        return []

    def after_validator_removed(self, app, ctx, operator):
        return app.keepers["distribution"].validator_removed(ctx, operator)

    def before_delegation_created(self, app, ctx, delegator, operator):
        app.keepers["distribution"].increment_period(ctx, app.keepers["staking"].validator(ctx, operator))
        return []

    def before_delegation_shares_modified(self, app, ctx, delegator, operator):
        keeper = app.keepers["distribution"]
        return keeper.withdraw_rewards(ctx, app.keepers["staking"].validator(ctx, operator), delegator)[2]

    def after_delegation_modified(self, app, ctx, delegator, operator):
        app.keepers["distribution"].initialize_delegation(ctx, operator, delegator)
        return []

    def before_validator_slashed(self, app, ctx, operator, fraction):
        app.keepers["distribution"].validator_slashed(ctx, app.keepers["staking"].validator(ctx, operator), fraction)
        return []
