"""distribution's staking hooks (x/distribution/keeper/hooks.go): F1 records follow validators and delegations."""

from chaind.chain.modules.distribution.keeper import Keeper


def _run(app, ctx, change):
    keeper = Keeper(app, ctx)
    change(keeper)
    return keeper.events


class StakingHooks:
    def after_validator_created(self, app, ctx, operator):
        return _run(app, ctx, lambda k: k.initialize_validator(operator))

    def after_validator_removed(self, app, ctx, operator):
        return _run(app, ctx, lambda k: k.validator_removed(operator))

    def before_delegation_created(self, app, ctx, delegator, operator):
        return _run(app, ctx, lambda k: k.increment_period(app.keepers["staking"].validator(ctx, operator)))

    def before_delegation_shares_modified(self, app, ctx, delegator, operator):
        return _run(app, ctx, lambda k: k.withdraw_rewards(app.keepers["staking"].validator(ctx, operator), delegator))

    def after_delegation_modified(self, app, ctx, delegator, operator):
        return _run(app, ctx, lambda k: k.initialize_delegation(operator, delegator))

    def before_validator_slashed(self, app, ctx, operator, fraction):
        return _run(app, ctx, lambda k: k.validator_slashed(app.keepers["staking"].validator(ctx, operator), fraction))
