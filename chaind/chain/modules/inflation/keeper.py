"""inflation's keeper: what an epoch's end mints and where it goes; the reads its queries share."""

import attrs

from chaind.chain import legacy_dec
from chaind.chain.block import event
from chaind.chain.modules import staking
from chaind.chain.modules.auth import FEE_COLLECTOR
from chaind.chain.modules.bank.keeper import format_coins
from chaind.chain.modules.inflation import calculation
from chaind.chain.modules.inflation.calculation import ONE, REDUCTION_FACTOR, mul
from chaind.chain.modules.inflation.params import PARAMS_KEY, Params, Schedule
from chaind.chain.modules.staking import format_duration
from chaind.crypto.addresses import module_address
from chaind.store.keys import compose

INFLATION_ACCOUNT = module_address("inflation")


def bonded_ratio(app, state):
    """Bonded tokens over the bond denom's supply (QuoInt truncates); no team allocation off mainnet. Through the
    app: staking's keeper is built after inflation's (the registry's order)."""
    supply = app.keepers["bank"].supply(state, app.keepers["staking"].params(state).bond_denom)
    if supply <= 0:
        return 0
    return app.keepers["staking"].pool_balances(state)[1] * ONE // supply


class InflationKeeper:
    """x/inflation's keeper, built once from bank and epochs' keeper: its params and schedule, and what its
    queries report. Reads take a state (a view or a block's context), writes a block's context."""

    def __init__(self, bank, epochs):
        self.bank = bank
        self.epochs = epochs

    def params(self, state):
        return Params.from_record(state.store.get(PARAMS_KEY))

    def set_params(self, ctx, p):
        ctx.store.set(PARAMS_KEY, p.to_record())

    def schedule(self, state):
        raw = state.store.get(compose("inflation", "epoch_identifier"))
        return Schedule(_int_at(state, "period"), raw.decode() if raw else "day",
                        _int_at(state, "epochs_per_period"), _int_at(state, "skipped_epochs"))

    def set_schedule(self, ctx, s):
        for name in ("period", "epochs_per_period", "skipped_epochs"):
            ctx.store.set(compose("inflation", name), str(getattr(s, name)).encode())
        ctx.store.set(compose("inflation", "epoch_identifier"), s.epoch_identifier.encode())

    def epoch_mint_provision(self, state, bonded):
        """GetEpochMintProvision at bonded ratio `bonded`, as v20's query reports it: the schedule's provision
        divided by the reduction factor once more (its keeper divides twice; what an epoch mints is divided
        once)."""
        s = self.schedule(state)
        provision = calculation.epoch_mint_provision(self.params(state), s.period, s.epochs_per_period, bonded)
        return staking.dec_quo(provision, REDUCTION_FACTOR * ONE)

    def circulating_supply(self, state):
        return self.bank.supply(state, self.params(state).mint_denom) * ONE

    def inflation_rate(self, state, bonded):
        """EpochMintProvision * epochs per period / circulating supply * 100."""
        s = self.schedule(state)
        provision = self.epoch_mint_provision(state, bonded)
        supply = self.circulating_supply(state)
        if not s.epochs_per_period or not provision or not supply:
            return 0
        return mul(staking.dec_quo(mul(provision, s.epochs_per_period * ONE), supply), 100 * ONE)

    def describe(self, view):
        """One line for the start banner: what is minted, and how often."""
        p, s = self.params(view), self.schedule(view)
        if not p.enable_inflation:
            return "inflation: disabled"
        info = self.epochs.epoch_info(view, s.epoch_identifier)
        every = format_duration(info.duration_ns) if info is not None else "never (no such epoch)"
        return f"inflation: mints {p.mint_denom} at the end of each {s.epoch_identifier!r} epoch (every {every})"


def _int_at(state, name, default=0):
    raw = state.store.get(compose("inflation", name))
    return default if raw is None else int(raw)


class EpochHooks:
    def before_epoch_start(self, app, ctx, identifier, number):
        return []

    def after_epoch_end(self, app, ctx, identifier, number):
        """AfterEpochEnd: on the inflation epoch, mint the provision; staking rewards to the fee collector
        (distribution hands them out this same block), the rest to the community pool."""
        keeper = app.keepers["inflation"]
        p, s = keeper.params(ctx), keeper.schedule(ctx)
        if not p.enable_inflation:
            if identifier == "day":
                keeper.set_schedule(ctx, attrs.evolve(s, skipped_epochs=s.skipped_epochs + 1))
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
            keeper.set_schedule(ctx, attrs.evolve(s, period=s.period + 1))
        events.append(event("inflation", ("epoch_number", str(number)),
                            ("epoch_provisions", legacy_dec.format(provision)), ("amount", str(amount))))
        return events


def _mint_and_allocate(app, ctx, p, amount):
    bank = app.keepers["bank"]
    minted = [(p.mint_denom, amount)]
    bank.mint(ctx, INFLATION_ACCOUNT, p.mint_denom, amount)
    events = [event("coin_received", ("receiver", bank.bech32(INFLATION_ACCOUNT)), ("amount", format_coins(minted))),
              event("coinbase", ("minter", bank.bech32(INFLATION_ACCOUNT)), ("amount", format_coins(minted)))]
    staking_part = [(p.mint_denom, mul(amount * ONE, p.staking_rewards) // ONE)]
    events += bank.send(ctx, INFLATION_ACCOUNT, FEE_COLLECTOR, staking_part)
    return events + app.keepers["distribution"].fund_community_pool(ctx, INFLATION_ACCOUNT,
                                                                    bank.all_balances(ctx, INFLATION_ACCOUNT))
