"""inflation's keeper: what an epoch's end mints and where it goes; the reads its queries share."""

import attrs

from chaind.chain import legacy_dec
from chaind.chain.block import event
from chaind.chain.modules import staking
from chaind.chain.modules.auth import FEE_COLLECTOR
from chaind.chain.modules.bank.keeper import format_coins
from chaind.chain.modules.epochs import epoch_info
from chaind.chain.modules.inflation import calculation
from chaind.chain.modules.inflation.calculation import ONE, REDUCTION_FACTOR, mul
from chaind.chain.modules.inflation.params import params, schedule, set_schedule
from chaind.chain.modules.staking import format_duration
from chaind.crypto.addresses import module_address

INFLATION_ACCOUNT = module_address("inflation")


def bonded_ratio(app, state):
    """Bonded tokens over the bond denom's supply (QuoInt truncates); no team allocation off mainnet."""
    supply = app.bank.supply(state, app.keepers["staking"].params(state).bond_denom)
    if supply <= 0:
        return 0
    return app.keepers["staking"].pool_balances(state)[1] * ONE // supply


def epoch_mint_provision(app, state):
    """GetEpochMintProvision, as v20's query reports it: the schedule's provision divided by the
    reduction factor once more (its keeper divides twice; what an epoch mints is divided once)."""
    s = schedule(state)
    provision = calculation.epoch_mint_provision(params(state), s.period, s.epochs_per_period,
                                                 bonded_ratio(app, state))
    return staking.dec_quo(provision, REDUCTION_FACTOR * ONE)


def circulating_supply(app, state):
    return app.bank.supply(state, params(state).mint_denom) * ONE


def inflation_rate(app, state):
    """EpochMintProvision * epochs per period / circulating supply * 100."""
    s = schedule(state)
    provision = epoch_mint_provision(app, state)
    supply = circulating_supply(app, state)
    if not s.epochs_per_period or not provision or not supply:
        return 0
    return mul(staking.dec_quo(mul(provision, s.epochs_per_period * ONE), supply), 100 * ONE)


def describe(view):
    """One line for the start banner: what is minted, and how often."""
    p, s = params(view), schedule(view)
    if not p.enable_inflation:
        return "inflation: disabled"
    info = epoch_info(view, s.epoch_identifier)
    every = format_duration(info.duration_ns) if info is not None else "never (no such epoch)"
    return f"inflation: mints {p.mint_denom} at the end of each {s.epoch_identifier!r} epoch (every {every})"


class EpochHooks:
    def before_epoch_start(self, app, ctx, identifier, number):
        return []

    def after_epoch_end(self, app, ctx, identifier, number):
        """AfterEpochEnd: on the inflation epoch, mint the provision; staking rewards to the fee collector
        (distribution hands them out this same block), the rest to the community pool."""
        p, s = params(ctx), schedule(ctx)
        if not p.enable_inflation:
            if identifier == "day":
                set_schedule(ctx, attrs.evolve(s, skipped_epochs=s.skipped_epochs + 1))
            return []
        if identifier != s.epoch_identifier:
            return []
        provision = calculation.epoch_mint_provision(p, s.period, s.epochs_per_period, bonded_ratio(app, ctx))
        if provision <= 0:
            return []
        amount = provision // ONE
        events = []
        if amount > 0:
            events += _mint_and_allocate(app, ctx, p, amount)
        if number - s.epochs_per_period * s.period - s.skipped_epochs > s.epochs_per_period:
            set_schedule(ctx, attrs.evolve(s, period=s.period + 1))
        events.append(event("inflation", ("epoch_number", str(number)),
                            ("epoch_provisions", legacy_dec.format(provision)), ("amount", str(amount))))
        return events


def _mint_and_allocate(app, ctx, p, amount):
    bank = app.bank
    minted = [(p.mint_denom, amount)]
    bank.mint(ctx, INFLATION_ACCOUNT, p.mint_denom, amount)
    events = [event("coin_received", ("receiver", bank.bech32(INFLATION_ACCOUNT)), ("amount", format_coins(minted))),
              event("coinbase", ("minter", bank.bech32(INFLATION_ACCOUNT)), ("amount", format_coins(minted)))]
    staking_part = [(p.mint_denom, mul(amount * ONE, p.staking_rewards) // ONE)]
    events += bank.send(ctx, INFLATION_ACCOUNT, FEE_COLLECTOR, staking_part)
    return events + app.keepers["distribution"].fund_community_pool(ctx, INFLATION_ACCOUNT,
                                                                    bank.all_balances(ctx, INFLATION_ACCOUNT))
