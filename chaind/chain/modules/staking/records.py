"""staking's records: validators as stored, and the constants that define them."""

import hashlib

import attrs
import orjson

from chaind.chain.modules.staking.errors import error
from chaind.chain.modules.staking.numbers import dec_quo
from chaind.crypto.addresses import module_address

POWER_REDUCTION = 10**18          # tokens per unit of consensus power (Evmos: 18-decimal coins)
BONDED_POOL = module_address("bonded_tokens_pool")
NOT_BONDED_POOL = module_address("not_bonded_tokens_pool")
UNBONDED, UNBONDING, BONDED = 1, 2, 3            # BondStatus
STATUS_NAMES = {UNBONDED: "BOND_STATUS_UNBONDED", UNBONDING: "BOND_STATUS_UNBONDING", BONDED: "BOND_STATUS_BONDED"}
ED25519_PUBKEY = "/cosmos.crypto.ed25519.PubKey"
SECP256K1_PUBKEY = "/cosmos.crypto.secp256k1.PubKey"
DO_NOT_MODIFY = "[do-not-modify]"
DESCRIPTION_LIMITS = (("moniker", 70), ("identity", 3000), ("website", 140), ("security_contact", 140),
                      ("details", 280))
DESCRIPTION_FIELDS = tuple(name for name, _ in DESCRIPTION_LIMITS)
DAY_NS = 24 * 3600 * 10**9


def consensus_address(pubkey):
    """CometBFT's address of an ed25519 key: the first 20 bytes of its SHA-256."""
    return hashlib.sha256(pubkey).digest()[:20]


@attrs.define
class Validator:
    operator: bytes
    pubkey: bytes                  # ed25519, 32 bytes
    description: dict
    rate: int                      # commission, in atomics
    max_rate: int
    max_change_rate: int
    update_time_ns: int
    min_self_delegation: int
    tokens: int = 0
    shares: int = 0                # delegator shares, in atomics
    status: int = UNBONDED
    jailed: bool = False
    unbonding_height: int = 0
    unbonding_time_ns: int = 0     # the SDK's NewValidator sets the Unix epoch

    @property
    def power(self):
        return self.tokens // POWER_REDUCTION

    @property
    def cons_address(self):
        return consensus_address(self.pubkey)

    def tokens_from_shares(self, shares):
        """TokensFromShares, in atomics (callers truncate)."""
        return dec_quo(shares * self.tokens, self.shares)

    def shares_from_tokens(self, amount):
        """SharesFromTokens (truncated, as QuoInt is), in atomics."""
        if self.tokens == 0:
            raise error(22, "insufficient delegation shares")
        return self.shares * amount // self.tokens

    def to_record(self):
        rec = attrs.asdict(self)
        rec["operator"], rec["pubkey"] = self.operator.hex(), self.pubkey.hex()
        for name in ("tokens", "shares", "min_self_delegation"):
            rec[name] = str(rec[name])         # beyond 64 bits
        return orjson.dumps(rec)

    @classmethod
    def from_record(cls, raw):
        rec = orjson.loads(raw)
        rec["operator"], rec["pubkey"] = bytes.fromhex(rec["operator"]), bytes.fromhex(rec["pubkey"])
        for name in ("tokens", "shares", "min_self_delegation"):
            rec[name] = int(rec[name])
        return cls(**rec)
