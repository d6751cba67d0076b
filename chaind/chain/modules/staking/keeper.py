"""staking's keeper: the state changes of one block (delegate, unbond, redelegate, the bonded set)."""

import functools

from chaind.chain import errors, legacy_dec
from chaind.chain.block import event
from chaind.chain.module import hook_listeners, run_hook
from chaind.chain.modules.bank.keeper import format_coins
from chaind.chain.modules.staking.errors import NO_VALIDATOR, error
from chaind.chain.modules.staking.hooks import STAKING_HOOKS
from chaind.chain.modules.staking.keys import (
    LAST_TOTAL_POWER,
    RED_QUEUE,
    UBD_QUEUE,
    VAL_QUEUE,
    last_power_key,
    time_key,
)
from chaind.chain.modules.staking.numbers import PRECISION
from chaind.chain.modules.staking.params import params
from chaind.chain.modules.staking.records import (
    BONDED,
    BONDED_POOL,
    NOT_BONDED_POOL,
    UNBONDED,
    UNBONDING,
    Validator,
)
from chaind.chain.modules.staking.state import (
    delegation,
    next_unbonding_id,
    redelegation,
    remove_validator,
    set_delegation,
    set_redelegation,
    set_unbonding,
    set_validator,
    unbonding,
    validator,
)
from chaind.crypto.addresses import to_bech32
from chaind.gocompat import GO_ZERO_TIME_NS
from chaind.store.keys import compose, decompose


