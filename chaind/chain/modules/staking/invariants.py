"""staking's invariants (x/staking/keeper/invariants.go): what crisis checks of it."""

import orjson

from chaind.chain.modules.staking.records import BONDED
from chaind.store.keys import compose

_UNBONDINGS = compose("staking", "ubd")


def module_accounts(app, state):
    """The bonded pool holds the bonded validators' tokens; the not-bonded pool the others' and every unbonding."""
    keeper = app.keepers["staking"]
    bonded = not_bonded = 0
    for v in keeper.validators(state):
        if v.status == BONDED:
            bonded += v.tokens
        else:
            not_bonded += v.tokens
    for _, raw in state.store.iterate(_UNBONDINGS):
        not_bonded += sum(int(entry[3]) for entry in orjson.loads(raw))
    pool_not_bonded, pool_bonded = keeper.pool_balances(state)
    if (pool_bonded, pool_not_bonded) == (bonded, not_bonded):
        return None
    return (f"\tPool's bonded tokens: {pool_bonded}\n\tsum of bonded tokens: {bonded}\n"
            f"not bonded token invariance:\n\tPool's not bonded tokens: {pool_not_bonded}\n"
            f"\tsum of not bonded tokens: {not_bonded}\n"
            f"module accounts total (bonded + not bonded):\n"
            f"\tModule Accounts' tokens: {pool_bonded + pool_not_bonded}\n"
            f"\tsum tokens:              {bonded + not_bonded}")


def positive_delegation(app, state):
    keeper = app.keepers["staking"]
    for v in keeper.validators(state):
        for delegator, shares in keeper.delegations_to(state, v.operator):
            if shares <= 0:
                return (f"\tdelegation with non-positive shares: delegator {delegator.hex()} "
                        f"validator {v.operator.hex()}")
    return None


def delegator_shares(app, state):
    """A validator's delegator shares are the sum of its delegations' shares."""
    keeper = app.keepers["staking"]
    for v in keeper.validators(state):
        total = sum(shares for _, shares in keeper.delegations_to(state, v.operator))
        if total != v.shares:
            return (f"broken delegator shares invariance:\n\tvalidator.DelegatorShares: {v.shares}\n"
                    f"\tsum of Delegator.Shares: {total}")
    return None


INVARIANTS = (("module-accounts", module_accounts), ("positive-delegation", positive_delegation),
              ("delegator-shares", delegator_shares))
