"""inflation's genesis and params (Evmos v20 x/inflation): the exponential schedule and where minted coins go;
its keeper keeps them in state."""

import re

import attrs
import orjson

from chaind.chain import legacy_dec
from chaind.store.keys import compose

ONE = legacy_dec.ONE
PARAMS_KEY = compose("inflation", "params")
DECIMALS = {"exponential_calculation": ("a", "r", "c", "bonding_target", "max_variance"),
             "inflation_distribution": ("staking_rewards", "usage_incentives", "community_pool")}


@attrs.frozen
class Params:
    mint_denom: str
    a: int = 300_000_000 * ONE
    r: int = ONE // 2
    c: int = 9_375_000 * ONE
    bonding_target: int = 66 * ONE // 100
    max_variance: int = 0
    staking_rewards: int = 533333334 * 10**9
    usage_incentives: int = 0
    community_pool: int = 466666666 * 10**9
    enable_inflation: bool = True

    def to_record(self):
        return orjson.dumps({k: str(v) if isinstance(v, int) and not isinstance(v, bool) else v
                             for k, v in attrs.asdict(self).items()})

    @classmethod
    def from_record(cls, raw):
        doc = orjson.loads(raw)
        return cls(**{k: v if k in ("mint_denom", "enable_inflation") else int(v) for k, v in doc.items()})


@attrs.frozen
class Schedule:
    """The rest of inflation's genesis: the period reached, the epoch timer it mints on, and its counts."""

    period: int = 0
    epoch_identifier: str = "day"
    epochs_per_period: int = 365
    skipped_epochs: int = 0


def parse_genesis(section, default_denom):
    """(Params, Schedule) from app_state.inflation (Evmos JSON); raises ValueError as Validate words it."""
    section = section or {}
    doc = section.get("params", {})
    defaults = Params(default_denom)
    values = {"mint_denom": doc.get("mint_denom", default_denom),
              "enable_inflation": doc.get("enable_inflation", True)}
    for group, names in DECIMALS.items():
        found = doc.get(group, {})
        for name in names:
            values[name] = legacy_dec.parse(found[name]) if name in found else getattr(defaults, name)
    p = Params(**values)
    validate(p)
    schedule = Schedule(int(section.get("period", 0)), section.get("epoch_identifier", "day"),
                        int(section.get("epochs_per_period", 365)), int(section.get("skipped_epochs", 0)))
    if not schedule.epoch_identifier.strip():
        raise ValueError("epoch identifier cannot be blank")
    if schedule.epochs_per_period <= 0:
        raise ValueError(f"epochs per period must be positive: {schedule.epochs_per_period}")
    if schedule.period < 0 or schedule.skipped_epochs < 0:
        raise ValueError("period and skipped epochs cannot be negative")
    return p, schedule


def validate(p):
    """Params.Validate (Evmos v20 x/inflation); ValueError with its text."""
    if not p.mint_denom.strip():
        raise ValueError("mint denom cannot be blank")
    if not re.fullmatch(r"[a-zA-Z][a-zA-Z0-9/:._-]{2,127}", p.mint_denom):
        raise ValueError(f"invalid denom: {p.mint_denom}")
    if p.a < 0:
        raise ValueError("initial value cannot be negative")
    if p.r > ONE:
        raise ValueError("reduction factor cannot be greater than 1")
    if p.r < 0:
        raise ValueError("reduction factor cannot be negative")
    if p.c < 0:
        raise ValueError("long term inflation cannot be negative")
    if p.bonding_target > ONE:
        raise ValueError("bonded target cannot be greater than 1")
    if p.bonding_target <= 0:
        raise ValueError("bonded target cannot be zero or negative")
    if p.max_variance < 0:
        raise ValueError("max variance cannot be negative")
    if p.staking_rewards < 0:
        raise ValueError("staking distribution ratio must not be negative")
    if p.usage_incentives:
        raise ValueError("incentives pool distribution is deprecated. UsageIncentives param should be zero")
    if p.community_pool < 0:
        raise ValueError("community pool distribution ratio must not be negative")
    if p.staking_rewards + p.usage_incentives + p.community_pool != ONE:
        raise ValueError("total distributions ratio should be 1")
    if not isinstance(p.enable_inflation, bool):
        raise ValueError("invalid parameter type: enable_inflation")
