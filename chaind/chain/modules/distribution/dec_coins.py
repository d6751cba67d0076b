"""DecCoins (sdk.DecCoins) as {denom: LegacyDec atomics}: the arithmetic F1 needs, truncating where the SDK does."""

from chaind.chain import legacy_dec

ONE = legacy_dec.ONE


def add(a, b):
    out = dict(a)
    for denom, amount in b.items():
        out[denom] = out.get(denom, 0) + amount
    return {d: v for d, v in out.items() if v}


def sub(a, b):
    """DecCoins.Sub; a negative result is a broken invariant (the SDK panics)."""
    out = dict(a)
    for denom, amount in b.items():
        out[denom] = out.get(denom, 0) - amount
        if out[denom] < 0:
            raise ArithmeticError(f"negative coin amount: {legacy_dec.format(out[denom])}{denom}")
    return {d: v for d, v in out.items() if v}


def mul_dec_truncate(coins, dec):
    return {d: v for d, v in ((d, a * dec // ONE) for d, a in coins.items()) if v}


def mul_dec(coins, dec):
    """MulDec: the product rounded half to even at 18 places."""
    out = {}
    for denom, amount in coins.items():
        product = mul_dec_amount(amount, dec)
        if product:
            out[denom] = product
    return out


def mul_dec_amount(amount, dec):
    """LegacyDec.Mul of one amount: the product rounded half to even at 18 places."""
    quotient, remainder = divmod(amount * dec, ONE)
    if 2 * remainder > ONE or (2 * remainder == ONE and quotient % 2):
        quotient += 1
    return quotient


def quo_dec_truncate(coins, dec):
    return {d: v for d, v in ((d, a * ONE // dec) for d, a in coins.items()) if v}


def intersect(a, b):
    """The smaller amount of each denom both hold."""
    return {d: min(v, b[d]) for d, v in a.items() if d in b and min(v, b[d]) > 0}


def truncate(coins):
    """TruncateDecimal: (whole coins [(denom, int)], the remainder as DecCoins)."""
    whole = [(d, a // ONE) for d, a in sorted(coins.items()) if a // ONE]
    remainder = {d: a % ONE for d, a in coins.items() if a % ONE}
    return whole, remainder


def from_coins(coins):
    return {d: a * ONE for d, a in coins if a}


def to_text(coins):
    """DecCoins.String(): "1.500000000000000000achain,2.000000000000000000stake"."""
    if len(coins) == 1:
        # The common case, a chain's one fee denom, without the sort and join (every block prints 200).
        for denom, amount in coins.items():
            return legacy_dec.format(amount) + denom
    return ",".join([legacy_dec.format(coins[d]) + d for d in sorted(coins)])


def amount_text(amount, denom):
    """to_text({denom: amount}) (the empty text for none)."""
    return legacy_dec.format(amount) + denom if amount else ""


def to_record(coins):
    if len(coins) < 2:
        return {d: str(a) for d, a in coins.items()}
    return {d: str(a) for d, a in sorted(coins.items())}


def from_record(record):
    return {d: int(a) for d, a in record.items()}


def to_proto(coins, dec_coin_class):
    """Repeated DecCoin on the wire: amounts as atomics (the LegacyDec wire form), sorted by denom."""
    return [dec_coin_class(denom=d, amount=str(coins[d])) for d in sorted(coins)]
