"""The three fee allowances (BasicAllowance, PeriodicAllowance, AllowedMsgAllowance) as x/feegrant v0.50 applies
them: ValidateBasic, Accept at a block time (which may use the allowance up), expiry and the period reset.

An allowance travels as an Any; each function takes and returns Anys, so AllowedMsgAllowance wraps any other.
"""

from google.protobuf import any_pb2

from chaind.chain import errors
from chaind.chain.modules.feegrant.errors import (
    FEE_LIMIT_EXCEEDED,
    FEE_LIMIT_EXPIRED,
    INVALID_DURATION,
    MESSAGE_NOT_ALLOWED,
    NO_ALLOWANCE,
    NO_MESSAGES,
    error,
)
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.feegrant.v1beta1 import feegrant_pb2

BASIC = "/cosmos.feegrant.v1beta1.BasicAllowance"
PERIODIC = "/cosmos.feegrant.v1beta1.PeriodicAllowance"
ALLOWED_MSG = "/cosmos.feegrant.v1beta1.AllowedMsgAllowance"
_CLASSES = {BASIC: feegrant_pb2.BasicAllowance, PERIODIC: feegrant_pb2.PeriodicAllowance,
            ALLOWED_MSG: feegrant_pb2.AllowedMsgAllowance}


def pack(message):
    return any_pb2.Any(type_url="/" + message.DESCRIPTOR.full_name, value=message.SerializeToString())


def unpack(any_allowance):
    cls = _CLASSES.get(any_allowance.type_url)
    if cls is None:
        raise errors.TxError(errors.SDK, 2, f"no concrete type registered for type URL {any_allowance.type_url} "
                             "against interface *feegrant.FeeAllowanceI: tx parse error")
    try:
        return cls.FromString(any_allowance.value)
    except Exception:  # noqa: BLE001 (untrusted bytes: any decode failure is the sender's error)
        raise errors.decode_error(f"invalid {any_allowance.type_url}") from None


# -- coins (sdk.Coins as (denom, amount) pairs) -----------------------------------------------------------

def coins_of(repeated):
    return [(c.denom, int(c.amount or 0)) for c in repeated]


def _set_coins(repeated, coins):
    del repeated[:]
    repeated.extend(coin_pb2.Coin(denom=d, amount=str(a)) for d, a in sorted(coins) if a)


def safe_sub(have, take):
    """(have - take, whether any denom went negative), as Coins.SafeSub: zero coins dropped."""
    left = dict(have)
    for denom, amount in take:
        left[denom] = left.get(denom, 0) - amount
    negative = any(a < 0 for a in left.values())
    return [(d, a) for d, a in left.items() if a], negative


def _check_coins(coins, what):
    denoms = [d for d, _ in coins]
    if denoms != sorted(set(denoms)) or any(a < 0 for _, a in coins):
        raise errors.invalid_coins(f"{what} is invalid: {_format(coins)}")


def _format(coins):
    return ",".join(f"{a}{d}" for d, a in coins)


# -- ValidateBasic ----------------------------------------------------------------------------------------

def validate(any_allowance):
    """The allowance's ValidateBasic."""
    allowance = unpack(any_allowance)
    if any_allowance.type_url == BASIC:
        _validate_basic(allowance)
    elif any_allowance.type_url == PERIODIC:
        _validate_periodic(allowance)
    else:
        if not allowance.HasField("allowance"):
            raise error(NO_ALLOWANCE, "allowance should not be empty")
        if not allowance.allowed_messages:
            raise error(NO_MESSAGES, "allowed messages shouldn't be empty")
        validate(allowance.allowance)


def _validate_basic(basic):
    limit = coins_of(basic.spend_limit)
    if limit:
        _check_coins(limit, "send amount")
        if any(a <= 0 for _, a in limit):
            raise errors.invalid_coins("spend limit must be positive")
    if basic.HasField("expiration") and basic.expiration.seconds < 0:
        raise error(INVALID_DURATION, "expiration time cannot be negative")


