"""ICS-20's invariant (ibc-go v8.5 keeper/invariants.go): what crisis checks of it."""

from chaind.chain.modules.transfer import denoms
from chaind.chain.modules.transfer.keeper import NAME


def _coins(amounts):
    return ",".join(f"{amount}{denom}" for denom, amount in sorted(amounts.items()) if amount)


def total_escrow_per_denom(app, state):
    """Every escrow account of a channel of the transfer port together holds at least the total escrow kept for
    each denom."""
    keeper, bank = app.keepers[NAME], app.keepers["bank"]
    port_id = keeper.port(state)
    actual = {}
    for channel_port, channel_id, _ in app.keepers["ibc_channel"].channels(state):
        if channel_port != port_id:
            continue
        for denom, amount in bank.all_balances(state, denoms.escrow_address(port_id, channel_id)):
            actual[denom] = actual.get(denom, 0) + amount
    expected = dict(keeper.total_escrowed(state))
    if all(actual.get(denom, 0) >= amount for denom, amount in expected.items()):
        return None
    return ("found denom(s) with total escrow amount lower than expected:\n"
            f"actual total escrowed: {_coins(actual)}\nexpected total escrowed: {_coins(expected)}")


INVARIANTS = (("total-escrow-per-denom", total_escrow_per_denom),)
