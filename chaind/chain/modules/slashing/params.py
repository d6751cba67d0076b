"""slashing's params: from genesis (SDK JSON), kept in state as the SDK's Params proto (its store key 0x00)."""

import functools

import attrs

from chaind.chain import legacy_dec
from chaind.chain.modules.staking import format_duration, parse_duration
from chaind.pb.cosmos.slashing.v1beta1 import slashing_pb2
from chaind.store.keys import compose

ONE = legacy_dec.ONE
PARAMS_KEY = compose("slashing", "params")
DECIMALS = ("min_signed_per_window", "slash_fraction_double_sign", "slash_fraction_downtime")


@attrs.frozen
class Params:
    """The SDK's defaults; decimals in atomics, the jail duration in nanoseconds."""

    signed_blocks_window: int = 100
    min_signed_per_window: int = ONE // 2
    downtime_jail_duration_ns: int = 600 * 10**9
    slash_fraction_double_sign: int = ONE // 20
    slash_fraction_downtime: int = ONE // 100

    def min_signed_blocks(self):
        """MinSignedPerWindowInt: the window times the fraction, rounded half to even."""
        quotient, remainder = divmod(self.min_signed_per_window * self.signed_blocks_window, ONE)
        if 2 * remainder > ONE or (2 * remainder == ONE and quotient % 2):
            quotient += 1
        return quotient

    def proto(self):
        seconds, nanos = divmod(self.downtime_jail_duration_ns, 10**9)
        p = slashing_pb2.Params(signed_blocks_window=self.signed_blocks_window,
                                min_signed_per_window=str(self.min_signed_per_window).encode(),
                                slash_fraction_double_sign=str(self.slash_fraction_double_sign).encode(),
                                slash_fraction_downtime=str(self.slash_fraction_downtime).encode())
        p.downtime_jail_duration.seconds, p.downtime_jail_duration.nanos = seconds, nanos
        return p

    @classmethod
    def of_proto(cls, p):
        """Params from the proto (a stored record or MsgUpdateParams); ValueError for an unreadable decimal."""
        decimals = {}
        for name in DECIMALS:
            text = getattr(p, name).decode(errors="replace")
            if not text.lstrip("-").isdigit():
                raise ValueError(f"invalid {name} {text!r}: not a decimal (atomics expected)")
            decimals[name] = int(text)
        duration = p.downtime_jail_duration.seconds * 10**9 + p.downtime_jail_duration.nanos
        return cls(signed_blocks_window=p.signed_blocks_window, downtime_jail_duration_ns=duration, **decimals)


def validate(p):
    """Params.Validate; raises ValueError with the SDK's text."""
    if p.signed_blocks_window <= 0:
        raise ValueError(f"signed blocks window must be positive: {p.signed_blocks_window}")
    if p.min_signed_per_window < 0:
        raise ValueError(f"min signed per window cannot be negative: {legacy_dec.format(p.min_signed_per_window)}")
    if p.min_signed_per_window > ONE:
        raise ValueError(f"min signed per window too large: {legacy_dec.format(p.min_signed_per_window)}")
    if p.downtime_jail_duration_ns <= 0:
        raise ValueError(f"downtime jail duration must be positive: {format_duration(p.downtime_jail_duration_ns)}")
    for name, what in (("slash_fraction_double_sign", "double sign"), ("slash_fraction_downtime", "downtime")):
        value = getattr(p, name)
        if value < 0:
            raise ValueError(f"{what} slash fraction cannot be negative: {legacy_dec.format(value)}")
        if value > ONE:
            raise ValueError(f"{what} slash fraction too large: {legacy_dec.format(value)}")
    return p


def parse_params(doc):
    """Params from the genesis `slashing.params` object (SDK JSON); defaults are the SDK's. Raises ValueError."""
    names = {"signed_blocks_window", *DECIMALS, "downtime_jail_duration"}
    unknown = set(doc) - names
    if unknown:
        raise ValueError(f"unknown slashing params {sorted(unknown)}")
    defaults = Params()
    decimals = {name: legacy_dec.parse(doc[name]) if name in doc else getattr(defaults, name) for name in DECIMALS}
    return validate(Params(
        signed_blocks_window=int(doc.get("signed_blocks_window", defaults.signed_blocks_window)),
        downtime_jail_duration_ns=parse_duration(doc["downtime_jail_duration"]) if "downtime_jail_duration" in doc
        else defaults.downtime_jail_duration_ns, **decimals))


def describe(view):
    """One line for the start banner: when a validator is jailed, for how long, and what it loses."""
    p = params(view)
    return (f"slashing: a validator that signs fewer than {p.min_signed_blocks()} of the last "
            f"{p.signed_blocks_window} blocks loses {_percent(p.slash_fraction_downtime)}% "
            f"and is jailed for {format_duration(p.downtime_jail_duration_ns)} (then `tx slashing unjail`); a double "
            f"sign (broadcast_evidence) loses {_percent(p.slash_fraction_double_sign)}% and "
            f"tombstones it")


def _percent(fraction):
    return legacy_dec.format(fraction * 100).rstrip("0").rstrip(".")


def params(state):
    raw = state.store.get(PARAMS_KEY)
    return Params() if raw is None else _decoded(raw)


@functools.lru_cache(maxsize=16)
def _decoded(raw):
    # Read by every block's liveness check: a record is decoded once.
    return Params.of_proto(slashing_pb2.Params.FromString(raw))
