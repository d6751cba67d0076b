"""bank's invariants (x/bank/keeper/invariants.go): what crisis checks of it."""

from chaind.chain.view import balances_total
from chaind.store.keys import compose

_BALANCES = compose("bank", "bal")


def total_supply(app, state):
    """Each denom's supply is the sum of every account's balance of it (the base denom's: the EVM balances)."""
    held = {}
    for key, raw in state.store.iterate(_BALANCES):
        # The key ends with the denom's length byte and the denom; the address before it is 20 bytes.
        denom = key[len(_BALANCES) + 22:].decode()
        held[denom] = held.get(denom, 0) + int(raw)
    bank = app.keepers["bank"]
    held[bank.base_denom] = balances_total(state.accounts)
    supply = dict(bank.total_supply(state))
    if {d: a for d, a in held.items() if a} == {d: a for d, a in supply.items() if a}:
        return None
    return (f"\tsum of accounts coins: {_coins(held)}\n"
            f"\tsupply.Total:          {_coins(supply)}")


def nonnegative_outstanding(app, state):
    for key, raw in state.store.iterate(_BALANCES):
        if int(raw) < 0:
            return f"\taccount {key[len(_BALANCES) + 1:len(_BALANCES) + 21].hex()} amount: {int(raw)}"
    return None


def _coins(amounts):
    return ",".join(f"{a}{d}" for d, a in sorted(amounts.items()) if a)


INVARIANTS = (("nonnegative-outstanding", nonnegative_outstanding), ("total-supply", total_supply))
