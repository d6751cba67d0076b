"""staking's state: reads and writes of validators, delegations, unbondings, redelegations, powers."""

import functools

import attrs
import orjson

from chaind.chain.modules.staking.keys import (
    UNBONDING_ID,
    cons_key,
    del_by_val_key,
    del_key,
    red_by_dst_key,
    red_by_src_key,
    red_key,
    ubd_by_val_key,
    ubd_key,
    val_key,
)
from chaind.chain.modules.staking.params import params
from chaind.chain.modules.staking.records import BONDED_POOL, NOT_BONDED_POOL, Validator
from chaind.store.keys import compose, decompose


def validator(state, operator):
    raw = state.store.get(val_key(operator))
    return None if raw is None else Validator.from_record(raw)


def operator_by_cons(state, cons_address):
    """The operator address of a consensus address, None for one no validator has."""
    return state.store.get(cons_key(cons_address))


def validator_by_cons(state, cons_address):
    operator = operator_by_cons(state, cons_address)
    return None if operator is None else validator(state, operator)


@attrs.frozen
class Summary:
    """What each block's begin blockers read of every validator of the last commit (distribution's allocation,
    slashing's liveness)."""

    operator: bytes
    rate: int           # commission, in atomics
    jailed: bool


def summary_by_cons(state, cons_address):
    """The Summary of the validator with this consensus address, or None.

    A block's context keeps the summaries it read from the parent's state (a view has none): one is used again
    while neither of the keys it was read from is written in the block, so it is what the store would give."""
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


@functools.lru_cache(maxsize=1024)
def _summary_of(record):
    # The same records are read block after block until a validator changes: decode each once.
    v = Validator.from_record(record)
    return Summary(v.operator, v.rate, v.jailed)


def validators(state):
    """Every validator, by operator address."""
    return [Validator.from_record(raw) for _, raw in state.store.iterate(compose("staking", "val"))]


def set_validator(state, v):
    state.store.set(val_key(v.operator), v.to_record())


def remove_validator(state, v):
    state.store.delete(val_key(v.operator))
    state.store.delete(cons_key(v.cons_address))


def delegation(state, delegator, operator):
    """A delegation's shares (atomics), None without one."""
    raw = state.store.get(del_key(delegator, operator))
    return None if raw is None else int(raw)


def delegations_of(state, delegator):
    """[(validator operator, shares)] of a delegator, by validator address."""
    return [(decompose(key)[-1], int(raw)) for key, raw in state.store.iterate(compose("staking", "del", delegator))]


def delegations_to(state, operator):
    """[(delegator, shares)] of a validator, by delegator address."""
    return [(decompose(key)[-1], delegation(state, decompose(key)[-1], operator))
            for key, _ in state.store.iterate(compose("staking", "delv", operator))]


def set_delegation(state, delegator, operator, shares):
    if shares:
        state.store.set(del_key(delegator, operator), str(shares).encode())
        state.store.set(del_by_val_key(operator, delegator), b"")
    else:
        state.store.delete(del_key(delegator, operator))
        state.store.delete(del_by_val_key(operator, delegator))


# Unbonding delegation entries: [creation_height, completion_ns, initial_balance, balance, unbonding_id];
# redelegation entries: [creation_height, completion_ns, initial_balance, shares_dst, unbonding_id].
# Amounts are strings (beyond 64 bits).

def unbonding(state, delegator, operator):
    raw = state.store.get(ubd_key(delegator, operator))
    return [] if raw is None else orjson.loads(raw)


def unbondings_of(state, delegator):
    found = state.store.iterate(compose("staking", "ubd", delegator))
    return [(decompose(key)[-1], orjson.loads(raw)) for key, raw in found]


def unbondings_from(state, operator):
    return [(decompose(key)[-1], unbonding(state, decompose(key)[-1], operator))
            for key, _ in state.store.iterate(compose("staking", "ubdv", operator))]


def set_unbonding(state, delegator, operator, entries):
    if entries:
        state.store.set(ubd_key(delegator, operator), orjson.dumps(entries))
        state.store.set(ubd_by_val_key(operator, delegator), b"")
    else:
        state.store.delete(ubd_key(delegator, operator))
        state.store.delete(ubd_by_val_key(operator, delegator))


def redelegation(state, delegator, src, dst):
    raw = state.store.get(red_key(delegator, src, dst))
    return [] if raw is None else orjson.loads(raw)


def redelegations_of(state, delegator):
    """[(src, dst, entries)] of a delegator."""
    return [(*decompose(key)[-2:], orjson.loads(raw))
            for key, raw in state.store.iterate(compose("staking", "red", delegator))]


def redelegations_from(state, src):
    """[(delegator, dst, entries)] leaving a validator."""
    return [(*decompose(key)[-2:], redelegation(state, decompose(key)[-2], src, decompose(key)[-1]))
            for key, _ in state.store.iterate(compose("staking", "reds", src))]


def set_redelegation(state, delegator, src, dst, entries):
    if entries:
        state.store.set(red_key(delegator, src, dst), orjson.dumps(entries))
        state.store.set(red_by_src_key(src, delegator, dst), b"")
        state.store.set(red_by_dst_key(dst, delegator, src), b"")
    else:
        for key in (red_key(delegator, src, dst), red_by_src_key(src, delegator, dst),
                    red_by_dst_key(dst, delegator, src)):
            state.store.delete(key)


def next_unbonding_id(state):
    raw = state.store.get(UNBONDING_ID)
    number = int(raw) + 1 if raw else 1
    state.store.set(UNBONDING_ID, str(number).encode())
    return number


def last_powers(state):
    """{operator: power} of the bonded set as the last end block left it (LastValidatorPower)."""
    return {decompose(key)[-1]: int(raw) for key, raw in state.store.iterate(compose("staking", "last"))}


def pool_balances(app, state):
    """(not bonded, bonded) tokens: the balances of the two module accounts."""
    denom = params(state).bond_denom
    return app.bank.balance(state, NOT_BONDED_POOL, denom), app.bank.balance(state, BONDED_POOL, denom)
