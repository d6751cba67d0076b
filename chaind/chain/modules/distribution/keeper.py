"""distribution's keeper: F1 fee distribution (x/distribution v0.50): allocation, periods, rewards, withdrawals."""

import functools

import orjson

from chaind.chain import legacy_dec
from chaind.chain.block import Event
from chaind.chain.modules.auth import FEE_COLLECTOR
from chaind.chain.modules.bank.keeper import format_coins
from chaind.chain.modules.distribution import dec_coins, records
from chaind.chain.modules.distribution.errors import (
    EMPTY_DELEGATION_DIST_INFO,
    NO_VALIDATOR_COMMISSION,
    NO_VALIDATOR_DIST_INFO,
    error,
)
from chaind.chain.modules.distribution.params import params as read_params
from chaind.chain.modules.distribution.records import DISTRIBUTION_ACCOUNT, FEE_POOL, ValidatorRewards
from chaind.crypto.addresses import to_bech32
from chaind.store.keys import compose, decompose

ONE = legacy_dec.ONE
# The rounding a stake recomputed across slashes may exceed the current one by (CalculateDelegationRewards).
_MARGIN = 3


class DistributionKeeper:
    """x/distribution's keeper, built once from bank's and auth's keepers (a payee's account is made on first
    sight), the chain's prefix and base denom, and the keepers (staking's is looked up there). Reads take a state (a
    view or a block's context); writes take a block's context and return the events they caused (bank's too)."""

    def __init__(self, bech32_prefix, base_denom, bank, auth, keepers):
        self.bank = bank
        self.auth = auth
        self.base_denom = base_denom
        self._keepers = keepers
        self._valoper_prefix = bech32_prefix + "valoper"

    @property
    def staking(self):
        # The registry builds distribution's keeper before staking's (its genesis order: distribution's hooks
        # find it ready when staking's genesis calls them), so staking's keeper is looked up when first used; the
        # SDK builds staking's keeper first and hands it to distribution's.
        return self._keepers["staking"]

    def valoper(self, operator):
        return to_bech32(self._valoper_prefix, operator)

    def params(self, state):
        """Read from the state at each call: a passed proposal changes them within a block."""
        return read_params(state)

    # -- state: the fee pool, the validators' F1 records, delegators' starting infos and withdraw addresses -----

    def community_pool(self, state):
        return _coins_at(state, FEE_POOL)

    def set_community_pool(self, ctx, coins):
        ctx.store.set(FEE_POOL, orjson.dumps(dec_coins.to_record(coins)))

    def bucket(self, state, key):
        """{operator: record bytes} of a bucket, shared with its next reader: not to be changed."""
        raw = state.store.get(key)
        return {} if raw is None else records.split_bucket(key, raw)

    def _write_bucket(self, ctx, key, found):
        """Store a bucket's records ({operator: record bytes}, which the caller gives up), by operator."""
        if not found:
            ctx.store.delete(key)
            return
        ctx.store.set(key, records.joined_bucket(key, found))

    def rewards_of(self, state, operator):
        """The validator's ValidatorRewards, or None for a validator distribution does not know."""
        raw = self.bucket(state, records.bucket_key(operator)).get(operator)
        if raw is None:
            return None
        found = orjson.loads(raw)
        return ValidatorRewards(dec_coins.from_record(found["out"]), dec_coins.from_record(found["comm"]),
                                dec_coins.from_record(found["cur"]), found["period"])

    def set_rewards_of(self, ctx, operator, rewards):
        key = records.bucket_key(operator)
        found = dict(self.bucket(ctx, key))
        found[operator] = records.record_of(rewards)
        self._write_bucket(ctx, key, found)

    def add_allocation(self, ctx, operator, commission, tokens):
        """AllocateTokensToValidator's writes to the validator's records: `commission` to the accumulated
        commission, the rest of `tokens` to the current rewards, all of `tokens` to the outstanding. The record's
        text maps are updated in place of a round trip through ValidatorRewards (the same bytes as set_rewards_of
        writes)."""
        if len(tokens) == 1:
            # Commission's denoms are the tokens' (MulDec of them).
            (denom, amount), = tokens.items()
            self.add_allocations_one(ctx, denom, ((operator, commission.get(denom, 0), amount),))
            return
        key = records.bucket_key(operator)
        found = dict(self.bucket(ctx, key))
        raw = found.get(operator)
        record = {"out": {}, "comm": {}, "cur": {}, "period": 1} if raw is None else orjson.loads(raw)
        rest = {}
        for denom, amount in tokens.items():
            left = amount - commission.get(denom, 0)
            if left < 0:
                raise ArithmeticError(f"negative coin amount: {legacy_dec.format(left)}{denom}")
            rest[denom] = left
        record["out"] = records.added(record["out"], tokens)
        record["comm"] = records.added(record["comm"], commission)
        record["cur"] = records.added(record["cur"], rest)
        found[operator] = orjson.dumps(record)
        self._write_bucket(ctx, key, found)

    def add_allocations_one(self, ctx, denom, allocations):
        """add_allocation of tokens of one denom (a chain's one fee denom) to each validator of `allocations`:
        (operator, commission, amount), `commission` of `amount` to its commission. Each block does this for
        every bonded validator: each bucket is read and written once."""
        by_bucket, bucket_of, allocated = {}, records.BUCKET_OF, records.allocated
        for operator, commission, amount in allocations:
            if commission > amount:
                raise ArithmeticError(f"negative coin amount: {legacy_dec.format(amount - commission)}{denom}")
            key = bucket_of[operator[0]]
            found = by_bucket.get(key)
            if found is None:
                found = by_bucket[key] = dict(self.bucket(ctx, key))
            found[operator] = allocated(found.get(operator), operator, denom, commission, amount)
        for key, found in by_bucket.items():
            self._write_bucket(ctx, key, found)

    def _update(self, ctx, operator, **fields):
        rewards = self.rewards_of(ctx, operator) or ValidatorRewards()
        for name, value in fields.items():
            setattr(rewards, name, value)
        self.set_rewards_of(ctx, operator, rewards)

    def outstanding(self, state, operator):
        found = self.rewards_of(state, operator)
        return {} if found is None else found.outstanding

    def set_outstanding(self, ctx, operator, coins):
        self._update(ctx, operator, outstanding=coins)

    def commission(self, state, operator):
        found = self.rewards_of(state, operator)
        return {} if found is None else found.commission

    def set_commission(self, ctx, operator, coins):
        self._update(ctx, operator, commission=coins)

    def current_rewards(self, state, operator):
        """(rewards DecCoins, period), or None for a validator distribution does not know."""
        found = self.rewards_of(state, operator)
        return None if found is None else (found.current, found.period)

    def historical(self, state, operator, period):
        """(cumulative reward ratio, reference count); the SDK reads a missing one as empty."""
        found = _get(state, records.hist_key(operator, period))
        return ({}, 0) if found is None else (dec_coins.from_record(found["ratio"]), found["refs"])

    def set_historical(self, ctx, operator, period, ratio, refs):
        ctx.store.set(records.hist_key(operator, period),
                      orjson.dumps({"ratio": dec_coins.to_record(ratio), "refs": refs}))

    def delete_historical(self, ctx, operator, period):
        ctx.store.delete(records.hist_key(operator, period))

    def starting_info(self, state, operator, delegator):
        """(previous period, stake in atomics, creation height), or None."""
        found = _get(state, records.start_key(operator, delegator))
        return None if found is None else (found["period"], int(found["stake"]), found["height"])

    def set_starting_info(self, ctx, operator, delegator, period, stake, height):
        ctx.store.set(records.start_key(operator, delegator),
                      orjson.dumps({"period": period, "stake": str(stake), "height": height}))

    def delete_starting_info(self, ctx, operator, delegator):
        ctx.store.delete(records.start_key(operator, delegator))

    def withdraw_address(self, state, delegator):
        """GetDelegatorWithdrawAddr: the address set, else the delegator's own."""
        return state.store.get(compose("distribution", "wd", delegator)) or delegator

    def set_withdraw_address(self, ctx, delegator, address):
        ctx.store.set(compose("distribution", "wd", delegator), address)

    def slash_events(self, state, operator, start_height, end_height):
        """[(height, validator period, fraction atomics)] recorded for a validator, heights in [start, end]."""
        found = []
        for key, raw in state.store.iterate(compose("distribution", "slash", operator)):
            height = int.from_bytes(decompose(key)[3], "big")
            if start_height <= height <= end_height:
                record = orjson.loads(raw)
                found.append((height, record["period"], int(record["fraction"])))
        return found

    def set_slash_event(self, ctx, operator, height, period, fraction):
        ctx.store.set(compose("distribution", "slash", operator, height.to_bytes(8, "big"), period.to_bytes(8, "big")),
                      orjson.dumps({"period": period, "fraction": str(fraction)}))

    def forget_validator(self, ctx, operator):
        """AfterValidatorRemoved's deletes: every record of the validator but its delegators' (none are left)."""
        key = records.bucket_key(operator)
        found = dict(self.bucket(ctx, key))
        if found.pop(operator, None) is not None:
            self._write_bucket(ctx, key, found)
        for kind in ("hist", "slash"):
            for key, _ in list(ctx.store.iterate(compose("distribution", kind, operator))):
                ctx.store.delete(key)

    # -- rewards, read -------------------------------------------------------------------------

    def ending_ratio(self, state, v):
        """The cumulative reward ratio IncrementValidatorPeriod would record now, computed without writing
        (the SDK's queries run it on a cache context): (ratio, the period it would end)."""
        rewards, period = self.current_rewards(state, v.operator)
        current = dec_coins.quo_dec_truncate(rewards, v.tokens * ONE) if v.tokens else {}
        return dec_coins.add(self.historical(state, v.operator, period - 1)[0], current), period

    def delegation_rewards(self, state, v, delegator, shares, height, final_ratio, start=None):
        """CalculateDelegationRewards up to a period whose cumulative ratio is `final_ratio`; `start`: the
        delegation's starting info when the caller has read it."""
        found = start or self.starting_info(state, v.operator, delegator)
        if found is None:
            raise error(EMPTY_DELEGATION_DIST_INFO)
        period, stake, created = found
        if created == height:
            return {}
        rewards = {}
        for _, slash_period, fraction in self.slash_events(state, v.operator, created, height):
            if slash_period > period:
                ending = self.historical(state, v.operator, slash_period)[0]
                rewards = dec_coins.add(rewards, self._between(state, v.operator, period, ending, stake))
                stake = stake * (ONE - fraction) // ONE
                period = slash_period
        current_stake = v.tokens_from_shares(shares)
        if stake > current_stake:
            if stake > current_stake + _MARGIN:
                raise ArithmeticError(f"calculated final stake for delegator {delegator.hex()} greater than current "
                                      f"stake: {legacy_dec.format(stake)} > {legacy_dec.format(current_stake)}")
            stake = current_stake
        return dec_coins.add(rewards, self._between(state, v.operator, period, final_ratio, stake))

    def _between(self, state, operator, start_period, ending, stake):
        difference = dec_coins.sub(ending, self.historical(state, operator, start_period)[0])
        return dec_coins.mul_dec_truncate(difference, stake)

    # -- allocation ----------------------------------------------------------------------------

    def allocate_tokens(self, ctx, votes, mode=None):
        """AllocateTokens: the fee collector's balance to the validators of the last commit by power
        (votes: [(consensus address, power)]), commission first, what is left to the community pool. Returns
        events, each ending with a `mode` attribute when one is given (FinalizeBlock marks what its begin
        blockers emit)."""
        mode = () if mode is None else (("mode", mode, True),)
        collected = self.bank.all_balances(ctx, FEE_COLLECTOR)
        events = _with_mode(self.bank.send(ctx, FEE_COLLECTOR, DISTRIBUTION_ACCOUNT, collected), mode)
        fees = dec_coins.from_coins(collected)
        pool = self.community_pool(ctx)
        total_power = sum(power for _, power in votes)
        if total_power == 0:
            self.set_community_pool(ctx, dec_coins.add(pool, fees))
            return events
        share = dec_coins.mul_dec_truncate(fees, ONE - self.params(ctx).community_tax)
        # What the validators got is taken from the fees once at the end: the SDK takes each reward from what
        # remains as it goes, which ends the same (no step can go below zero if the end does not).
        if len(share) == 1:
            (denom, amount), = share.items()
            allocated = {denom: self._allocate_one_denom(ctx, votes, total_power, denom, amount, events, mode)}
        else:
            allocated = self._allocate(ctx, votes, total_power, share, events, mode)
        self.set_community_pool(ctx, dec_coins.add(pool, dec_coins.sub(fees, allocated)))
        return events

    def _allocate(self, ctx, votes, total_power, share, events, mode):
        """Each validator's part of `share` (DecCoins) by power, its events to `events`; what they got."""
        allocated = {}
        for cons_address, power in votes:
            reward = dec_coins.mul_dec_truncate(share, power * ONE // total_power)
            found = self.staking.summary_by_cons(ctx, cons_address)
            if found is None:
                continue
            if not reward:
                # Nothing to add (a block without fees): the SDK's events, and no record rewritten unchanged.
                events += self._allocation_events(found.operator, {}, {}, mode)
                continue
            events += self.allocate_to_validator(ctx, found.operator, found.rate, reward, mode)
            for denom, amount in reward.items():
                allocated[denom] = allocated.get(denom, 0) + amount
        return allocated

    def _allocate_one_denom(self, ctx, votes, total_power, denom, share, events, mode):
        """_allocate of fees of one denom (a chain's one fee denom, every block): the same arithmetic on the one
        amount, without coin maps or per-validator calls of the coin helpers; what the validators got."""
        prefix = self._valoper_prefix
        summary_by_cons, mul_dec_amount, amount_text = (self.staking.summary_by_cons, dec_coins.mul_dec_amount,
                                                         dec_coins.amount_text)
        allocated, allocations = 0, []
        for cons_address, power in votes:
            reward = share * (power * ONE // total_power) // ONE
            found = summary_by_cons(ctx, cons_address)
            if found is None:
                continue
            if not reward:
                events += self._allocation_events(found.operator, {}, {}, mode)
                continue
            commission = mul_dec_amount(reward, found.rate)
            operator = found.operator
            allocations.append((operator, commission, reward))
            tail = _validator_tail(prefix, operator, mode)
            events.append(Event("commission", (("amount", amount_text(commission, denom), True),) + tail))
            events.append(Event("rewards", (("amount", amount_text(reward, denom), True),) + tail))
            allocated += reward
        self.add_allocations_one(ctx, denom, allocations)
        return allocated

    def allocate_to_validator(self, ctx, operator, rate, tokens, mode=()):
        """AllocateTokensToValidator: commission at the validator's rate, the rest to its delegators; returns
        events."""
        commission = dec_coins.mul_dec(tokens, rate)
        self.add_allocation(ctx, operator, commission, tokens)
        return self._allocation_events(operator, commission, tokens, mode)

    def _allocation_events(self, operator, commission, tokens, mode):
        tail = _validator_tail(self._valoper_prefix, operator, mode)
        return [Event("commission", (("amount", dec_coins.to_text(commission), True),) + tail),
                Event("rewards", (("amount", dec_coins.to_text(tokens), True),) + tail)]

    # -- periods -------------------------------------------------------------------------------

    def initialize_validator(self, ctx, operator):
        self.set_historical(ctx, operator, 0, {}, 1)
        self.set_rewards_of(ctx, operator, ValidatorRewards())

    def increment_period(self, ctx, v):
        """IncrementValidatorPeriod: end the current period; returns its number."""
        records = self.rewards_of(ctx, v.operator)
        period, _ = self._end_period(ctx, v, records)
        self.set_rewards_of(ctx, v.operator, records)
        return period

    def _end_period(self, ctx, v, records):
        """IncrementValidatorPeriod on the validator's records, which the caller writes back: the
        historical records are written here. Returns (the period ended, its cumulative ratio)."""
        rewards, period = records.current, records.period
        if v.tokens == 0:
            # No ratio for a validator without tokens: its rewards go to the community pool.
            self.set_community_pool(ctx, dec_coins.add(self.community_pool(ctx), rewards))
            records.outstanding = dec_coins.sub(records.outstanding, rewards)
            current = {}
        else:
            current = dec_coins.quo_dec_truncate(rewards, v.tokens * ONE)
        previous, refs = self.historical(ctx, v.operator, period - 1)
        self._set_references(ctx, v.operator, period - 1, previous, refs - 1)
        ratio = dec_coins.add(previous, current)
        self.set_historical(ctx, v.operator, period, ratio, 1)
        records.current, records.period = {}, period + 1
        return period, ratio

    def _increment_reference(self, ctx, operator, period):
        ratio, refs = self.historical(ctx, operator, period)
        if refs > 2:
            raise ArithmeticError("reference count should never exceed 2")
        self.set_historical(ctx, operator, period, ratio, refs + 1)

    def _decrement_reference(self, ctx, operator, period):
        ratio, refs = self.historical(ctx, operator, period)
        self._set_references(ctx, operator, period, ratio, refs - 1)

    def _set_references(self, ctx, operator, period, ratio, refs):
        """A historical record's reference count lowered to `refs`: gone at none."""
        if refs < 0:
            raise ArithmeticError("cannot set negative reference count")
        if refs == 0:
            self.delete_historical(ctx, operator, period)
        else:
            self.set_historical(ctx, operator, period, ratio, refs)

    def initialize_delegation(self, ctx, operator, delegator):
        """initializeDelegation: the delegation starts tracking from the period just ended."""
        _, period = self.current_rewards(ctx, operator)
        self._increment_reference(ctx, operator, period - 1)
        v = self.staking.validator(ctx, operator)
        shares = self.staking.delegation(ctx, delegator, operator)
        # Truncated (TokensFromSharesTruncated), so no one withdraws more than is owed.
        stake = shares * v.tokens * ONE // v.shares
        self.set_starting_info(ctx, operator, delegator, period - 1, stake, ctx.height)

    # -- withdrawals ---------------------------------------------------------------------------

    def _pay(self, ctx, recipient, coins):
        self.auth.ensure_account(ctx, recipient)
        return self.bank.send(ctx, DISTRIBUTION_ACCOUNT, recipient, coins)

    def withdraw_rewards(self, ctx, v, delegator, shares=None):
        """withdrawDelegationRewards: pay what the delegation earned; the dust goes to the community pool.
        Returns (coins paid, (the period ended, its cumulative ratio), events); `shares`: the delegation's, when
        the caller has read them."""
        operator = v.operator
        start = self.starting_info(ctx, operator, delegator)
        if start is None:
            raise error(EMPTY_DELEGATION_DIST_INFO)
        # The validator's records are read once and written once (the SDK reads and writes them at each step).
        records = self.rewards_of(ctx, operator)
        ending, ratio = self._end_period(ctx, v, records)
        if shares is None:
            shares = self.staking.delegation(ctx, delegator, operator)
        raw = self.delegation_rewards(ctx, v, delegator, shares, ctx.height, ratio, start)
        rewards = dec_coins.intersect(raw, records.outstanding)
        paid, remainder = dec_coins.truncate(rewards)
        events = self._pay(ctx, self.withdraw_address(ctx, delegator), paid) if paid else []
        records.outstanding = dec_coins.sub(records.outstanding, rewards)
        self.set_rewards_of(ctx, operator, records)
        self.set_community_pool(ctx, dec_coins.add(self.community_pool(ctx), remainder))
        self._decrement_reference(ctx, operator, start[0])
        self.delete_starting_info(ctx, operator, delegator)
        # The SDK names the zero coin of the base denom when nothing was paid.
        shown = paid or [(self.base_denom, 0)]
        events.append(_event("withdraw_rewards", ("amount", _coins_text(shown)), ("validator", self.valoper(operator)),
                             ("delegator", self.bank.bech32(delegator))))
        return paid, (ending, ratio), events

    def withdraw_delegation_rewards(self, ctx, delegator, operator):
        """WithdrawDelegationRewards: withdraw, then start the delegation's next period (initializeDelegation
        with what the withdrawal read: the validator, the shares, and the period it ended, whose record it
        wrote with one reference: this delegation's makes two). Returns (coins paid, events)."""
        v = self.staking.validator(ctx, operator)
        if v is None:
            raise error(NO_VALIDATOR_DIST_INFO)
        shares = self.staking.delegation(ctx, delegator, operator)
        if shares is None:
            raise error(EMPTY_DELEGATION_DIST_INFO)
        paid, (period, ratio), events = self.withdraw_rewards(ctx, v, delegator, shares)
        self.set_historical(ctx, operator, period, ratio, 2)
        # Truncated (TokensFromSharesTruncated), as initialize_delegation.
        self.set_starting_info(ctx, operator, delegator, period, shares * v.tokens * ONE // v.shares,
                                        ctx.height)
        return paid, events

    def withdraw_commission(self, ctx, operator):
        """Returns (coins paid, events)."""
        accumulated = self.commission(ctx, operator)
        if not accumulated:
            raise error(NO_VALIDATOR_COMMISSION)
        paid, remainder = dec_coins.truncate(accumulated)
        self.set_commission(ctx, operator, remainder)
        outstanding = self.outstanding(ctx, operator)
        self.set_outstanding(ctx, operator, dec_coins.sub(outstanding, dec_coins.from_coins(paid)))
        events = self._pay(ctx, self.withdraw_address(ctx, operator), paid) if paid else []
        events.append(_event("withdraw_commission", ("amount", format_coins(paid))))
        return paid, events

    def fund_community_pool(self, ctx, depositor, coins):
        """Returns events."""
        events = self.bank.send(ctx, depositor, DISTRIBUTION_ACCOUNT, coins)
        self.set_community_pool(ctx, dec_coins.add(self.community_pool(ctx),
                                                            dec_coins.from_coins(coins)))
        return events

    # -- staking hooks -------------------------------------------------------------------------

    def validator_slashed(self, ctx, v, fraction):
        """BeforeValidatorSlashed (updateValidatorSlashFraction): end the period, and record the slash in it."""
        if not 0 <= fraction <= ONE:
            raise ArithmeticError(f"fraction must be >=0 and <=1, current fraction: {legacy_dec.format(fraction)}")
        period = self.increment_period(ctx, v)
        self._increment_reference(ctx, v.operator, period)
        self.set_slash_event(ctx, v.operator, ctx.height, period, fraction)

    def validator_removed(self, ctx, operator):
        """AfterValidatorRemoved: its commission paid out, the dust of its rewards to the community pool; returns
        events."""
        outstanding = self.outstanding(ctx, operator)
        accumulated = self.commission(ctx, operator)
        pool = self.community_pool(ctx)
        events = []
        if accumulated:
            outstanding = dec_coins.sub(outstanding, accumulated)
            paid, remainder = dec_coins.truncate(accumulated)
            pool = dec_coins.add(pool, remainder)
            if paid:
                events = self._pay(ctx, self.withdraw_address(ctx, operator), paid)
        self.set_community_pool(ctx, dec_coins.add(pool, outstanding))
        self.forget_validator(ctx, operator)
        return events


def _get(state, key):
    raw = state.store.get(key)
    return None if raw is None else orjson.loads(raw)


def _coins_at(state, key):
    found = _get(state, key)
    return {} if found is None else dec_coins.from_record(found)


def _event(type_, *pairs):
    return Event(type_, tuple([(key, value, True) for key, value in pairs]))


def _with_mode(events, mode):
    """Events another module's keeper made (a bank send's), with the mode attribute when there is one."""
    return [Event(e.type, e.attributes + mode) for e in events] if mode else events


@functools.lru_cache(maxsize=4096)
def _validator_tail(valoper_prefix, operator, mode):
    """The attributes an allocation event ends with, the validator's and the mode's: the same every block, so
    made once (each block's 200 allocation events are written, indexed and collected: fewer objects, less work)."""
    return (("validator", to_bech32(valoper_prefix, operator), True),) + mode


def _coins_text(coins):
    """sdk.Coins.String() of a list that may hold a zero coin (the SDK prints it as is)."""
    return ",".join(f"{amount}{denom}" for denom, amount in coins)
