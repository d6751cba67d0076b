"""gov's invariant (x/gov/keeper/invariants.go): what crisis checks of it."""

from chaind.chain.modules.gov.keeper import GOV
from chaind.pb.cosmos.gov.v1 import gov_pb2
from chaind.store.keys import compose

_DEPOSITS = compose("gov", "dep")


def module_account(app, state):
    """The gov module account holds exactly every proposal's deposits."""
    expected = {}
    for _, raw in state.store.iterate(_DEPOSITS):
        for coin in gov_pb2.Deposit.FromString(raw).amount:
            expected[coin.denom] = expected.get(coin.denom, 0) + int(coin.amount)
    held = dict(app.keepers["bank"].all_balances(state, GOV))
    if {d: a for d, a in expected.items() if a} == held:
        return None
    text = lambda coins: ",".join(f"{a}{d}" for d, a in sorted(coins.items()) if a)  # noqa: E731
    return f"\tgov ModuleAccount coins: {text(held)}\n\tsum of deposit amounts:  {text(expected)}"


INVARIANTS = (("module-account", module_account),)
