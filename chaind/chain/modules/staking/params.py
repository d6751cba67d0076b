"""staking's params: from genesis (SDK JSON), kept in state."""

import functools
import re

import attrs
import orjson

from chaind.chain import legacy_dec
from chaind.chain.modules.staking.numbers import PRECISION, parse_duration
from chaind.chain.modules.staking.records import DAY_NS
from chaind.store.keys import compose


@attrs.frozen
class Params:
    bond_denom: str
    unbonding_time_ns: int = 21 * DAY_NS
    max_validators: int = 100
    max_entries: int = 7
    historical_entries: int = 10000
    min_commission_rate: int = 0

    def to_record(self):
        return orjson.dumps(attrs.asdict(self))

    @classmethod
    def from_record(cls, raw):
        return cls(**orjson.loads(raw))


def parse_params(doc, default_denom):
    """Params from the genesis `staking.params` object (SDK JSON); defaults are the SDK's.

    Raises ValueError naming the field.
    """
    unknown = set(doc) - {"unbonding_time", "max_validators", "max_entries", "historical_entries",
                          "bond_denom", "min_commission_rate"}
    if unknown:
        raise ValueError(f"unknown staking params {sorted(unknown)}")
    defaults = Params(bond_denom=default_denom)
    params = Params(
        bond_denom=doc.get("bond_denom", default_denom),
        unbonding_time_ns=parse_duration(doc["unbonding_time"]) if "unbonding_time" in doc
        else defaults.unbonding_time_ns,
        max_validators=int(doc.get("max_validators", defaults.max_validators)),
        max_entries=int(doc.get("max_entries", defaults.max_entries)),
        historical_entries=int(doc.get("historical_entries", defaults.historical_entries)),
        min_commission_rate=legacy_dec.parse(doc["min_commission_rate"]) if "min_commission_rate" in doc else 0)
    # Params.Validate of the SDK.
    if params.unbonding_time_ns <= 0:
        raise ValueError("staking params: unbonding time must be positive")
    if params.max_validators <= 0:
        raise ValueError("staking params: max validators must be positive")
    if params.max_entries <= 0:
        raise ValueError("staking params: max entries must be positive")
    if not re.fullmatch(r"[a-zA-Z][a-zA-Z0-9/:._-]{2,127}", params.bond_denom):
        raise ValueError(f"staking params: invalid bond denom {params.bond_denom!r}")
    if not 0 <= params.min_commission_rate <= PRECISION:
        raise ValueError("staking params: minimum commission rate must be between 0 and 1")
    return params


PARAMS_KEY = compose("staking", "params")


def params(state):
    return _decoded(state.store.get(PARAMS_KEY))


@functools.lru_cache(maxsize=16)
def _decoded(raw):
    # Read by every block, by each keeper it makes: a record is decoded once.
    return Params.from_record(raw)