class Keeper:
    """The state changes of one block: the app (bank), the block context, and its params."""

    def __init__(self, app, ctx):
        self.app = app
        self.ctx = ctx
        self.params = params(ctx)
        self.events = []
        self.hooks = hook_listeners(app.modules, STAKING_HOOKS.name)

    def hook(self, name, *args):
        """Call a staking hook on every module that listens to it (distribution's F1 bookkeeping, slashing's
        signing infos)."""
        self.events += run_hook(self.app, self.ctx, self.hooks, name, *args)

    def remove_validator(self, v):
        remove_validator(self.ctx, v)
        self.hook("after_validator_removed", v.operator)

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
        held = delegation(self.ctx, delegator, v.operator)
        if held is None:
            self.hook("before_delegation_created", delegator, v.operator)
        else:
            self.hook("before_delegation_shares_modified", delegator, v.operator)
        if from_account:
            pool = BONDED_POOL if v.status == BONDED else NOT_BONDED_POOL
            have = self.app.bank.balance(self.ctx, delegator, self.params.bond_denom)
            if have < amount:
                raise errors.insufficient_funds(
                    f"failed to delegate; {have}{self.params.bond_denom} is smaller than "
                    f"{amount}{self.params.bond_denom}")
            self.events += self.app.bank.delegate(self.ctx, delegator, pool, self.coins(amount))
        elif (token_src == BONDED) != (v.status == BONDED):
            self.move_between_pools(amount, to_bonded=v.status == BONDED)
        issued = amount * PRECISION if v.shares == 0 else v.shares_from_tokens(amount)
        v.tokens += amount
        v.shares += issued
        set_validator(self.ctx, v)
        set_delegation(self.ctx, delegator, v.operator, (held or 0) + issued)
        self.hook("after_delegation_modified", delegator, v.operator)
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
        self.hook("before_delegation_shares_modified", delegator, operator)
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
        set_delegation(self.ctx, delegator, operator, held)
        if held:
            # Before the validator's tokens change, as the SDK's Unbond calls it.
            self.hook("after_delegation_modified", delegator, operator)
        remaining = v.shares - shares
        if remaining == 0:
            amount, v.tokens = v.tokens, 0
        else:
            amount = v.tokens_from_shares(shares) // PRECISION
            v.tokens -= amount
        v.shares = remaining
        if remaining == 0 and v.status == UNBONDED:
            # Not yet unbonded ones go once their unbonding ends (end block).
            self.remove_validator(v)
        else:
            set_validator(self.ctx, v)
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
        number = next_unbonding_id(self.ctx)
        for entry in entries:
            # AddEntry merges an entry of the same height and completion time.
            if entry[0] == height and entry[1] == completion:
                entry[2] = str(int(entry[2]) + amount)
                entry[3] = str(int(entry[3]) + amount)
                break
        else:
            entries.append([height, completion, str(amount), str(amount), number])
        set_unbonding(self.ctx, delegator, operator, entries)
        self.ctx.store.set(compose("staking", "ubdq", time_key(completion), delegator, operator), b"")
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
        entries.append([height, completion, str(amount), str(created), next_unbonding_id(self.ctx)])
        set_redelegation(self.ctx, delegator, src, dst, entries)
        self.ctx.store.set(compose("staking", "redq", time_key(completion), delegator, src, dst), b"")
        return completion

    # -- end block -----------------------------------------------------------------------------

    def apply_validator_set_updates(self):
        """ApplyAndReturnValidatorSetUpdates: the top max_validators by power are bonded; returns
        [(pubkey, power)] for every change, power 0 for those that left."""
        store = self.ctx.store
        steps, leaving, total_power = _set_plan(self.params.max_validators, tuple(store.iterate(_VALIDATORS)),
                                                tuple(store.iterate(_LAST_POWERS)))
        updates, to_bonded, to_not_bonded = [], 0, 0
        for record, bond, update in steps:
            v = Validator.from_record(record)
            if bond:
                # Bonding (from unbonded, or back from unbonding): its tokens join the bonded pool.
                if v.status == UNBONDING:
                    self.ctx.store.delete(self._val_queue_key(v))
                v.status = BONDED
                v.unbonding_height, v.unbonding_time_ns = 0, 0
                set_validator(self.ctx, v)
                to_bonded += v.tokens
                self.hook("after_validator_bonded", v.cons_address, v.operator)
            if update:
                updates.append((v.pubkey, v.power))
                self.ctx.store.set(last_power_key(v.operator), str(v.power).encode())
        for operator in leaving:
            v = validator(self.ctx, operator)
            if v.status == BONDED:
                # Begin unbonding: out of the set now, its tokens unbonded once the unbonding time ends.
                v.status = UNBONDING
                v.unbonding_height = self.ctx.height
                v.unbonding_time_ns = self.completion()
                set_validator(self.ctx, v)
                self.ctx.store.set(self._val_queue_key(v), b"")
                to_not_bonded += v.tokens
            self.ctx.store.delete(last_power_key(operator))
            updates.append((v.pubkey, 0))
        # One transfer for the net amount, as the SDK does.
        if to_bonded != to_not_bonded:
            self.move_between_pools(abs(to_bonded - to_not_bonded), to_bonded=to_bonded > to_not_bonded)
        if updates:
            # LastTotalPower, as the SDK sets it: only when the set changed.
            self.ctx.store.set(LAST_TOTAL_POWER, str(total_power).encode())
        return updates

    def _val_queue_key(self, v):
        return compose("staking", "valq", time_key(v.unbonding_time_ns), v.unbonding_height.to_bytes(8, "big"),
                       v.operator)

    def _mature(self, prefix):
        """Queue keys whose time has come, oldest first."""
        now = time_key(self.ctx.time_ns)
        for key, _ in list(self.ctx.store.iterate(prefix)):
            if decompose(key)[2] > now:
                break
            yield key

    def unbond_mature_validators(self):
        for key in self._mature(VAL_QUEUE):
            key_parts = decompose(key)
            if int.from_bytes(key_parts[3], "big") > self.ctx.height:
                continue
            self.ctx.store.delete(key)
            v = validator(self.ctx, key_parts[4])
            if v is None or v.status != UNBONDING:
                continue
            v.status = UNBONDED
            if v.shares == 0:
                self.remove_validator(v)
            else:
                set_validator(self.ctx, v)

    def complete_unbondings(self):
        now = self.ctx.time_ns
        for key in self._mature(UBD_QUEUE):
            self.ctx.store.delete(key)
            delegator, operator = decompose(key)[3:5]
            entries = unbonding(self.ctx, delegator, operator)
            if not entries:
                continue
            returned = sum(int(e[3]) for e in entries if e[1] <= now)
            set_unbonding(self.ctx, delegator, operator, [e for e in entries if e[1] > now])
            if returned:
                self.events += self.app.bank.undelegate(self.ctx, NOT_BONDED_POOL, delegator, self.coins(returned))
            self.events.append(event("complete_unbonding", ("amount", format_coins(self.coins(returned))),
                                     ("validator", self.valoper(operator)), ("delegator", self.b32(delegator))))

    def complete_redelegations(self):
        now = self.ctx.time_ns
        for key in self._mature(RED_QUEUE):
            self.ctx.store.delete(key)
            delegator, src, dst = decompose(key)[3:6]
            entries = redelegation(self.ctx, delegator, src, dst)
            if not entries:
                continue
            matured = sum(int(e[2]) for e in entries if e[1] <= now)
            set_redelegation(self.ctx, delegator, src, dst, [e for e in entries if e[1] > now])
            self.events.append(event("complete_redelegation", ("amount", format_coins(self.coins(matured))),
                                     ("delegator", self.b32(delegator)), ("source_validator", self.valoper(src)),
                                     ("destination_validator", self.valoper(dst))))


_VALIDATORS, _LAST_POWERS = compose("staking", "val"), compose("staking", "last")


@functools.lru_cache(maxsize=16)
def _set_plan(max_validators, validator_records, last_power_records):
    """What ApplyAndReturnValidatorSetUpdates does to the validators and last powers with these records (pairs
    of the store), a function of them alone: ((record, bond it, its power changed) of each top validator that
    changes, in power order; the operators that leave, in order; the total power of the top). Most blocks
    leave both prefixes as they were: their plan, nothing to do, is not worked out again."""
    last = {decompose(key)[-1]: int(raw) for key, raw in last_power_records}
    eligible = sorted(((v, raw) for v, raw in ((Validator.from_record(raw), raw) for _, raw in validator_records)
                       if not v.jailed and v.power > 0), key=lambda pair: (-pair[0].power, pair[0].operator))
    steps, total_power = [], 0
    for v, raw in eligible[:max_validators]:
        total_power += v.power
        bond, update = v.status != BONDED, last.pop(v.operator, None) != v.power
        if bond or update:
            steps.append((raw, bond, update))
    return tuple(steps), tuple(sorted(last)), total_power
