"""distribution's keeper: F1 fee distribution (x/distribution v0.50): allocation, periods, rewards, withdrawals."""

import functools

from chaind.chain import legacy_dec
from chaind.chain.block import Event
from chaind.chain.modules.auth import FEE_COLLECTOR
from chaind.chain.modules.bank.keeper import format_coins
from chaind.chain.modules.distribution import dec_coins, state
from chaind.chain.modules.distribution.errors import (
    EMPTY_DELEGATION_DIST_INFO,
    NO_VALIDATOR_COMMISSION,
    NO_VALIDATOR_DIST_INFO,
    error,
)
from chaind.chain.modules.distribution.params import params
from chaind.chain.modules.distribution.state import DISTRIBUTION_ACCOUNT
from chaind.crypto.addresses import to_bech32

ONE = legacy_dec.ONE
# The rounding a stake recomputed across slashes may exceed the current one by (CalculateDelegationRewards).
_MARGIN = 3


def ending_ratio(view, v):
    """The cumulative reward ratio IncrementValidatorPeriod would record now, computed without writing
    (the SDK's queries run it on a cache context): (ratio, the period it would end)."""
    rewards, period = state.current_rewards(view, v.operator)
    current = dec_coins.quo_dec_truncate(rewards, v.tokens * ONE) if v.tokens else {}
    return dec_coins.add(state.historical(view, v.operator, period - 1)[0], current), period


def delegation_rewards(view, v, delegator, shares, height, final_ratio, start=None):
    """CalculateDelegationRewards up to a period whose cumulative ratio is `final_ratio`; `start`: the
    delegation's starting info when the caller has read it."""
    found = start or state.starting_info(view, v.operator, delegator)
    if found is None:
        raise error(EMPTY_DELEGATION_DIST_INFO)
    period, stake, created = found
    if created == height:
        return {}
    rewards = {}
    for _, slash_period, fraction in state.slash_events(view, v.operator, created, height):
        if slash_period > period:
            ending = state.historical(view, v.operator, slash_period)[0]
            rewards = dec_coins.add(rewards, _between(view, v.operator, period, ending, stake))
            stake = stake * (ONE - fraction) // ONE
            period = slash_period
    current_stake = v.tokens_from_shares(shares)
    if stake > current_stake:
        if stake > current_stake + _MARGIN:
            raise ArithmeticError(f"calculated final stake for delegator {delegator.hex()} greater than current "
                                  f"stake: {legacy_dec.format(stake)} > {legacy_dec.format(current_stake)}")
        stake = current_stake
    return dec_coins.add(rewards, _between(view, v.operator, period, final_ratio, stake))


def _between(view, operator, start_period, ending, stake):
    difference = dec_coins.sub(ending, state.historical(view, operator, start_period)[0])
    return dec_coins.mul_dec_truncate(difference, stake)


