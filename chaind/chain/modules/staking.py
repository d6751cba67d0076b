"""staking: validators, delegations, unbonding delegations and redelegations, and the bonded set.

x/staking of the Cosmos SDK v0.50 as far as a chain without slashing needs it: its five messages with
the SDK's checks, errors and events, genesis, and the end blocker whose power changes reach CometBFT.
"""

import hashlib
import re

import attrs
import orjson

from chaind.chain import errors, legacy_dec
from chaind.chain.block import event
from chaind.chain.modules.bank import format_coins
from chaind.chain.msgs import MsgHandler
from chaind.crypto.addresses import AddressError, module_address, parse, to_bech32
from chaind.pb.cosmos.crypto.ed25519 import keys_pb2 as ed25519_pb2
from chaind.pb.cosmos.staking.v1beta1 import tx_pb2
from chaind.store.keys import compose

CODESPACE = "staking"
POWER_REDUCTION = 10**18          # tokens per unit of consensus power (Evmos: 18-decimal coins)
PRECISION = legacy_dec.ONE        # LegacyDec: a decimal is an integer of 10^-18 units ("atomics")
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
_DURATION = re.compile(r"^(\d+)(?:\.(\d{1,9}))?s$")
GO_ZERO_TIME_NS = -62135596800 * 10**9   # Go's zero time.Time (0001-01-01T00:00:00Z)


def error(code, text, detail=None):
    """A staking error: the SDK's registered text, wrapped by `detail` as errorsmod.Wrap puts it."""
    return errors.TxError(CODESPACE, code, f"{detail}: {text}" if detail else text)


NO_VALIDATOR = (3, "validator does not exist")


# -- decimals ----------------------------------------------------------------------------------

def dec_from_wire(text, what):
    """A LegacyDec field of a message: protobuf carries its atomics as an integer string."""
    if not re.fullmatch(r"-?\d+", text or ""):
        raise errors.invalid_request(f"invalid {what} {text!r}: not a decimal (atomics expected)")
    return int(text)


def _round_half_even(numerator, denominator):
    quotient, remainder = divmod(numerator, denominator)
    twice = 2 * remainder
    if twice > denominator or (twice == denominator and quotient % 2):
        quotient += 1
    return quotient


