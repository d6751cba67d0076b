"""distribution's params: from genesis (SDK JSON), kept in state; community_tax is the one that bites."""

import attrs
import orjson

from chaind.chain import legacy_dec
from chaind.store.keys import compose

PARAMS_KEY = compose("distribution", "params")


@attrs.frozen
class Params:
    community_tax: int = legacy_dec.parse("0.02")
    base_proposer_reward: int = 0        # deprecated since v0.47: kept for the wire, never used
    bonus_proposer_reward: int = 0
    withdraw_addr_enabled: bool = True

    def to_record(self):
        return orjson.dumps(attrs.asdict(self))

    @classmethod
    def from_record(cls, raw):
        return cls(**orjson.loads(raw))


def parse_params(doc):
    """Params from the genesis `distribution.params` object; defaults are the SDK's. Raises ValueError."""
    names = {"community_tax", "base_proposer_reward", "bonus_proposer_reward", "withdraw_addr_enabled"}
    unknown = set(doc) - names
    if unknown:
        raise ValueError(f"unknown distribution params {sorted(unknown)}")
    defaults = Params()
    decimals = {name: legacy_dec.parse(doc[name]) if name in doc else getattr(defaults, name)
                for name in ("community_tax", "base_proposer_reward", "bonus_proposer_reward")}
    enabled = doc.get("withdraw_addr_enabled", True)
    if not isinstance(enabled, bool):
        raise ValueError("distribution params: withdraw_addr_enabled must be a boolean")
    # Params.ValidateBasic
    tax = decimals["community_tax"]
    if tax < 0 or tax > legacy_dec.ONE:
        raise ValueError(f"community tax should be non-negative and less than one: {legacy_dec.format(tax)}")
    return Params(withdraw_addr_enabled=enabled, **decimals)


def params(state):
    raw = state.store.get(PARAMS_KEY)
    return Params() if raw is None else Params.from_record(raw)
