"""Coins as the CLI reads them ("10achain,5stake": --fees, --gas-prices, amounts) and the Coin protos they
become."""

import decimal
import re

import click

from chaind.cli.common import pb

_COIN = re.compile(r"([0-9]+)([a-zA-Z][a-zA-Z0-9/:._-]{2,127})\Z")
_DEC_COIN = re.compile(r"([0-9]+(?:\.[0-9]+)?)([a-zA-Z][a-zA-Z0-9/:._-]{2,127})\Z")


def parse_coins(text, decimal_amounts=False, what="coins"):
    """[(denom, amount)] of "10achain,5stake" (amounts may be decimals for gas prices)."""
    pattern = _DEC_COIN if decimal_amounts else _COIN
    coins = []
    for part in (p.strip() for p in text.split(",")):
        match = pattern.match(part)
        if match is None:
            raise click.ClickException(f"invalid {what} {text!r}: want e.g. 10achain,5stake")
        amount = decimal.Decimal(match.group(1)) if decimal_amounts else int(match.group(1))
        coins.append((match.group(2), amount))
    denoms = [d for d, _ in coins]
    if len(set(denoms)) != len(denoms):
        raise click.ClickException(f"invalid {what} {text!r}: duplicate denomination")
    return sorted(coins)


def coin_protos(coins):
    coin_pb2 = pb("cosmos.base.v1beta1.coin_pb2")
    return [coin_pb2.Coin(denom=d, amount=str(a)) for d, a in coins]


def positive_coins(text):
    """Coin protos of one or more positive coins."""
    coins = parse_coins(text, what="amount")
    if any(a == 0 for _, a in coins):
        raise click.ClickException(f"invalid amount {text!r}: must be positive")
    return coin_protos(coins)


def coin(text):
    """One positive coin (e.g. 10achain) as a Coin."""
    coins = parse_coins(text, what="amount")
    if len(coins) != 1 or coins[0][1] == 0:
        raise click.ClickException(f"invalid amount {text!r}: want one positive coin")
    return coin_protos(coins)[0]