def dec_quo(a, b):
    """LegacyDec.Quo: a / b with banker's rounding at 18 decimals (both in atomics)."""
    return _round_half_even(a * PRECISION * PRECISION // b, PRECISION)


def parse_duration(text):
    match = _DURATION.match(text or "")
    if not match:
        raise ValueError(f"duration {text!r} must look like 1814400s")
    return int(match.group(1)) * 10**9 + int((match.group(2) or "0").ljust(9, "0"))


def format_duration(ns):
    seconds, nanos = divmod(ns, 10**9)
    return f"{seconds}.{nanos:09d}".rstrip("0").rstrip(".") + "s"


# -- params ------------------------------------------------------------------------------------

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


_PARAMS = compose("staking", "params")


def params(state):
    return Params.from_record(state.store.get(_PARAMS))


# -- records -----------------------------------------------------------------------------------

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


def _time_key(ns):
    return max(ns, 0).to_bytes(8, "big")


def parts(key):
    """The parts of a composed key (store.keys.compose), as bytes."""
    out, i = [], 0
    while i < len(key):
        n = key[i]
        out.append(key[i + 1:i + 1 + n])
        i += 1 + n
    return out


def _val_key(operator):
    return compose("staking", "val", operator)


def _cons_key(cons_address):
    return compose("staking", "cons", cons_address)


def _del_key(delegator, validator):
    return compose("staking", "del", delegator, validator)


def _del_by_val_key(validator, delegator):
    return compose("staking", "delv", validator, delegator)


def _ubd_key(delegator, validator):
    return compose("staking", "ubd", delegator, validator)


def _ubd_by_val_key(validator, delegator):
    return compose("staking", "ubdv", validator, delegator)


def _red_key(delegator, src, dst):
    return compose("staking", "red", delegator, src, dst)


def _red_by_src_key(src, delegator, dst):
    return compose("staking", "reds", src, delegator, dst)


def _red_by_dst_key(dst, delegator, src):
    return compose("staking", "redd", dst, delegator, src)


def _last_power_key(operator):
    return compose("staking", "last", operator)


_UNBONDING_ID = compose("staking", "ubdid")
_UBD_QUEUE = compose("staking", "ubdq")
_RED_QUEUE = compose("staking", "redq")
_VAL_QUEUE = compose("staking", "valq")


def validator(state, operator):
    raw = state.store.get(_val_key(operator))
    return None if raw is None else Validator.from_record(raw)


def validator_by_cons(state, cons_address):
    operator = state.store.get(_cons_key(cons_address))
    return None if operator is None else validator(state, operator)


def validators(state):
    """Every validator, by operator address."""
    return [Validator.from_record(raw) for _, raw in state.store.iterate(compose("staking", "val"))]


def _set_validator(state, v):
    state.store.set(_val_key(v.operator), v.to_record())


def _remove_validator(state, v):
    state.store.delete(_val_key(v.operator))
    state.store.delete(_cons_key(v.cons_address))


def delegation(state, delegator, operator):
    """A delegation's shares (atomics), None without one."""
    raw = state.store.get(_del_key(delegator, operator))
    return None if raw is None else int(raw)


def delegations_of(state, delegator):
    """[(validator operator, shares)] of a delegator, by validator address."""
    return [(parts(key)[-1], int(raw)) for key, raw in state.store.iterate(compose("staking", "del", delegator))]


def delegations_to(state, operator):
    """[(delegator, shares)] of a validator, by delegator address."""
    return [(parts(key)[-1], delegation(state, parts(key)[-1], operator))
            for key, _ in state.store.iterate(compose("staking", "delv", operator))]


def _set_delegation(state, delegator, operator, shares):
    if shares:
        state.store.set(_del_key(delegator, operator), str(shares).encode())
        state.store.set(_del_by_val_key(operator, delegator), b"")
    else:
        state.store.delete(_del_key(delegator, operator))
        state.store.delete(_del_by_val_key(operator, delegator))


# Unbonding delegation entries: [creation_height, completion_ns, initial_balance, balance, unbonding_id];
# redelegation entries: [creation_height, completion_ns, initial_balance, shares_dst, unbonding_id].
# Amounts are strings (beyond 64 bits).

def unbonding(state, delegator, operator):
    raw = state.store.get(_ubd_key(delegator, operator))
    return [] if raw is None else orjson.loads(raw)


def unbondings_of(state, delegator):
    return [(parts(key)[-1], orjson.loads(raw))
            for key, raw in state.store.iterate(compose("staking", "ubd", delegator))]


def unbondings_from(state, operator):
    return [(parts(key)[-1], unbonding(state, parts(key)[-1], operator))
            for key, _ in state.store.iterate(compose("staking", "ubdv", operator))]


def _set_unbonding(state, delegator, operator, entries):
    if entries:
        state.store.set(_ubd_key(delegator, operator), orjson.dumps(entries))
        state.store.set(_ubd_by_val_key(operator, delegator), b"")
    else:
        state.store.delete(_ubd_key(delegator, operator))
        state.store.delete(_ubd_by_val_key(operator, delegator))


def redelegation(state, delegator, src, dst):
    raw = state.store.get(_red_key(delegator, src, dst))
    return [] if raw is None else orjson.loads(raw)


def redelegations_of(state, delegator):
    """[(src, dst, entries)] of a delegator."""
    return [(*parts(key)[-2:], orjson.loads(raw))
            for key, raw in state.store.iterate(compose("staking", "red", delegator))]


def redelegations_from(state, src):
    """[(delegator, dst, entries)] leaving a validator."""
    return [(*parts(key)[-2:], redelegation(state, parts(key)[-2], src, parts(key)[-1]))
            for key, _ in state.store.iterate(compose("staking", "reds", src))]


def _set_redelegation(state, delegator, src, dst, entries):
    if entries:
        state.store.set(_red_key(delegator, src, dst), orjson.dumps(entries))
        state.store.set(_red_by_src_key(src, delegator, dst), b"")
        state.store.set(_red_by_dst_key(dst, delegator, src), b"")
    else:
        for key in (_red_key(delegator, src, dst), _red_by_src_key(src, delegator, dst),
                    _red_by_dst_key(dst, delegator, src)):
            state.store.delete(key)


def _next_unbonding_id(state):
    raw = state.store.get(_UNBONDING_ID)
    number = int(raw) + 1 if raw else 1
    state.store.set(_UNBONDING_ID, str(number).encode())
    return number


def last_powers(state):
    """{operator: power} of the bonded set as the last end block left it (LastValidatorPower)."""
    return {parts(key)[-1]: int(raw) for key, raw in state.store.iterate(compose("staking", "last"))}


def pool_balances(app, state):
    """(not bonded, bonded) tokens: the balances of the two module accounts."""
    denom = params(state).bond_denom
    return app.bank.balance(state, NOT_BONDED_POOL, denom), app.bank.balance(state, BONDED_POOL, denom)


# -- keeper ------------------------------------------------------------------------------------

class _Keeper:
    """The state changes of one block: the app (bank), the block context, and its params."""

    def __init__(self, app, ctx):
        self.app = app
        self.ctx = ctx
        self.params = params(ctx)
        self.events = []

    def b32(self, address):
        return self.app.bank.bech32(address)

    def valoper(self, address):
        return to_bech32(self.app.genesis.bech32_prefix + "valoper", address)

    def coins(self, amount):
        return [(self.params.bond_denom, amount)]

    def move_between_pools(self, amount, to_bonded):
        if amount:
            src, dst = (NOT_BONDED_POOL, BONDED_POOL) if to_bonded else (BONDED_POOL, NOT_BONDED_POOL)
            self.events += self.app.bank.send(self.ctx, src, dst, self.coins(amount))

    def delegate(self, delegator, amount, token_src, v, from_account):
        """Keeper.Delegate: the validator's new shares for `amount` tokens; returns the shares issued."""
        if v.tokens == 0 and v.shares > 0:
            raise error(34, "cannot delegate to validators with invalid (zero) ex-rate")
        if from_account:
            pool = BONDED_POOL if v.status == BONDED else NOT_BONDED_POOL
            have = self.app.bank.balance(self.ctx, delegator, self.params.bond_denom)
            if have < amount:
                raise errors.insufficient_funds(
                    f"failed to delegate; {have}{self.params.bond_denom} is smaller than "
                    f"{amount}{self.params.bond_denom}")
            coins = self.coins(amount)
            self.events += self.app.bank.burn_from(self.ctx, delegator, coins)
            self.events += self.app.bank.credit(self.ctx, pool, coins)
        elif (token_src == BONDED) != (v.status == BONDED):
            self.move_between_pools(amount, to_bonded=v.status == BONDED)
        issued = amount * PRECISION if v.shares == 0 else v.shares_from_tokens(amount)
        v.tokens += amount
        v.shares += issued
        _set_validator(self.ctx, v)
        _set_delegation(self.ctx, delegator, v.operator, (delegation(self.ctx, delegator, v.operator) or 0) + issued)
        return issued

    def unbond_amount(self, delegator, operator, amount):
        """ValidateUnbondAmount: the shares `amount` tokens stand for, capped at the delegation's."""
        v = validator(self.ctx, operator)
        if v is None:
            raise error(*NO_VALIDATOR)
        held = delegation(self.ctx, delegator, operator)
        if held is None:
            raise error(19, "no delegation for (address, validator) tuple")
        shares = v.shares_from_tokens(amount)
        if shares > held:
            raise errors.invalid_request("invalid shares amount")
        return min(shares, held)

    def unbond(self, delegator, operator, shares):
        """Keeper.Unbond: remove shares from a delegation and its validator; returns the tokens freed."""
        held = delegation(self.ctx, delegator, operator)
        if held is None:
            raise error(21, "delegator does not contain delegation")
        if held < shares:
            raise error(24, "not enough delegation shares", legacy_dec.format(held))
        v = validator(self.ctx, operator)
        if v is None:
            raise error(*NO_VALIDATOR)
        held -= shares
        # An operator whose self-delegation falls below its minimum is jailed: out of the set.
        if delegator == v.operator and not v.jailed and \
                v.tokens_from_shares(held) // PRECISION < v.min_self_delegation:
            v.jailed = True
        _set_delegation(self.ctx, delegator, operator, held)
        remaining = v.shares - shares
        if remaining == 0:
            amount, v.tokens = v.tokens, 0
        else:
            amount = v.tokens_from_shares(shares) // PRECISION
            v.tokens -= amount
        v.shares = remaining
        if remaining == 0 and v.status == UNBONDED:
            # Not yet unbonded ones go once their unbonding ends (end block).
            _remove_validator(self.ctx, v)
        else:
            _set_validator(self.ctx, v)
        return amount, v

    def completion(self):
        return self.ctx.time_ns + self.params.unbonding_time_ns

    def undelegate(self, delegator, operator, shares):
        """Keeper.Undelegate: returns (completion time, tokens)."""
        v = validator(self.ctx, operator)
        if v is None:
            raise error(21, "delegator does not contain delegation")
        entries = unbonding(self.ctx, delegator, operator)
        if len(entries) >= self.params.max_entries:
            raise error(27, "too many unbonding delegation entries for (delegator, validator) tuple")
        amount, _ = self.unbond(delegator, operator, shares)
        if v.status == BONDED:
            self.move_between_pools(amount, to_bonded=False)
        completion = self.completion()
        height = self.ctx.height
        number = _next_unbonding_id(self.ctx)
        for entry in entries:
            # AddEntry merges an entry of the same height and completion time.
            if entry[0] == height and entry[1] == completion:
                entry[2] = str(int(entry[2]) + amount)
                entry[3] = str(int(entry[3]) + amount)
                break
        else:
            entries.append([height, completion, str(amount), str(amount), number])
        _set_unbonding(self.ctx, delegator, operator, entries)
        self.ctx.store.set(compose("staking", "ubdq", _time_key(completion), delegator, operator), b"")
        return completion, amount

    def redelegate(self, delegator, src, dst, shares):
        """Keeper.BeginRedelegation: returns the completion time (Go's zero time: complete at once)."""
        if src == dst:
            raise error(29, "cannot redelegate to the same validator")
        dst_v = validator(self.ctx, dst)
        if dst_v is None:
            raise error(31, "redelegation destination validator not found")
        src_v = validator(self.ctx, src)
        if src_v is None:
            raise error(31, "redelegation destination validator not found")
        if any(True for _ in self.ctx.store.iterate(compose("staking", "redd", src, delegator))):
            raise error(32, "redelegation to this validator already in progress; first redelegation to this "
                            "validator must complete before next redelegation")
        entries = redelegation(self.ctx, delegator, src, dst)
        if len(entries) >= self.params.max_entries:
            raise error(33, "too many redelegation entries for (delegator, src-validator, dst-validator) tuple")
        amount, src_after = self.unbond(delegator, src, shares)
        if amount == 0:
            raise error(30, "too few tokens to redelegate (truncates to zero tokens)")
        dst_v = validator(self.ctx, dst)
        created = self.delegate(delegator, amount, src_v.status, dst_v, from_account=False)
        # getBeginInfo: from a bonded (or removed) source the full unbonding time, from an unbonding
        # one what is left of its own, from an unbonded one nothing.
        source = validator(self.ctx, src)
        if source is None or source.status == BONDED:
            completion, height = self.completion(), self.ctx.height
        elif source.status == UNBONDED:
            return GO_ZERO_TIME_NS
        else:
            completion, height = source.unbonding_time_ns, source.unbonding_height
        entries.append([height, completion, str(amount), str(created), _next_unbonding_id(self.ctx)])
        _set_redelegation(self.ctx, delegator, src, dst, entries)
        self.ctx.store.set(compose("staking", "redq", _time_key(completion), delegator, src, dst), b"")
        return completion

    # -- end block -----------------------------------------------------------------------------

    def apply_validator_set_updates(self):
        """ApplyAndReturnValidatorSetUpdates: the top max_validators by power are bonded; returns
        [(pubkey, power)] for every change, power 0 for those that left."""
        last = last_powers(self.ctx)
        eligible = sorted((v for v in validators(self.ctx) if not v.jailed and v.power > 0),
                          key=lambda v: (-v.power, v.operator))
        updates, to_bonded, to_not_bonded = [], 0, 0
        for v in eligible[:self.params.max_validators]:
            if v.status != BONDED:
                # Bonding (from unbonded, or back from unbonding): its tokens join the bonded pool.
                if v.status == UNBONDING:
                    self.ctx.store.delete(self._val_queue_key(v))
                v.status = BONDED
                v.unbonding_height, v.unbonding_time_ns = 0, 0
                _set_validator(self.ctx, v)
                to_bonded += v.tokens
            previous = last.pop(v.operator, None)
            if previous != v.power:
                updates.append((v.pubkey, v.power))
                self.ctx.store.set(_last_power_key(v.operator), str(v.power).encode())
        for operator in sorted(last):
            v = validator(self.ctx, operator)
            if v.status == BONDED:
                # Begin unbonding: out of the set now, its tokens unbonded once the unbonding time ends.
                v.status = UNBONDING
                v.unbonding_height = self.ctx.height
                v.unbonding_time_ns = self.completion()
                _set_validator(self.ctx, v)
                self.ctx.store.set(self._val_queue_key(v), b"")
                to_not_bonded += v.tokens
            self.ctx.store.delete(_last_power_key(operator))
            updates.append((v.pubkey, 0))
        # One transfer for the net amount, as the SDK does.
        if to_bonded != to_not_bonded:
            self.move_between_pools(abs(to_bonded - to_not_bonded), to_bonded=to_bonded > to_not_bonded)
        return updates

    def _val_queue_key(self, v):
        return compose("staking", "valq", _time_key(v.unbonding_time_ns), v.unbonding_height.to_bytes(8, "big"),
                       v.operator)

    def _mature(self, prefix):
        """Queue keys whose time has come, oldest first."""
        now = _time_key(self.ctx.time_ns)
        for key, _ in list(self.ctx.store.iterate(prefix)):
            if parts(key)[2] > now:
                break
            yield key

    def unbond_mature_validators(self):
        for key in self._mature(_VAL_QUEUE):
            key_parts = parts(key)
            if int.from_bytes(key_parts[3], "big") > self.ctx.height:
                continue
            self.ctx.store.delete(key)
            v = validator(self.ctx, key_parts[4])
            if v is None or v.status != UNBONDING:
                continue
            v.status = UNBONDED
            if v.shares == 0:
                _remove_validator(self.ctx, v)
            else:
                _set_validator(self.ctx, v)

    def complete_unbondings(self):
        now = self.ctx.time_ns
        for key in self._mature(_UBD_QUEUE):
            self.ctx.store.delete(key)
            delegator, operator = parts(key)[3:5]
            entries = unbonding(self.ctx, delegator, operator)
            if not entries:
                continue
            returned = sum(int(e[3]) for e in entries if e[1] <= now)
            _set_unbonding(self.ctx, delegator, operator, [e for e in entries if e[1] > now])
            if returned:
                coins = self.coins(returned)
                self.events += self.app.bank.burn_from(self.ctx, NOT_BONDED_POOL, coins)
                self.events += self.app.bank.credit(self.ctx, delegator, coins)
            self.events.append(event("complete_unbonding", ("amount", format_coins(self.coins(returned))),
                                     ("validator", self.valoper(operator)), ("delegator", self.b32(delegator))))

    def complete_redelegations(self):
        now = self.ctx.time_ns
        for key in self._mature(_RED_QUEUE):
            self.ctx.store.delete(key)
            delegator, src, dst = parts(key)[3:6]
            entries = redelegation(self.ctx, delegator, src, dst)
            if not entries:
                continue
            matured = sum(int(e[2]) for e in entries if e[1] <= now)
            _set_redelegation(self.ctx, delegator, src, dst, [e for e in entries if e[1] > now])
            self.events.append(event("complete_redelegation", ("amount", format_coins(self.coins(matured))),
                                     ("delegator", self.b32(delegator)), ("source_validator", self.valoper(src)),
                                     ("destination_validator", self.valoper(dst))))


# -- genesis and end block ---------------------------------------------------------------------

def init_genesis(app, ctx):
    """Params, the genesis validators bonded with their self-delegation minted into the bonded pool,
    and the first validator set (as InitChain's validators)."""
    g = app.genesis
    p = g.staking_params
    ctx.store.set(_PARAMS, p.to_record())
    for pool in (BONDED_POOL, NOT_BONDED_POOL):
        app.ensure_account(ctx, pool)
    for gv in g.validators:
        if validator(ctx, gv.operator) is not None:
            raise ValueError(f"genesis validator {to_bech32(g.bech32_prefix, gv.operator)} listed twice")
        if ctx.store.get(_cons_key(consensus_address(gv.consensus_pubkey))) is not None:
            raise ValueError("two genesis validators share a consensus key")
        description = {**dict.fromkeys(DESCRIPTION_FIELDS, ""), "moniker": gv.moniker}
        v = Validator(gv.operator, gv.consensus_pubkey, description,
                      gv.rate, gv.max_rate, gv.max_change_rate, g.genesis_time_ns, gv.min_self_delegation,
                      tokens=gv.tokens, shares=gv.tokens * PRECISION, status=BONDED)
        _set_validator(ctx, v)
        ctx.store.set(_cons_key(v.cons_address), v.operator)
        _set_delegation(ctx, v.operator, v.operator, v.shares)
        app.bank.mint(ctx, BONDED_POOL, p.bond_denom, gv.tokens)
    keeper = _Keeper(app, ctx)
    ctx.validator_updates.extend(keeper.apply_validator_set_updates())


def end_block(app, ctx):
    """The SDK's staking EndBlocker: validator updates, then matured validators, unbondings and redelegations."""
    keeper = _Keeper(app, ctx)
    ctx.validator_updates.extend(keeper.apply_validator_set_updates())
    keeper.unbond_mature_validators()
    keeper.complete_unbondings()
    keeper.complete_redelegations()
    ctx.events.extend(keeper.events)


# -- messages ----------------------------------------------------------------------------------

def _account(app, text, what):
    try:
        return parse(text, app.genesis.bech32_prefix)
    except AddressError as e:
        raise errors.invalid_address(f"invalid {what} address: {e}") from None


def _valoper(app, text, what="validator"):
    if not text:
        raise errors.invalid_address(f"invalid {what} address: empty address string is not allowed")
    try:
        return parse(text, app.genesis.bech32_prefix + "valoper")
    except AddressError as e:
        raise errors.invalid_address(f"invalid {what} address: {e}") from None


def _amount(coin, what):
    """A message's Coin: (denom, positive amount); the SDK's IsValid and IsPositive."""
    try:
        amount = int(coin.amount) if coin.amount else 0
    except ValueError:
        amount = 0
    if not re.fullmatch(r"[a-zA-Z][a-zA-Z0-9/:._-]{2,127}", coin.denom) or amount <= 0:
        raise errors.invalid_request(what)
    return coin.denom, amount


def _int(text, what):
    if not re.fullmatch(r"-?\d+", text or ""):
        raise errors.invalid_request(f"invalid {what} {text!r}")
    return int(text)


def _check_denom(keeper, denom):
    if denom != keeper.params.bond_denom:
        raise errors.invalid_request(f"invalid coin denomination: got {denom}, expected {keeper.params.bond_denom}")


def _description(msg_description):
    return {name: getattr(msg_description, name) for name in DESCRIPTION_FIELDS}


def _ensure_length(description):
    for name, limit in DESCRIPTION_LIMITS:
        if len(description[name]) > limit:
            label = name.replace("_", " ")
            raise errors.invalid_request(f"invalid {label} length; got: {len(description[name])}, max: {limit}")


def _validate_commission(rate, max_rate, max_change_rate):
    """CommissionRates.Validate."""
    if max_rate < 0:
        raise error(9, "commission must be positive")
    if max_rate > PRECISION:
        raise error(10, "commission cannot be more than 100%")
    if rate < 0:
        raise error(9, "commission must be positive")
    if rate > max_rate:
        raise error(11, "commission cannot be more than the max rate")
    if max_change_rate < 0:
        raise error(13, "commission change rate must be positive")
    if max_change_rate > max_rate:
        raise error(14, "commission change rate cannot be more than the max rate")


def _pubkey(any_pubkey):
    if not any_pubkey.type_url:
        raise error(39, "empty validator public key")
    if any_pubkey.type_url == SECP256K1_PUBKEY:
        raise error(6, "validator pubkey type is not supported", "got: secp256k1, expected: [ed25519]")
    if any_pubkey.type_url != ED25519_PUBKEY:
        raise errors.TxError(errors.SDK, 29, f"Expecting cryptotypes.PubKey, got {any_pubkey.type_url}: invalid type")
    try:
        key = ed25519_pb2.PubKey.FromString(any_pubkey.value).key
    except Exception:
        key = b""
    if len(key) != 32:
        raise errors.TxError(errors.SDK, 8, f"invalid ed25519 public key length {len(key)}: invalid pubkey")
    return key


def _validate_signer_field(field, is_valoper):
    def validate(app, msg):
        text = getattr(msg, field)
        if is_valoper:
            _valoper(app, text)
        else:
            _account(app, text, "delegator")
    return validate


def _create_validator(app, ctx, msg, signer):
    keeper = _Keeper(app, ctx)
    operator = _valoper(app, msg.validator_address)
    # MsgCreateValidator.Validate
    if not msg.HasField("pubkey"):
        raise error(39, "empty validator public key")
    denom, amount = _amount(msg.value, "invalid delegation amount")
    description = _description(msg.description)
    if not any(description.values()):
        raise errors.invalid_request("empty description")
    rates = msg.commission
    if not (rates.rate or rates.max_rate or rates.max_change_rate):
        raise errors.invalid_request("empty commission")
    rate = dec_from_wire(rates.rate or "0", "commission rate")
    max_rate = dec_from_wire(rates.max_rate or "0", "max commission rate")
    max_change = dec_from_wire(rates.max_change_rate or "0", "max commission change rate")
    _validate_commission(rate, max_rate, max_change)
    min_self = _int(msg.min_self_delegation or "0", "minimum self delegation")
    if min_self <= 0:
        raise errors.invalid_request("minimum self delegation must be a positive integer")
    if amount < min_self:
        raise error(16, "validator's self delegation must be greater than their minimum self delegation")
    # The msg server.
    if rate < keeper.params.min_commission_rate:
        raise error(40, "commission cannot be less than min rate", "cannot set validator commission to less than "
                    f"minimum rate of {legacy_dec.format(keeper.params.min_commission_rate)}")
    if validator(ctx, operator) is not None:
        raise error(4, "validator already exist for this operator address; must use new validator operator address")
    pubkey = _pubkey(msg.pubkey)
    if ctx.store.get(_cons_key(consensus_address(pubkey))) is not None:
        raise error(5, "validator already exist for this pubkey; must use new validator pubkey")
    _check_denom(keeper, denom)
    _ensure_length(description)
    v = Validator(operator, pubkey, description, rate, max_rate, max_change, ctx.time_ns, min_self)
    _set_validator(ctx, v)
    ctx.store.set(_cons_key(v.cons_address), operator)
    keeper.delegate(operator, amount, UNBONDED, v, from_account=True)
    keeper.events.append(event("create_validator", ("validator", msg.validator_address),
                               ("amount", f"{amount}{denom}")))
    return keeper.events, tx_pb2.MsgCreateValidatorResponse()


def _edit_validator(app, ctx, msg, signer):
    keeper = _Keeper(app, ctx)
    operator = _valoper(app, msg.validator_address)
    new = _description(msg.description)
    if not any(new.values()):
        raise errors.invalid_request("empty description")
    new_rate = dec_from_wire(msg.commission_rate, "commission rate") if msg.commission_rate else None
    min_self = _int(msg.min_self_delegation, "minimum self delegation") if msg.min_self_delegation else None
    if min_self is not None and min_self <= 0:
        raise errors.invalid_request("minimum self delegation must be a positive integer")
    if new_rate is not None:
        if new_rate > PRECISION or new_rate < 0:
            raise errors.invalid_request("commission rate must be between 0 and 1 (inclusive)")
        if new_rate < keeper.params.min_commission_rate:
            raise errors.invalid_request("commission rate cannot be less than the min commission rate "
                                         f"{legacy_dec.format(keeper.params.min_commission_rate)}")
    v = validator(ctx, operator)
    if v is None:
        raise error(*NO_VALIDATOR)
    description = {name: v.description[name] if new[name] == DO_NOT_MODIFY else new[name]
                   for name in DESCRIPTION_FIELDS}
    _ensure_length(description)
    v.description = description
    if new_rate is not None:
        # Commission.ValidateNewRate
        if ctx.time_ns - v.update_time_ns < DAY_NS:
            raise error(12, "commission cannot be changed more than once in 24h")
        if new_rate > v.max_rate:
            raise error(11, "commission cannot be more than the max rate")
        if new_rate - v.rate > v.max_change_rate:
            raise error(15, "commission cannot be changed more than max change rate")
        v.rate, v.update_time_ns = new_rate, ctx.time_ns
    if min_self is not None:
        if min_self <= v.min_self_delegation:
            raise error(17, "minimum self delegation cannot be decrease")
        if min_self > v.tokens:
            raise error(16, "validator's self delegation must be greater than their minimum self delegation")
        v.min_self_delegation = min_self
    _set_validator(ctx, v)
    keeper.events.append(event("edit_validator", ("commission_rate", legacy_dec.format(v.rate)),
                               ("min_self_delegation", str(v.min_self_delegation))))
    return keeper.events, tx_pb2.MsgEditValidatorResponse()


def _delegate(app, ctx, msg, signer):
    keeper = _Keeper(app, ctx)
    operator = _valoper(app, msg.validator_address)
    delegator = _account(app, msg.delegator_address, "delegator")
    denom, amount = _amount(msg.amount, "invalid delegation amount")
    v = validator(ctx, operator)
    if v is None:
        raise error(*NO_VALIDATOR)
    _check_denom(keeper, denom)
    issued = keeper.delegate(delegator, amount, UNBONDED, v, from_account=True)
    keeper.events.append(event("delegate", ("validator", msg.validator_address),
                               ("delegator", msg.delegator_address), ("amount", f"{amount}{denom}"),
                               ("new_shares", legacy_dec.format(issued))))
    return keeper.events, tx_pb2.MsgDelegateResponse()


def _undelegate(app, ctx, msg, signer):
    keeper = _Keeper(app, ctx)
    operator = _valoper(app, msg.validator_address)
    delegator = _account(app, msg.delegator_address, "delegator")
    denom, amount = _amount(msg.amount, "invalid shares amount")
    shares = keeper.unbond_amount(delegator, operator, amount)
    _check_denom(keeper, denom)
    completion, returned = keeper.undelegate(delegator, operator, shares)
    keeper.events.append(event("unbond", ("validator", msg.validator_address), ("delegator", msg.delegator_address),
                               ("amount", f"{returned}{denom}"), ("completion_time", _rfc3339(completion))))
    response = tx_pb2.MsgUndelegateResponse()
    response.completion_time.FromNanoseconds(completion)
    response.amount.denom, response.amount.amount = denom, str(returned)
    return keeper.events, response


def _begin_redelegate(app, ctx, msg, signer):
    keeper = _Keeper(app, ctx)
    src = _valoper(app, msg.validator_src_address, "source validator")
    dst = _valoper(app, msg.validator_dst_address, "destination validator")
    for operator in (src, dst):
        if validator(ctx, operator) is None:
            raise error(*NO_VALIDATOR)
    delegator = _account(app, msg.delegator_address, "delegator")
    denom, amount = _amount(msg.amount, "invalid shares amount")
    if delegation(ctx, delegator, src) is None:
        raise errors.TxError(errors.SDK, 38, f"delegation with delegator {msg.delegator_address} not found for "
                             f"validator {msg.validator_src_address}: not found")
    shares = keeper.unbond_amount(delegator, src, amount)
    _check_denom(keeper, denom)
    completion = keeper.redelegate(delegator, src, dst, shares)
    keeper.events.append(event("redelegate", ("source_validator", msg.validator_src_address),
                               ("destination_validator", msg.validator_dst_address),
                               ("amount", f"{amount}{denom}"), ("completion_time", _rfc3339(completion))))
    response = tx_pb2.MsgBeginRedelegateResponse()
    response.completion_time.FromNanoseconds(completion)
    return keeper.events, response


def _rfc3339(ns):
    """time.RFC3339 (whole seconds), as the SDK's events format completion times."""
    if ns == GO_ZERO_TIME_NS:
        return "0001-01-01T00:00:00Z"
    from chaind.chain.genesis import format_time  # genesis reads this module's params

    return format_time(ns - ns % 10**9)


MESSAGES = (
    MsgHandler("/cosmos.staking.v1beta1.MsgCreateValidator", tx_pb2.MsgCreateValidator,
               lambda m: m.validator_address, _validate_signer_field("validator_address", True), _create_validator),
    MsgHandler("/cosmos.staking.v1beta1.MsgEditValidator", tx_pb2.MsgEditValidator,
               lambda m: m.validator_address, _validate_signer_field("validator_address", True), _edit_validator),
    MsgHandler("/cosmos.staking.v1beta1.MsgDelegate", tx_pb2.MsgDelegate,
               lambda m: m.delegator_address, _validate_signer_field("delegator_address", False), _delegate),
    MsgHandler("/cosmos.staking.v1beta1.MsgUndelegate", tx_pb2.MsgUndelegate,
               lambda m: m.delegator_address, _validate_signer_field("delegator_address", False), _undelegate),
    MsgHandler("/cosmos.staking.v1beta1.MsgBeginRedelegate", tx_pb2.MsgBeginRedelegate,
               lambda m: m.delegator_address, _validate_signer_field("delegator_address", False),
               _begin_redelegate),
)