class Keeper:
    """The state changes of one block's distribution; events gather in self.events, each ending with a
    `mode` attribute when one is given (FinalizeBlock marks what its begin blockers emit)."""

    def __init__(self, app, ctx, mode=None):
        self.app = app
        self.ctx = ctx
        self.events = []
        self._mode = () if mode is None else (("mode", mode, True),)
        self._valoper_prefix = app.genesis.bech32_prefix + "valoper"

    def valoper(self, operator):
        return to_bech32(self._valoper_prefix, operator)

    def _emit(self, type_, *pairs):
        self.events.append(Event(type_, tuple([(key, value, True) for key, value in pairs]) + self._mode))

    def _emit_all(self, events):
        """Events another module's keeper made (a bank send's)."""
        if self._mode:
            events = [Event(e.type, e.attributes + self._mode) for e in events]
        self.events += events

    # -- allocation ----------------------------------------------------------------------------

    def allocate_tokens(self, votes):
        """AllocateTokens: the fee collector's balance to the validators of the last commit by power
        (votes: [(consensus address, power)]), commission first, what is left to the community pool."""
        ctx = self.ctx
        collected = self.app.bank.all_balances(ctx, FEE_COLLECTOR)
        self._emit_all(self.app.bank.send(ctx, FEE_COLLECTOR, DISTRIBUTION_ACCOUNT, collected))
        fees = dec_coins.from_coins(collected)
        pool = state.community_pool(ctx)
        total_power = sum(power for _, power in votes)
        if total_power == 0:
            state.set_community_pool(ctx, dec_coins.add(pool, fees))
            return
        share = dec_coins.mul_dec_truncate(fees, ONE - params(ctx).community_tax)
        # What the validators got is taken from the fees once at the end: the SDK takes each reward from what
        # remains as it goes, which ends the same (no step can go below zero if the end does not).
        if len(share) == 1:
            (denom, amount), = share.items()
            allocated = {denom: self._allocate_one_denom(votes, total_power, denom, amount)}
        else:
            allocated = self._allocate(votes, total_power, share)
        state.set_community_pool(ctx, dec_coins.add(pool, dec_coins.sub(fees, allocated)))

    def _allocate(self, votes, total_power, share):
        """Each validator's part of `share` (DecCoins) by power; what they got."""
        allocated = {}
        for cons_address, power in votes:
            reward = dec_coins.mul_dec_truncate(share, power * ONE // total_power)
            found = self.app.keepers["staking"].summary_by_cons(self.ctx, cons_address)
            if found is None:
                continue
            if not reward:
                # Nothing to add (a block without fees): the SDK's events, and no record rewritten unchanged.
                self._allocation_events(found.operator, {}, {})
                continue
            self.allocate_to_validator(found.operator, found.rate, reward)
            for denom, amount in reward.items():
                allocated[denom] = allocated.get(denom, 0) + amount
        return allocated

    def _allocate_one_denom(self, votes, total_power, denom, share):
        """_allocate of fees of one denom (a chain's one fee denom, every block): the same arithmetic on the one
        amount, without coin maps or per-validator calls of the coin helpers; what the validators got."""
        ctx, events, mode, prefix = self.ctx, self.events, self._mode, self._valoper_prefix
        summary_by_cons, mul_dec_amount, amount_text = (self.app.keepers["staking"].summary_by_cons,
                                                         dec_coins.mul_dec_amount, dec_coins.amount_text)
        allocated, allocations = 0, []
        for cons_address, power in votes:
            reward = share * (power * ONE // total_power) // ONE
            found = summary_by_cons(ctx, cons_address)
            if found is None:
                continue
            if not reward:
                self._allocation_events(found.operator, {}, {})
                continue
            commission = mul_dec_amount(reward, found.rate)
            operator = found.operator
            allocations.append((operator, commission, reward))
            tail = _validator_tail(prefix, operator, mode)
            events.append(Event("commission", (("amount", amount_text(commission, denom), True),) + tail))
            events.append(Event("rewards", (("amount", amount_text(reward, denom), True),) + tail))
            allocated += reward
        state.add_allocations_one(ctx, denom, allocations)
        return allocated

    def allocate_to_validator(self, operator, rate, tokens):
        """AllocateTokensToValidator: commission at the validator's rate, the rest to its delegators."""
        commission = dec_coins.mul_dec(tokens, rate)
        state.add_allocation(self.ctx, operator, commission, tokens)
        self._allocation_events(operator, commission, tokens)

    def _allocation_events(self, operator, commission, tokens):
        tail = _validator_tail(self._valoper_prefix, operator, self._mode)
        self.events.append(Event("commission", (("amount", dec_coins.to_text(commission), True),) + tail))
        self.events.append(Event("rewards", (("amount", dec_coins.to_text(tokens), True),) + tail))

    # -- periods -------------------------------------------------------------------------------

    def initialize_validator(self, operator):
        state.set_historical(self.ctx, operator, 0, {}, 1)
        state.set_rewards_of(self.ctx, operator, state.ValidatorRewards())

    def increment_period(self, v):
        """IncrementValidatorPeriod: end the current period; returns its number."""
        records = state.rewards_of(self.ctx, v.operator)
        period, _ = self._end_period(v, records)
        state.set_rewards_of(self.ctx, v.operator, records)
        return period

    def _end_period(self, v, records):
        """IncrementValidatorPeriod on the validator's records, which the caller writes back: the
        historical records are written here. Returns (the period ended, its cumulative ratio)."""
        rewards, period = records.current, records.period
        if v.tokens == 0:
            # No ratio for a validator without tokens: its rewards go to the community pool.
            state.set_community_pool(self.ctx, dec_coins.add(state.community_pool(self.ctx), rewards))
            records.outstanding = dec_coins.sub(records.outstanding, rewards)
            current = {}
        else:
            current = dec_coins.quo_dec_truncate(rewards, v.tokens * ONE)
        previous, refs = state.historical(self.ctx, v.operator, period - 1)
        self._set_references(v.operator, period - 1, previous, refs - 1)
        ratio = dec_coins.add(previous, current)
        state.set_historical(self.ctx, v.operator, period, ratio, 1)
        records.current, records.period = {}, period + 1
        return period, ratio

    def _increment_reference(self, operator, period):
        ratio, refs = state.historical(self.ctx, operator, period)
        if refs > 2:
            raise ArithmeticError("reference count should never exceed 2")
        state.set_historical(self.ctx, operator, period, ratio, refs + 1)

    def _decrement_reference(self, operator, period):
        ratio, refs = state.historical(self.ctx, operator, period)
        self._set_references(operator, period, ratio, refs - 1)

    def _set_references(self, operator, period, ratio, refs):
        """A historical record's reference count lowered to `refs`: gone at none."""
        if refs < 0:
            raise ArithmeticError("cannot set negative reference count")
        if refs == 0:
            state.delete_historical(self.ctx, operator, period)
        else:
            state.set_historical(self.ctx, operator, period, ratio, refs)

    def initialize_delegation(self, operator, delegator):
        """initializeDelegation: the delegation starts tracking from the period just ended."""
        _, period = state.current_rewards(self.ctx, operator)
        self._increment_reference(operator, period - 1)
        v = self.app.keepers["staking"].validator(self.ctx, operator)
        shares = self.app.keepers["staking"].delegation(self.ctx, delegator, operator)
        # Truncated (TokensFromSharesTruncated), so no one withdraws more than is owed.
        stake = shares * v.tokens * ONE // v.shares
        state.set_starting_info(self.ctx, operator, delegator, period - 1, stake, self.ctx.height)

    # -- withdrawals ---------------------------------------------------------------------------

    def _pay(self, recipient, coins):
        self.app.ensure_account(self.ctx, recipient)
        self._emit_all(self.app.bank.send(self.ctx, DISTRIBUTION_ACCOUNT, recipient, coins))

    def withdraw_rewards(self, v, delegator, shares=None):
        """withdrawDelegationRewards: pay what the delegation earned; the dust goes to the community pool.
        Returns (coins paid, the period ended and its cumulative ratio); `shares`: the delegation's, when
        the caller has read them."""
        ctx, operator = self.ctx, v.operator
        start = state.starting_info(ctx, operator, delegator)
        if start is None:
            raise error(EMPTY_DELEGATION_DIST_INFO)
        # The validator's records are read once and written once (the SDK reads and writes them at each step).
        records = state.rewards_of(ctx, operator)
        ending, ratio = self._end_period(v, records)
        if shares is None:
            shares = self.app.keepers["staking"].delegation(ctx, delegator, operator)
        raw = delegation_rewards(ctx, v, delegator, shares, ctx.height, ratio, start)
        rewards = dec_coins.intersect(raw, records.outstanding)
        paid, remainder = dec_coins.truncate(rewards)
        if paid:
            self._pay(state.withdraw_address(ctx, delegator), paid)
        records.outstanding = dec_coins.sub(records.outstanding, rewards)
        state.set_rewards_of(ctx, operator, records)
        state.set_community_pool(ctx, dec_coins.add(state.community_pool(ctx), remainder))
        self._decrement_reference(operator, start[0])
        state.delete_starting_info(ctx, operator, delegator)
        # The SDK names the zero coin of the base denom when nothing was paid.
        shown = paid or [(self.app.genesis.base_denom, 0)]
        self._emit("withdraw_rewards", ("amount", _coins_text(shown)), ("validator", self.valoper(operator)),
                   ("delegator", self.app.bank.bech32(delegator)))
        return paid, (ending, ratio)

    def withdraw_delegation_rewards(self, delegator, operator):
        """WithdrawDelegationRewards: withdraw, then start the delegation's next period (initializeDelegation
        with what the withdrawal read: the validator, the shares, and the period it ended, whose record it
        wrote with one reference: this delegation's makes two)."""
        ctx = self.ctx
        v = self.app.keepers["staking"].validator(ctx, operator)
        if v is None:
            raise error(NO_VALIDATOR_DIST_INFO)
        shares = self.app.keepers["staking"].delegation(ctx, delegator, operator)
        if shares is None:
            raise error(EMPTY_DELEGATION_DIST_INFO)
        paid, (period, ratio) = self.withdraw_rewards(v, delegator, shares)
        state.set_historical(ctx, operator, period, ratio, 2)
        # Truncated (TokensFromSharesTruncated), as initialize_delegation.
        state.set_starting_info(ctx, operator, delegator, period, shares * v.tokens * ONE // v.shares, ctx.height)
        return paid

    def withdraw_commission(self, operator):
        accumulated = state.commission(self.ctx, operator)
        if not accumulated:
            raise error(NO_VALIDATOR_COMMISSION)
        paid, remainder = dec_coins.truncate(accumulated)
        state.set_commission(self.ctx, operator, remainder)
        outstanding = state.outstanding(self.ctx, operator)
        state.set_outstanding(self.ctx, operator, dec_coins.sub(outstanding, dec_coins.from_coins(paid)))
        if paid:
            self._pay(state.withdraw_address(self.ctx, operator), paid)
        self._emit("withdraw_commission", ("amount", format_coins(paid)))
        return paid

    def fund_community_pool(self, depositor, coins):
        self._emit_all(self.app.bank.send(self.ctx, depositor, DISTRIBUTION_ACCOUNT, coins))
        state.set_community_pool(self.ctx, dec_coins.add(state.community_pool(self.ctx), dec_coins.from_coins(coins)))

    # -- staking hooks -------------------------------------------------------------------------

    def validator_slashed(self, v, fraction):
        """BeforeValidatorSlashed (updateValidatorSlashFraction): end the period, and record the slash in it."""
        if not 0 <= fraction <= ONE:
            raise ArithmeticError(f"fraction must be >=0 and <=1, current fraction: {legacy_dec.format(fraction)}")
        period = self.increment_period(v)
        self._increment_reference(v.operator, period)
        state.set_slash_event(self.ctx, v.operator, self.ctx.height, period, fraction)

    def validator_removed(self, operator):
        """AfterValidatorRemoved: its commission paid out, the dust of its rewards to the community pool."""
        outstanding = state.outstanding(self.ctx, operator)
        accumulated = state.commission(self.ctx, operator)
        pool = state.community_pool(self.ctx)
        if accumulated:
            outstanding = dec_coins.sub(outstanding, accumulated)
            paid, remainder = dec_coins.truncate(accumulated)
            pool = dec_coins.add(pool, remainder)
            if paid:
                self._pay(state.withdraw_address(self.ctx, operator), paid)
        state.set_community_pool(self.ctx, dec_coins.add(pool, outstanding))
        state.forget_validator(self.ctx, operator)


@functools.lru_cache(maxsize=4096)
def _validator_tail(valoper_prefix, operator, mode):
    """The attributes an allocation event ends with, the validator's and the mode's: the same every block, so
    made once (each block's 200 allocation events are written, indexed and collected: fewer objects, less work)."""
    return (("validator", to_bech32(valoper_prefix, operator), True),) + mode


def _coins_text(coins):
    """sdk.Coins.String() of a list that may hold a zero coin (the SDK prints it as is)."""
    return ",".join(f"{amount}{denom}" for denom, amount in coins)
