"""MsgCancelUnbondingDelegation (x/staking v0.50) on a real App: an unbonding entry delegated back in part and
in full, its refusals with the SDK's codes, and distribution's records kept right through it."""


import staking_msgs as m
from chain_driver import ok
from chaind.chain.modules.distribution.invariants import INVARIANTS
from chaind.chain.modules.staking import BONDED_POOL, NOT_BONDED_POOL
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.staking.v1beta1 import tx_pb2
from staking_driver import (
    make_chain,  # noqa: F401 (conftest's `chain` fixture makes this module's chain with it)
    run,
)
from staking_msgs import CHAIN

CANCEL = "/cosmos.staking.v1beta1.MsgCancelUnbondingDelegation"


def cancel(chain, who, operator, amount, height, denom="achain"):
    return CANCEL, tx_pb2.MsgCancelUnbondingDelegation(
        delegator_address=to_bech32(chain.prefix, chain.keys[who].address),
        validator_address=m.valoper(chain.prefix, operator), amount=m.coin(amount, denom), creation_height=height)


def pools(chain):
    view = chain.app.view()
    return tuple(chain.app.keepers["bank"].balance(view, pool, "achain") for pool in (NOT_BONDED_POOL, BONDED_POOL))


def test_cancel_part_then_all_of_an_unbonding_entry(chain):
    me = chain.keys[1].address
    ok(run(chain, [(1, [m.delegate(chain.prefix, me, chain.operator, 100 * CHAIN)])]))
    at = ok(run(chain, [(1, [m.undelegate(chain.prefix, me, chain.operator, 40 * CHAIN)])])).height
    before = pools(chain)
    block = ok(run(chain, [(1, [cancel(chain, 1, chain.operator, 15 * CHAIN, at)])]))
    [event] = [dict((k, v) for k, v, _ in e.attributes) for e in block.results[0].events
               if e.type == "cancel_unbonding_delegation"]
    assert event == {"amount": f"{15 * CHAIN}achain", "validator": m.valoper(chain.prefix, chain.operator),
                     "delegator": to_bech32(chain.prefix, me), "creation_height": str(at)}
    view = chain.app.view()
    [entry] = chain.app.keepers["staking"].unbonding(view, me, chain.operator)
    assert (entry[2], entry[3]) == (str(25 * CHAIN), str(25 * CHAIN))
    v = chain.app.keepers["staking"].validator(view, chain.operator)
    held = chain.app.keepers["staking"].delegation(view, me, chain.operator)
    assert v.tokens_from_shares(held) // 10**18 == 75 * CHAIN
    # Back from the not-bonded pool to the bonded one (the validator is bonded).
    assert pools(chain) == (before[0] - 15 * CHAIN, before[1] + 15 * CHAIN)
    ok(run(chain, [(1, [cancel(chain, 1, chain.operator, 25 * CHAIN, at)])]))
    assert chain.app.keepers["staking"].unbonding(chain.app.view(), me, chain.operator) == []
    for name, check in INVARIANTS:
        assert check(chain.app, chain.app.view()) is None, name


def test_cancel_refusals(chain):
    me = chain.keys[1].address
    ok(run(chain, [(1, [m.delegate(chain.prefix, me, chain.operator, 100 * CHAIN)])]))

    def refused(message):
        result = run(chain, [(1, [message])]).results[0]
        assert result.code != 0
        return result.codespace, result.code, result.log

    codespace, code, log = refused(cancel(chain, 1, chain.operator, CHAIN, 5))
    assert (codespace, code) == ("undefined", 1) and "code = NotFound" in log
    at = ok(run(chain, [(1, [m.undelegate(chain.prefix, me, chain.operator, 10 * CHAIN)])])).height
    held = chain.app.keepers["staking"].delegation(chain.app.view(), me, chain.operator)
    assert refused(cancel(chain, 1, chain.operator, CHAIN, 0))[:2] == ("sdk", 18)
    assert refused(cancel(chain, 1, chain.operator, 0, at))[:2] == ("sdk", 18)
    assert refused(cancel(chain, 1, chain.operator, CHAIN, at, denom="stake"))[:2] == ("sdk", 18)
    assert refused(cancel(chain, 1, chain.operator, CHAIN, at + 100))[:2] == ("sdk", 38)
    assert "greater than the unbonding delegation entry balance" in refused(
        cancel(chain, 1, chain.operator, 11 * CHAIN, at))[2]
    assert refused(cancel(chain, 1, b"\x42" * 20, CHAIN, at))[:2] == ("staking", 3)
    # Nothing moved: the delegation and the entry are as the undelegation left them.
    view = chain.app.view()
    assert chain.app.keepers["staking"].delegation(view, me, chain.operator) == held
    assert chain.app.keepers["staking"].unbonding(view, me, chain.operator)[0][3] == str(10 * CHAIN)
