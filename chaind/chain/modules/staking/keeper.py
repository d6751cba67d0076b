"""staking's keeper: validators, delegations, unbondings, redelegations and powers in state; the changes a block
makes to them (delegate, unbond, redelegate, the bonded set, what matures) and the penalties (slash.go: slash,
jail, unjail)."""

import functools

import attrs
import orjson

from chaind.chain import errors, legacy_dec
from chaind.chain.block import event
from chaind.chain.modules.bank.keeper import format_coins
from chaind.chain.modules.staking.errors import NO_VALIDATOR, error
from chaind.chain.modules.staking.keys import (
    LAST_TOTAL_POWER,
    RED_QUEUE,
    UBD_QUEUE,
    UNBONDING_ID,
    VAL_QUEUE,
    cons_key,
    del_by_val_key,
    del_key,
    last_power_key,
    red_by_dst_key,
    red_by_src_key,
    red_key,
    time_key,
    ubd_by_val_key,
    ubd_key,
    val_key,
)
from chaind.chain.modules.staking.numbers import PRECISION
from chaind.chain.modules.staking.params import params as read_params
from chaind.chain.modules.staking.records import (
    BONDED,
    BONDED_POOL,
    NOT_BONDED_POOL,
    POWER_REDUCTION,
    UNBONDED,
    UNBONDING,
    Validator,
)
from chaind.crypto.addresses import to_bech32
from chaind.gocompat import GO_ZERO_TIME_NS
from chaind.store.keys import compose, decompose


@attrs.frozen
class Summary:
    """What each block's begin blockers read of every validator of the last commit (distribution's allocation,
    slashing's liveness)."""

    operator: bytes
    rate: int           # commission, in atomics
    jailed: bool


