"""distribution's invariants (x/distribution/keeper/invariants.go): what crisis checks of it."""

from chaind.chain.modules.distribution import dec_coins
from chaind.chain.modules.distribution.records import DISTRIBUTION_ACCOUNT


def nonnegative_outstanding(app, view):
    for v in app.keepers["staking"].validators(view):
        negative = {d: a for d, a in app.keepers["distribution"].outstanding(view, v.operator).items() if a < 0}
        if negative:
            return f"validator {v.operator.hex()} has negative outstanding rewards: {dec_coins.to_text(negative)}"
    return None


def can_withdraw(app, view):
    """Every delegation's rewards and every commission can be paid from the outstanding rewards."""
    keeper = app.keepers["distribution"]
    for v in app.keepers["staking"].validators(view):
        remaining = dec_coins.sub(keeper.outstanding(view, v.operator), keeper.commission(view, v.operator))
        ratio, _ = keeper.ending_ratio(view, v)
        for delegator, shares in app.keepers["staking"].delegations_to(view, v.operator):
            owed = keeper.delegation_rewards(view, v, delegator, shares, view.height, ratio)
            try:
                remaining = dec_coins.sub(remaining, owed)
            except ArithmeticError:
                return f"validator {v.operator.hex()}: outstanding rewards do not cover what its delegators are owed"
    return None


def module_account(app, view):
    """The module account holds the community pool and every validator's outstanding rewards, truncated."""
    expected = app.keepers["distribution"].community_pool(view)
    for v in app.keepers["staking"].validators(view):
        expected = dec_coins.add(expected, app.keepers["distribution"].outstanding(view, v.operator))
    whole, _ = dec_coins.truncate(expected)
    held = app.keepers["bank"].all_balances(view, DISTRIBUTION_ACCOUNT)
    if sorted(whole) != held:
        return f"distribution module account holds {held}, expected {whole}"
    return None


INVARIANTS = (("nonnegative-outstanding", nonnegative_outstanding), ("can-withdraw", can_withdraw),
              ("module-account", module_account))
