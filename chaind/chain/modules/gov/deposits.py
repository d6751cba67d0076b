"""gov's deposits: adding one (which may open the voting period), refunding, burning, charging a cancel."""

from chaind.chain import legacy_dec
from chaind.chain.block import event
from chaind.chain.modules.gov import coins
from chaind.chain.modules.gov.errors import (
    INACTIVE_PROPOSAL,
    INVALID_DEPOSIT_DENOM,
    MIN_DEPOSIT_TOO_SMALL,
    UNKNOWN_PROPOSAL,
    error,
)
from chaind.chain.modules.gov.keeper import GOV
from chaind.crypto.addresses import parse
from chaind.pb.cosmos.gov.v1 import gov_pb2


def min_deposit(params, expedited):
    return coins.parse(params.expedited_min_deposit if expedited else params.min_deposit)[0]


def validate_denoms(params, amount):
    """validateDepositDenom: only the denoms of min_deposit are accepted."""
    accepted = [c.denom for c in params.min_deposit]
    for denom, value in sorted(amount.items()):
        if denom not in accepted:
            raise error(INVALID_DEPOSIT_DENOM, f"deposited {value}{denom}, but gov accepts only the following "
                        f"denom(s): [{' '.join(accepted)}]")


def add_deposit(app, ctx, pid, depositor, amount):
    """Keeper.AddDeposit; returns (events, whether the voting period started)."""
    keeper = app.keepers["gov"]
    p = keeper.proposal(ctx, pid)
    if p is None:
        raise error(UNKNOWN_PROPOSAL, str(pid))
    if p.status not in (gov_pb2.PROPOSAL_STATUS_DEPOSIT_PERIOD, gov_pb2.PROPOSAL_STATUS_VOTING_PERIOD):
        raise error(INACTIVE_PROPOSAL, str(pid))
    params = keeper.params(ctx)
    needed = min_deposit(params, p.expedited)
    ratio = legacy_dec.parse(params.min_deposit_ratio)
    validate_denoms(params, amount)
    if ratio:
        thresholds, met = [], False
        for denom, value in coins.to_list(needed):
            threshold = value * ratio // legacy_dec.ONE
            thresholds.append(f"{threshold}{denom}")
            if denom in amount and amount[denom] >= threshold:
                met = True
                break
        if not met:
            raise error(MIN_DEPOSIT_TOO_SMALL, f"received {coins.text(amount)} but need at least one of the "
                        f"following: {','.join(thresholds)}")
    events = app.keepers["bank"].send(ctx, depositor, GOV, coins.to_list(amount))
    total = coins.add(coins.parse(p.total_deposit)[0], amount)
    coins.fill(p.total_deposit, total)
    keeper.set_proposal(ctx, p)
    started = False
    if p.status == gov_pb2.PROPOSAL_STATUS_DEPOSIT_PERIOD and coins.all_gte(total, needed):
        keeper.activate_voting_period(ctx, p, ctx.time_ns)
        started = True
    d = keeper.deposit(ctx, pid, depositor)
    if d is None:
        d = gov_pb2.Deposit(proposal_id=pid, depositor=app.keepers["bank"].bech32(depositor))
    coins.fill(d.amount, coins.add(coins.parse(d.amount)[0], amount))
    events.append(event("proposal_deposit", ("depositor", app.keepers["bank"].bech32(depositor)),
                        ("amount", coins.text(amount)), ("proposal_id", str(pid))))
    keeper.set_deposit(ctx, pid, depositor, d)
    return events, started


def refund_and_delete(app, state, pid):
    keeper = app.keepers["gov"]
    events = []
    for depositor, d in keeper.deposits(state, pid):
        amount = coins.parse(d.amount)[0]
        if amount:
            events += app.keepers["bank"].send(state, GOV, depositor, coins.to_list(amount))
        keeper.delete_deposit(state, pid, depositor)
    return events


def burn_and_delete(app, state, pid):
    keeper = app.keepers["gov"]
    total = {}
    for depositor, d in keeper.deposits(state, pid):
        total = coins.add(total, coins.parse(d.amount)[0])
        keeper.delete_deposit(state, pid, depositor)
    return app.keepers["bank"].burn(state, GOV, coins.to_list(total)) if total else []


def charge(app, state, pid, dest, rate_text):
    """ChargeDeposit: rate x each deposit is burned (or sent to dest), the rest goes back to its depositor."""
    keeper = app.keepers["gov"]
    rate = legacy_dec.parse(rate_text)
    charges, events = {}, []
    for depositor, d in keeper.deposits(state, pid):
        remaining = {}
        for denom, value in coins.parse(d.amount)[0].items():
            burned = value * rate // legacy_dec.ONE
            remaining[denom] = value - burned
            charges[denom] = charges.get(denom, 0) + burned
        remaining = {k: v for k, v in remaining.items() if v}
        if remaining:
            events += app.keepers["bank"].send(state, GOV, depositor, coins.to_list(remaining))
        keeper.delete_deposit(state, pid, depositor)
    charges = {k: v for k, v in charges.items() if v}
    if charges:
        if not dest:
            events += app.keepers["bank"].burn(state, GOV, coins.to_list(charges))
        else:
            # Without x/distribution here the community pool's address is an account like any other.
            events += app.keepers["bank"].send(state, GOV, parse(dest, app.genesis.bech32_prefix),
                                               coins.to_list(charges))
    return events
