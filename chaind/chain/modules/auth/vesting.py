"""Vesting accounts (x/auth/vesting's account types): what is locked at a block time, and the delegation tracking.

They live with auth because they are auth accounts (the SDK's codec registers them as AccountI): bank reads the
locked coins on every spend without importing the vesting module, whose package holds the messages. Coins are
{denom: amount}; times are unix seconds, as the SDK's blockTime.Unix().
"""

from chaind.chain import legacy_dec
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.vesting.v1beta1 import vesting_pb2

CONTINUOUS = "/cosmos.vesting.v1beta1.ContinuousVestingAccount"
DELAYED = "/cosmos.vesting.v1beta1.DelayedVestingAccount"
PERIODIC = "/cosmos.vesting.v1beta1.PeriodicVestingAccount"
PERMANENT = "/cosmos.vesting.v1beta1.PermanentLockedAccount"
CLASSES = {CONTINUOUS: vesting_pb2.ContinuousVestingAccount, DELAYED: vesting_pb2.DelayedVestingAccount,
           PERIODIC: vesting_pb2.PeriodicVestingAccount, PERMANENT: vesting_pb2.PermanentLockedAccount}


def coins(repeated):
    return {c.denom: int(c.amount) for c in repeated if c.amount and int(c.amount)}


def coin_protos(amounts):
    return [coin_pb2.Coin(denom=d, amount=str(a)) for d, a in sorted(amounts.items()) if a > 0]


def _round_half_even(atomics):
    """chopPrecisionAndRound of an 18-place intermediate."""
    quotient, remainder = divmod(atomics, legacy_dec.ONE)
    if 2 * remainder > legacy_dec.ONE or (2 * remainder == legacy_dec.ONE and quotient % 2):
        quotient += 1
    return quotient


def vested(url, account, now):
    """GetVestedCoins(blockTime) of each account type."""
    base = account.base_vesting_account
    original = coins(base.original_vesting)
    if url == PERMANENT:
        return {}
    if url == DELAYED:
        return original if now >= base.end_time else {}
    start = account.start_time
    if now <= start:
        return {}
    if now >= base.end_time:
        return original
    if url == CONTINUOUS:
        # s := LegacyNewDec(x).Quo(LegacyNewDec(y)); vested := LegacyNewDecFromInt(amount).Mul(s).RoundInt()
        s = _round_half_even((now - start) * legacy_dec.ONE * legacy_dec.ONE // (base.end_time - start))
        return {d: _round_half_even(a * legacy_dec.ONE * s // legacy_dec.ONE) for d, a in original.items()}
    out, period_start = {}, start
    for period in account.vesting_periods:
        if now - period_start < period.length:
            break
        for d, a in coins(period.amount).items():
            out[d] = out.get(d, 0) + a
        period_start += period.length
    return out


def vesting(url, account, now):
    """GetVestingCoins: the original vesting not vested yet."""
    done = vested(url, account, now)
    return {d: a - done.get(d, 0) for d, a in coins(account.base_vesting_account.original_vesting).items()
            if a - done.get(d, 0) > 0}


def locked(url, account, now):
    """LockedCoins: what is vesting, less what of it is delegated (that is held by the staking pools)."""
    delegated = coins(account.base_vesting_account.delegated_vesting)
    out = {}
    for d, a in vesting(url, account, now).items():
        rest = a - min(a, delegated.get(d, 0))
        if rest:
            out[d] = rest
    return out


def track_delegation(url, account, balance, amount, now):
    """TrackDelegation of `amount` ({denom: n}) delegated from `balance` (before the delegation)."""
    base = account.base_vesting_account
    still = vesting(url, account, now)
    dv, df = coins(base.delegated_vesting), coins(base.delegated_free)
    for d, n in amount.items():
        x = min(max(still.get(d, 0) - dv.get(d, 0), 0), n)
        dv[d] = dv.get(d, 0) + x
        df[d] = df.get(d, 0) + n - x
    _set(base, dv, df)


def track_undelegation(account, amount):
    """TrackUndelegation: free delegations are returned first, then vesting ones."""
    base = account.base_vesting_account
    dv, df = coins(base.delegated_vesting), coins(base.delegated_free)
    for d, n in amount.items():
        x = min(df.get(d, 0), n)
        y = min(dv.get(d, 0), n - x)
        df[d] = df.get(d, 0) - x
        dv[d] = dv.get(d, 0) - y
    _set(base, dv, df)


def _set(base, dv, df):
    del base.delegated_vesting[:]
    base.delegated_vesting.extend(coin_protos(dv))
    del base.delegated_free[:]
    base.delegated_free.extend(coin_protos(df))
