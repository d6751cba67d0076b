"""feemarket's params (Evmos v20 x/feemarket Params), from genesis, kept in state by its keeper; MsgUpdateParams
may change them."""

import functools

import attrs
import orjson

from chaind.chain import legacy_dec

_BIG = ("base_fee", "min_gas_price", "min_gas_multiplier")


@attrs.frozen
class Params:
    no_base_fee: bool
    base_fee_change_denominator: int
    elasticity_multiplier: int
    enable_height: int
    base_fee: int
    min_gas_price: int          # LegacyDec atomics
    min_gas_multiplier: int     # LegacyDec atomics

    def to_record(self):
        # Amounts beyond 64 bits: written as strings.
        return orjson.dumps({k: str(v) if k in _BIG else v for k, v in attrs.asdict(self).items()})

    @classmethod
    def from_record(cls, raw):
        return cls(**{k: int(v) if k in _BIG else v for k, v in orjson.loads(raw).items()})

    def validate(self):
        """Params.Validate (x/feemarket/types/params.go), in its order; ValueError with its text."""
        if self.base_fee_change_denominator == 0:
            raise ValueError("base fee change denominator cannot be 0")
        if self.base_fee < 0:
            raise ValueError(f"initial base fee cannot be negative: {self.base_fee}")
        if self.enable_height < 0:
            raise ValueError(f"enable height cannot be negative: {self.enable_height}")
        if self.min_gas_multiplier < 0:
            raise ValueError(f"value cannot be negative: {legacy_dec.format(self.min_gas_multiplier)}")
        if self.min_gas_multiplier > legacy_dec.ONE:
            raise ValueError(f"value cannot be greater than 1: {legacy_dec.format(self.min_gas_multiplier)}")
        if self.min_gas_price < 0:
            raise ValueError(f"value cannot be negative: {legacy_dec.format(self.min_gas_price)}")
        # Evmos leaves this to the block's arithmetic (a division by it): refused here rather than crash a block.
        if self.elasticity_multiplier == 0:
            raise ValueError("elasticity multiplier cannot be 0")


def parse_params(doc):
    """Params from genesis' feemarket.params (Evmos JSON: LegacyDec fields as decimals); ValueError names the field."""
    try:
        p = Params(no_base_fee=bool(doc["no_base_fee"]),
                   base_fee_change_denominator=int(doc["base_fee_change_denominator"]),
                   elasticity_multiplier=int(doc["elasticity_multiplier"]),
                   enable_height=int(doc.get("enable_height", "0")), base_fee=int(doc["base_fee"]),
                   min_gas_price=legacy_dec.parse(doc.get("min_gas_price", "0")),
                   min_gas_multiplier=legacy_dec.parse(doc.get("min_gas_multiplier", "0.5")))
    except KeyError as e:
        raise ValueError(f"missing {e.args[0]}") from None
    p.validate()
    return p


@functools.lru_cache(maxsize=16)
def decoded(raw):
    # Read by every block and check: a record is decoded once.
    return Params.from_record(raw)