def _validate_periodic(periodic):
    _validate_basic(periodic.basic)
    period_limit = coins_of(periodic.period_spend_limit)
    _check_coins(period_limit, "spend amount")
    if not period_limit or any(a <= 0 for _, a in period_limit):
        raise errors.invalid_coins("spend limit must be positive")
    can_spend = coins_of(periodic.period_can_spend)
    _check_coins(can_spend, "can spend amount")
    limit = coins_of(periodic.basic.spend_limit)
    if limit and not {d for d, _ in period_limit} <= {d for d, _ in limit}:
        raise errors.invalid_coins("period spend limit has different currency than basic spend limit")
    if periodic.period.seconds < 0:
        raise error(INVALID_DURATION, "negative clock step")


# -- time -------------------------------------------------------------------------------------------------

def expires_at(any_allowance):
    """The allowance's expiration in ns since the epoch, or None."""
    allowance = unpack(any_allowance)
    if any_allowance.type_url == ALLOWED_MSG:
        return expires_at(allowance.allowance)
    basic = allowance if any_allowance.type_url == BASIC else allowance.basic
    return basic.expiration.ToNanoseconds() if basic.HasField("expiration") else None


def update_period_reset(any_allowance, time_ns):
    """UpdatePeriodReset at a grant: a periodic allowance's next reset is one period from the block time."""
    allowance = unpack(any_allowance)
    if any_allowance.type_url == BASIC:
        return any_allowance
    if any_allowance.type_url == ALLOWED_MSG:
        allowance.allowance.CopyFrom(update_period_reset(allowance.allowance, time_ns))
        return pack(allowance)
    allowance.period_reset.FromNanoseconds(time_ns + allowance.period.ToNanoseconds())
    return pack(allowance)


# -- Accept -----------------------------------------------------------------------------------------------

def accept(any_allowance, fee, type_urls, time_ns):
    """Accept: (whether the allowance is used up and goes, the allowance as it is after paying `fee`);
    raises the SDK's feegrant errors (an expired allowance is refused)."""
    allowance = unpack(any_allowance)
    if any_allowance.type_url == BASIC:
        remove = _accept_basic(allowance, fee, time_ns)
    elif any_allowance.type_url == PERIODIC:
        remove = _accept_periodic(allowance, fee, time_ns)
    else:
        allowed = set(allowance.allowed_messages)
        if not all(url in allowed for url in type_urls):
            raise error(MESSAGE_NOT_ALLOWED, "message does not exist in allowed messages")
        remove, inner = accept(allowance.allowance, fee, type_urls, time_ns)
        allowance.allowance.CopyFrom(inner)
    return remove, pack(allowance)


def _accept_basic(basic, fee, time_ns):
    if basic.HasField("expiration") and basic.expiration.ToNanoseconds() < time_ns:
        raise error(FEE_LIMIT_EXPIRED, "basic allowance")
    limit = coins_of(basic.spend_limit)
    if not limit:
        return False
    left, negative = safe_sub(limit, fee)
    if negative:
        raise error(FEE_LIMIT_EXCEEDED, "basic allowance")
    _set_coins(basic.spend_limit, left)
    return not left


def _accept_periodic(periodic, fee, time_ns):
    basic = periodic.basic
    if basic.HasField("expiration") and time_ns > basic.expiration.ToNanoseconds():
        raise error(FEE_LIMIT_EXPIRED, "absolute limit")
    _try_reset_period(periodic, time_ns)
    can_spend, negative = safe_sub(coins_of(periodic.period_can_spend), fee)
    if negative:
        raise error(FEE_LIMIT_EXCEEDED, "period limit")
    _set_coins(periodic.period_can_spend, can_spend)
    limit = coins_of(basic.spend_limit)
    if not limit:
        return False
    left, negative = safe_sub(limit, fee)
    if negative:
        raise error(FEE_LIMIT_EXCEEDED, "absolute limit")
    _set_coins(basic.spend_limit, left)
    return not left


def _try_reset_period(periodic, time_ns):
    """A period that has ended tops period_can_spend up to min(period limit, what is left of the total) and
    moves the reset on one period (or one period from now, after a longer pause)."""
    reset = periodic.period_reset.ToNanoseconds()
    if time_ns < reset:
        return
    limit, period_limit = coins_of(periodic.basic.spend_limit), coins_of(periodic.period_spend_limit)
    _, short = safe_sub(limit, period_limit)
    _set_coins(periodic.period_can_spend, limit if short and limit else period_limit)
    period = periodic.period.ToNanoseconds()
    reset += period
    if time_ns > reset:
        reset = time_ns + period
    periodic.period_reset.FromNanoseconds(reset)
