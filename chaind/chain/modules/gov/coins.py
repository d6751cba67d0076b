"""sdk.Coins as gov uses them: {denom: amount} dicts, their validity and their text."""

import re

_DENOM = re.compile(r"^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$")


def text(coins):
    """Coins.String(): sorted by denom, comma separated ("" when empty)."""
    return ",".join(f"{amount}{denom}" for denom, amount in sorted(coins.items()))


def wire_text(repeated):
    return ",".join(f"{c.amount}{c.denom}" for c in repeated)


def parse(repeated):
    """(coins dict, valid): the SDK's Coins.IsValid (sorted, unique, positive, valid denoms)."""
    out, valid, last = {}, True, None
    for c in repeated:
        try:
            amount = int(c.amount)
        except ValueError:
            amount, valid = 0, False
        if not _DENOM.match(c.denom) or amount <= 0 or (last is not None and c.denom <= last):
            valid = False
        last = c.denom
        out[c.denom] = out.get(c.denom, 0) + amount
    return out, valid


def add(a, b):
    out = dict(a)
    for denom, amount in b.items():
        out[denom] = out.get(denom, 0) + amount
    return {d: v for d, v in out.items() if v}


def all_gte(have, need):
    """Coins.IsAllGTE: every denom of `need` is covered."""
    return all(have.get(denom, 0) >= amount for denom, amount in need.items())


def to_list(coins):
    return sorted((d, v) for d, v in coins.items() if v)


def fill(repeated, coins):
    del repeated[:]
    for denom, amount in to_list(coins):
        repeated.add(denom=denom, amount=str(amount))