class StakingKeeper:
    """x/staking's keeper, built once from bank (the pools' balances and transfers), the chain's bech32 prefix and
    the staking hooks: hooks(ctx, name, *args) calls a hook on every module that listens (distribution's F1
    bookkeeping, slashing's signing infos) and returns their events. Reads take a state (a view or a block's
    context); writes take a block's context and return the events they caused (bank's, the hooks', their own).
    Writes that use the params take them (`p`) from their caller, which reads them once (a message, at its start,
    as it always has: inside an EVM call each read is charged the SDK's KV gas)."""

    def __init__(self, bech32_prefix, bank, hooks):
        self.bank = bank
        self.hooks = hooks
        self.valoper_prefix = bech32_prefix + "valoper"

    def params(self, state):
        """Read from the state at each call: a passed proposal changes them within a block."""
        return read_params(state)

    def valoper(self, address):
        return to_bech32(self.valoper_prefix, address)

    # -- validators ----------------------------------------------------------------------------

    def validator(self, state, operator):
        raw = state.store.get(val_key(operator))
        return None if raw is None else Validator.from_record(raw)

    def operator_by_cons(self, state, cons_address):
        """The operator address of a consensus address, None for one no validator has."""
        return state.store.get(cons_key(cons_address))

    def validator_by_cons(self, state, cons_address):
        operator = self.operator_by_cons(state, cons_address)
        return None if operator is None else self.validator(state, operator)

    def summary_by_cons(self, state, cons_address):
        """The Summary of the validator with this consensus address, or None.

        A block's context keeps the summaries it read from the parent's state (a view has none): one is used
        again while neither of the keys it was read from is written in the block, so it is what the store would
        give."""
        store = state.store
        key = cons_key(cons_address)
        kept = getattr(state, "summaries", None)
        if kept is not None:
            found = kept.get(key)
            if found is not None and key not in store.changes and found[0] not in store.changes:
                return found[1]
        operator = store.get(key)
        if operator is None:
            return None
        by_operator = val_key(operator)
        raw = store.get(by_operator)
        if raw is None:
            return None
        summary = _summary_of(raw)
        if kept is not None and key not in store.changes and by_operator not in store.changes:
            kept[key] = (by_operator, summary)
        return summary

    def validators(self, state):
        """Every validator, by operator address."""
        return [Validator.from_record(raw) for _, raw in state.store.iterate(_VALIDATORS)]

    def set_validator(self, ctx, v):
        ctx.store.set(val_key(v.operator), v.to_record())

    def remove_validator(self, ctx, v):
        """RemoveValidator: its records go; returns the events of the after_validator_removed hook."""
        ctx.store.delete(val_key(v.operator))
        ctx.store.delete(cons_key(v.cons_address))
        return self.hooks(ctx, "after_validator_removed", v.operator)

    def last_powers(self, state):
        """{operator: power} of the bonded set as the last end block left it (LastValidatorPower)."""
        return {decompose(key)[-1]: int(raw) for key, raw in state.store.iterate(_LAST_POWERS)}

    def pool_balances(self, state):
        """(not bonded, bonded) tokens: the balances of the two module accounts."""
        denom = self.params(state).bond_denom
        return self.bank.balance(state, NOT_BONDED_POOL, denom), self.bank.balance(state, BONDED_POOL, denom)

    # -- delegations, unbondings, redelegations ------------------------------------------------

    def delegation(self, state, delegator, operator):
        """A delegation's shares (atomics), None without one."""
        raw = state.store.get(del_key(delegator, operator))
        return None if raw is None else int(raw)

    def delegations_of(self, state, delegator):
        """[(validator operator, shares)] of a delegator, by validator address."""
        return [(decompose(key)[-1], int(raw))
                for key, raw in state.store.iterate(compose("staking", "del", delegator))]

    def delegations_to(self, state, operator):
        """[(delegator, shares)] of a validator, by delegator address."""
        return [(decompose(key)[-1], self.delegation(state, decompose(key)[-1], operator))
                for key, _ in state.store.iterate(compose("staking", "delv", operator))]

    def set_delegation(self, ctx, delegator, operator, shares):
        if shares:
            ctx.store.set(del_key(delegator, operator), str(shares).encode())
            ctx.store.set(del_by_val_key(operator, delegator), b"")
        else:
            ctx.store.delete(del_key(delegator, operator))
            ctx.store.delete(del_by_val_key(operator, delegator))

    # Unbonding delegation entries: [creation_height, completion_ns, initial_balance, balance, unbonding_id];
    # redelegation entries: [creation_height, completion_ns, initial_balance, shares_dst, unbonding_id].
    # Amounts are strings (beyond 64 bits).

    def unbonding(self, state, delegator, operator):
        raw = state.store.get(ubd_key(delegator, operator))
        return [] if raw is None else orjson.loads(raw)

    def unbondings_of(self, state, delegator):
        found = state.store.iterate(compose("staking", "ubd", delegator))
        return [(decompose(key)[-1], orjson.loads(raw)) for key, raw in found]

    def unbondings_from(self, state, operator):
        return [(decompose(key)[-1], self.unbonding(state, decompose(key)[-1], operator))
                for key, _ in state.store.iterate(compose("staking", "ubdv", operator))]

    def set_unbonding(self, ctx, delegator, operator, entries):
        if entries:
            ctx.store.set(ubd_key(delegator, operator), orjson.dumps(entries))
            ctx.store.set(ubd_by_val_key(operator, delegator), b"")
        else:
            ctx.store.delete(ubd_key(delegator, operator))
            ctx.store.delete(ubd_by_val_key(operator, delegator))

    def redelegation(self, state, delegator, src, dst):
        raw = state.store.get(red_key(delegator, src, dst))
        return [] if raw is None else orjson.loads(raw)

    def redelegations_of(self, state, delegator):
        """[(src, dst, entries)] of a delegator."""
        return [(*decompose(key)[-2:], orjson.loads(raw))
                for key, raw in state.store.iterate(compose("staking", "red", delegator))]

    def redelegations_from(self, state, src):
        """[(delegator, dst, entries)] leaving a validator."""
        return [(*decompose(key)[-2:], self.redelegation(state, decompose(key)[-2], src, decompose(key)[-1]))
                for key, _ in state.store.iterate(compose("staking", "reds", src))]

    def set_redelegation(self, ctx, delegator, src, dst, entries):
        if entries:
            ctx.store.set(red_key(delegator, src, dst), orjson.dumps(entries))
            ctx.store.set(red_by_src_key(src, delegator, dst), b"")
            ctx.store.set(red_by_dst_key(dst, delegator, src), b"")
        else:
            for key in (red_key(delegator, src, dst), red_by_src_key(src, delegator, dst),
                        red_by_dst_key(dst, delegator, src)):
                ctx.store.delete(key)

    def next_unbonding_id(self, ctx):
        raw = ctx.store.get(UNBONDING_ID)
        number = int(raw) + 1 if raw else 1
        ctx.store.set(UNBONDING_ID, str(number).encode())
        return number

    # -- a block's changes ---------------------------------------------------------------------

    def move_between_pools(self, ctx, p, amount, to_bonded):
        if not amount:
            return []
        src, dst = (NOT_BONDED_POOL, BONDED_POOL) if to_bonded else (BONDED_POOL, NOT_BONDED_POOL)
        return self.bank.send(ctx, src, dst, [(p.bond_denom, amount)])

    def delegate(self, ctx, p, delegator, amount, token_src, v, from_account):
        """Keeper.Delegate: the validator's new shares for `amount` tokens; returns (the shares issued, events)."""
        if v.tokens == 0 and v.shares > 0:
            raise error(34, "cannot delegate to validators with invalid (zero) ex-rate")
        held = self.delegation(ctx, delegator, v.operator)
        if held is None:
            events = self.hooks(ctx, "before_delegation_created", delegator, v.operator)
        else:
            events = self.hooks(ctx, "before_delegation_shares_modified", delegator, v.operator)
        if from_account:
            pool = BONDED_POOL if v.status == BONDED else NOT_BONDED_POOL
            denom = p.bond_denom
            have = self.bank.balance(ctx, delegator, denom)
            if have < amount:
                raise errors.insufficient_funds(f"failed to delegate; {have}{denom} is smaller than {amount}{denom}")
            events += self.bank.delegate(ctx, delegator, pool, [(denom, amount)])
        elif (token_src == BONDED) != (v.status == BONDED):
            events += self.move_between_pools(ctx, p, amount, to_bonded=v.status == BONDED)
        issued = amount * PRECISION if v.shares == 0 else v.shares_from_tokens(amount)
        v.tokens += amount
        v.shares += issued
        self.set_validator(ctx, v)
        self.set_delegation(ctx, delegator, v.operator, (held or 0) + issued)
        events += self.hooks(ctx, "after_delegation_modified", delegator, v.operator)
        return issued, events

    def unbond_amount(self, state, delegator, operator, amount):
        """ValidateUnbondAmount: the shares `amount` tokens stand for, capped at the delegation's."""
        v = self.validator(state, operator)
        if v is None:
            raise error(*NO_VALIDATOR)
        held = self.delegation(state, delegator, operator)
        if held is None:
            raise error(19, "no delegation for (address, validator) tuple")
        shares = v.shares_from_tokens(amount)
        if shares > held:
            raise errors.invalid_request("invalid shares amount")
        return min(shares, held)

    def unbond(self, ctx, delegator, operator, shares):
        """Keeper.Unbond: remove shares from a delegation and its validator; returns (the tokens freed, the
        validator, events)."""
        held = self.delegation(ctx, delegator, operator)
        if held is None:
            raise error(21, "delegator does not contain delegation")
        events = self.hooks(ctx, "before_delegation_shares_modified", delegator, operator)
        if held < shares:
            raise error(24, "not enough delegation shares", legacy_dec.format(held))
        v = self.validator(ctx, operator)
        if v is None:
            raise error(*NO_VALIDATOR)
        held -= shares
        # An operator whose self-delegation falls below its minimum is jailed: out of the set.
        if delegator == v.operator and not v.jailed and \
                v.tokens_from_shares(held) // PRECISION < v.min_self_delegation:
            v.jailed = True
        self.set_delegation(ctx, delegator, operator, held)
        if held:
            # Before the validator's tokens change, as the SDK's Unbond calls it.
            events += self.hooks(ctx, "after_delegation_modified", delegator, operator)
        remaining = v.shares - shares
        if remaining == 0:
            amount, v.tokens = v.tokens, 0
        else:
            amount = v.tokens_from_shares(shares) // PRECISION
            v.tokens -= amount
        v.shares = remaining
        if remaining == 0 and v.status == UNBONDED:
            # Not yet unbonded ones go once their unbonding ends (end block).
            events += self.remove_validator(ctx, v)
        else:
            self.set_validator(ctx, v)
        return amount, v, events

    def undelegate(self, ctx, p, delegator, operator, shares):
        """Keeper.Undelegate: returns (completion time, tokens, events)."""
        v = self.validator(ctx, operator)
        if v is None:
            raise error(21, "delegator does not contain delegation")
        entries = self.unbonding(ctx, delegator, operator)
        if len(entries) >= p.max_entries:
            raise error(27, "too many unbonding delegation entries for (delegator, validator) tuple")
        amount, _, events = self.unbond(ctx, delegator, operator, shares)
        if v.status == BONDED:
            events += self.move_between_pools(ctx, p, amount, to_bonded=False)
        completion = ctx.time_ns + p.unbonding_time_ns
        height = ctx.height
        number = self.next_unbonding_id(ctx)
        for entry in entries:
            # AddEntry merges an entry of the same height and completion time.
            if entry[0] == height and entry[1] == completion:
                entry[2] = str(int(entry[2]) + amount)
                entry[3] = str(int(entry[3]) + amount)
                break
        else:
            entries.append([height, completion, str(amount), str(amount), number])
        self.set_unbonding(ctx, delegator, operator, entries)
        ctx.store.set(compose("staking", "ubdq", time_key(completion), delegator, operator), b"")
        return completion, amount, events

    def redelegate(self, ctx, p, delegator, src, dst, shares):
        """Keeper.BeginRedelegation: returns (the completion time (Go's zero time: complete at once), events)."""
        if src == dst:
            raise error(29, "cannot redelegate to the same validator")
        dst_v = self.validator(ctx, dst)
        if dst_v is None:
            raise error(31, "redelegation destination validator not found")
        src_v = self.validator(ctx, src)
        if src_v is None:
            raise error(31, "redelegation destination validator not found")
        if any(True for _ in ctx.store.iterate(compose("staking", "redd", src, delegator))):
            raise error(32, "redelegation to this validator already in progress; first redelegation to this "
                            "validator must complete before next redelegation")
        entries = self.redelegation(ctx, delegator, src, dst)
        if len(entries) >= p.max_entries:
            raise error(33, "too many redelegation entries for (delegator, src-validator, dst-validator) tuple")
        amount, _, events = self.unbond(ctx, delegator, src, shares)
        if amount == 0:
            raise error(30, "too few tokens to redelegate (truncates to zero tokens)")
        dst_v = self.validator(ctx, dst)
        created, delegated = self.delegate(ctx, p, delegator, amount, src_v.status, dst_v, from_account=False)
        events += delegated
        # getBeginInfo: from a bonded (or removed) source the full unbonding time, from an unbonding
        # one what is left of its own, from an unbonded one nothing.
        source = self.validator(ctx, src)
        if source is None or source.status == BONDED:
            completion, height = ctx.time_ns + p.unbonding_time_ns, ctx.height
        elif source.status == UNBONDED:
            return GO_ZERO_TIME_NS, events
        else:
            completion, height = source.unbonding_time_ns, source.unbonding_height
        entries.append([height, completion, str(amount), str(created), self.next_unbonding_id(ctx)])
        self.set_redelegation(ctx, delegator, src, dst, entries)
        ctx.store.set(compose("staking", "redq", time_key(completion), delegator, src, dst), b"")
        return completion, events

    # -- end block -----------------------------------------------------------------------------

    def apply_validator_set_updates(self, ctx, p):
        """ApplyAndReturnValidatorSetUpdates: the top max_validators by power are bonded; returns ([(pubkey,
        power)] for every change, power 0 for those that left; events)."""
        store = ctx.store
        steps, leaving, total_power = _set_plan(p.max_validators, tuple(store.iterate(_VALIDATORS)),
                                                tuple(store.iterate(_LAST_POWERS)))
        updates, events, to_bonded, to_not_bonded = [], [], 0, 0
        for record, bond, update in steps:
            v = Validator.from_record(record)
            if bond:
                # Bonding (from unbonded, or back from unbonding): its tokens join the bonded pool.
                if v.status == UNBONDING:
                    store.delete(_val_queue_key(v))
                v.status = BONDED
                v.unbonding_height, v.unbonding_time_ns = 0, 0
                self.set_validator(ctx, v)
                to_bonded += v.tokens
                events += self.hooks(ctx, "after_validator_bonded", v.cons_address, v.operator)
            if update:
                updates.append((v.pubkey, v.power))
                store.set(last_power_key(v.operator), str(v.power).encode())
        for operator in leaving:
            v = self.validator(ctx, operator)
            if v.status == BONDED:
                # Begin unbonding: out of the set now, its tokens unbonded once the unbonding time ends.
                v.status = UNBONDING
                v.unbonding_height = ctx.height
                v.unbonding_time_ns = ctx.time_ns + p.unbonding_time_ns
                self.set_validator(ctx, v)
                store.set(_val_queue_key(v), b"")
                to_not_bonded += v.tokens
            store.delete(last_power_key(operator))
            updates.append((v.pubkey, 0))
        # One transfer for the net amount, as the SDK does.
        if to_bonded != to_not_bonded:
            net = abs(to_bonded - to_not_bonded)
            events += self.move_between_pools(ctx, p, net, to_bonded=to_bonded > to_not_bonded)
        if updates:
            # LastTotalPower, as the SDK sets it: only when the set changed.
            store.set(LAST_TOTAL_POWER, str(total_power).encode())
        return updates, events

    def unbond_mature_validators(self, ctx):
        """The validators whose unbonding ended, unbonded (removed when no shares are left); returns events."""
        events = []
        for key in _mature(ctx, VAL_QUEUE):
            key_parts = decompose(key)
            if int.from_bytes(key_parts[3], "big") > ctx.height:
                continue
            ctx.store.delete(key)
            v = self.validator(ctx, key_parts[4])
            if v is None or v.status != UNBONDING:
                continue
            v.status = UNBONDED
            if v.shares == 0:
                events += self.remove_validator(ctx, v)
            else:
                self.set_validator(ctx, v)
        return events

    def complete_unbondings(self, ctx, p):
        """The unbonding entries that matured, paid back to their delegators; returns events."""
        now, denom, events = ctx.time_ns, p.bond_denom, []
        for key in _mature(ctx, UBD_QUEUE):
            ctx.store.delete(key)
            delegator, operator = decompose(key)[3:5]
            entries = self.unbonding(ctx, delegator, operator)
            if not entries:
                continue
            returned = sum(int(e[3]) for e in entries if e[1] <= now)
            self.set_unbonding(ctx, delegator, operator, [e for e in entries if e[1] > now])
            if returned:
                events += self.bank.undelegate(ctx, NOT_BONDED_POOL, delegator, [(denom, returned)])
            events.append(event("complete_unbonding", ("amount", format_coins([(denom, returned)])),
                                ("validator", self.valoper(operator)), ("delegator", self.bank.bech32(delegator))))
        return events

    def complete_redelegations(self, ctx, p):
        """The redelegation entries that matured, dropped; returns events."""
        now, denom, events = ctx.time_ns, p.bond_denom, []
        for key in _mature(ctx, RED_QUEUE):
            ctx.store.delete(key)
            delegator, src, dst = decompose(key)[3:6]
            entries = self.redelegation(ctx, delegator, src, dst)
            if not entries:
                continue
            matured = sum(int(e[2]) for e in entries if e[1] <= now)
            self.set_redelegation(ctx, delegator, src, dst, [e for e in entries if e[1] > now])
            events.append(event("complete_redelegation", ("amount", format_coins([(denom, matured)])),
                                ("delegator", self.bank.bech32(delegator)), ("source_validator", self.valoper(src)),
                                ("destination_validator", self.valoper(dst))))
        return events

    # -- penalties (x/staking/keeper/slash.go) -------------------------------------------------

    def _burn(self, ctx, p, pool, amount):
        if amount <= 0:
            return []
        return self.bank.burn(ctx, pool, [(p.bond_denom, amount)])

    def slash(self, ctx, p, cons_address, infraction_height, power, fraction):
        """Keeper.Slash: burn `fraction` of the stake `power` stood for at `infraction_height` from what the
        validator still holds, its unbondings and redelegations begun since; returns (the tokens burned from
        the validator itself (what the SDK returns and the slashing module reports), events)."""
        slash_amount = power * POWER_REDUCTION * fraction // PRECISION
        v = self.validator_by_cons(ctx, cons_address)
        if v is None:
            # Overslashed and removed already: nothing left to take (the SDK logs and returns zero).
            return 0, []
        if v.status == UNBONDED:
            raise ValueError(f"should not be slashing unbonded validator: {self.valoper(v.operator)}")
        if infraction_height > ctx.height:
            raise ValueError(f"impossible attempt to slash future infraction at height {infraction_height} but we "
                             f"are at height {ctx.height}")
        remaining, events = slash_amount, []
        if infraction_height < ctx.height:
            for delegator, entries in self.unbondings_from(ctx, v.operator):
                remaining -= self._slash_unbonding(ctx, p, delegator, v.operator, entries, infraction_height,
                                                   fraction, events)
            for delegator, dst, entries in self.redelegations_from(ctx, v.operator):
                remaining -= self._slash_redelegation(ctx, p, delegator, dst, entries, infraction_height, fraction,
                                                      events)
            v = self.validator(ctx, v.operator)
        burned = max(min(remaining, v.tokens), 0)
        if burned == 0:
            return 0, events
        if v.tokens > 0:
            effective = min(-(-burned * PRECISION // v.tokens), PRECISION)      # QuoRoundUp, at most one
            events += self.hooks(ctx, "before_validator_slashed", v.operator, effective)
            v = self.validator(ctx, v.operator)
        v.tokens -= burned
        self.set_validator(ctx, v)
        events += self._burn(ctx, p, BONDED_POOL if v.status == BONDED else NOT_BONDED_POOL, burned)
        return burned, events

    def _slash_unbonding(self, ctx, p, delegator, operator, entries, infraction_height, fraction, events):
        """SlashUnbondingDelegation: entries begun at or after the infraction and not yet mature; its events
        go to `events`."""
        now, total, burned = ctx.time_ns, 0, 0
        for entry in entries:
            if entry[0] < infraction_height or entry[1] <= now:
                continue
            amount = fraction * int(entry[2]) // PRECISION
            total += amount
            taken = min(amount, int(entry[3]))
            if taken:
                burned += taken
                entry[3] = str(int(entry[3]) - taken)
        if burned:
            self.set_unbonding(ctx, delegator, operator, entries)
            events += self._burn(ctx, p, NOT_BONDED_POOL, burned)
        return total

    def _slash_redelegation(self, ctx, p, delegator, dst, entries, infraction_height, fraction, events):
        """SlashRedelegation: the moved stake, from an unbonding of it first, then from the delegation it became;
        its events go to `events`."""
        now, total, bonded_burn, not_bonded_burn = ctx.time_ns, 0, 0, 0
        for entry in entries:
            if entry[0] < infraction_height or entry[1] <= now:
                continue
            amount = fraction * int(entry[2]) // PRECISION
            total += amount
            dst_unbonding = self.unbonding(ctx, delegator, dst)
            changed = False
            for ubd in dst_unbonding:
                taken = min(amount, int(ubd[3]))
                if taken == 0 or ubd[0] < infraction_height or ubd[1] <= now:
                    continue
                amount -= taken
                not_bonded_burn += taken
                ubd[3] = str(int(ubd[3]) - taken)
                changed = True
            if changed:
                self.set_unbonding(ctx, delegator, dst, dst_unbonding)
            shares = _mul_round(fraction, int(entry[3]))
            if shares == 0 or amount == 0:
                continue
            held = self.delegation(ctx, delegator, dst)
            if held is None:
                continue
            tokens, dst_v, unbonded = self.unbond(ctx, delegator, dst, min(shares, held))
            events += unbonded
            if dst_v.status == BONDED:
                bonded_burn += tokens
            else:
                not_bonded_burn += tokens
        events += self._burn(ctx, p, BONDED_POOL, bonded_burn)
        events += self._burn(ctx, p, NOT_BONDED_POOL, not_bonded_burn)
        return total

    def jail(self, ctx, cons_address):
        """Keeper.Jail: out of the bonded set at the next end block."""
        v = self.validator_by_cons(ctx, cons_address)
        if v is None:
            raise ValueError(f"validator with consensus-Address {cons_address.hex()} not found")
        if v.jailed:
            raise ValueError("cannot jail already jailed validator")
        v.jailed = True
        self.set_validator(ctx, v)

    def unjail(self, ctx, cons_address):
        """Keeper.Unjail: eligible for the bonded set again."""
        v = self.validator_by_cons(ctx, cons_address)
        if v is None:
            raise ValueError(f"validator with consensus-Address {cons_address.hex()} not found")
        if not v.jailed:
            raise ValueError("cannot unjail already unjailed validator")
        v.jailed = False
        self.set_validator(ctx, v)


_VALIDATORS, _LAST_POWERS = compose("staking", "val"), compose("staking", "last")


@functools.lru_cache(maxsize=1024)
def _summary_of(record):
    # The same records are read block after block until a validator changes: decode each once.
    v = Validator.from_record(record)
    return Summary(v.operator, v.rate, v.jailed)


def _val_queue_key(v):
    return compose("staking", "valq", time_key(v.unbonding_time_ns), v.unbonding_height.to_bytes(8, "big"),
                   v.operator)


def _mature(ctx, prefix):
    """Queue keys whose time has come, oldest first."""
    now = time_key(ctx.time_ns)
    for key, _ in list(ctx.store.iterate(prefix)):
        if decompose(key)[2] > now:
            break
        yield key


def _mul_round(a, b):
    """LegacyDec.Mul: a * b in atomics, rounded half to even at 18 places."""
    quotient, remainder = divmod(a * b, PRECISION)
    twice = 2 * remainder
    if twice > PRECISION or (twice == PRECISION and quotient % 2):
        quotient += 1
    return quotient


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
