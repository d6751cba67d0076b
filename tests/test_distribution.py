"""x/distribution driven block by block on a real App: fees to the community pool and the validators of the last
commit, F1 rewards across delegate/undelegate/redelegate, withdrawals paying exactly what the queries promised,
the five messages' refusals (codespace, code, nothing changed), and the module's invariants after every block."""

import random
import types

import staking_msgs as m
from chain_driver import balance, ok
from chaind.chain import legacy_dec
from chaind.chain.modules import distribution, staking
from chaind.chain.modules.auth import FEE_COLLECTOR
from chaind.chain.modules.distribution import dec_coins, keeper
from chaind.chain.modules.distribution.invariants import INVARIANTS
from chaind.chain.modules.distribution.records import ValidatorRewards, added, added_one, bucket_key
from chaind.chain.modules.staking import keys as staking_keys
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.distribution.v1beta1 import tx_pb2
from chaind.store.db import Database
from chaind.store.versioned import VersionedWriter
from staking_driver import (
    make_chain,  # noqa: F401 (conftest's `chain` fixture makes this module's chain with it)
    run,
)
from staking_msgs import CHAIN

ONE = legacy_dec.ONE
WITHDRAW = "/cosmos.distribution.v1beta1.MsgWithdrawDelegatorReward"
COMMISSION = "/cosmos.distribution.v1beta1.MsgWithdrawValidatorCommission"
SET_ADDR = "/cosmos.distribution.v1beta1.MsgSetWithdrawAddress"
FUND = "/cosmos.distribution.v1beta1.MsgFundCommunityPool"
DEPOSIT = "/cosmos.distribution.v1beta1.MsgDepositValidatorRewardsPool"


def step(chain, messages_by_key=()):
    """One block, then every invariant of the module checked on what it committed."""
    block = ok(run(chain, list(messages_by_key)))
    view = chain.app.view()
    for name, check in INVARIANTS:
        assert check(chain.app, view) is None, name
    return block


def withdraw(chain, who, operator):
    return WITHDRAW, tx_pb2.MsgWithdrawDelegatorReward(delegator_address=chain.b32(chain.keys[who].address),
                                                       validator_address=m.valoper(chain.prefix, operator))


def keeper_of(chain):
    return chain.app.keepers["distribution"]


def rewards_now(chain, delegator, operator):
    view = chain.app.view()
    staking = chain.app.keepers["staking"]
    v = staking.validator(view, operator)
    dist = keeper_of(chain)
    ratio, _ = dist.ending_ratio(view, v)
    return dist.delegation_rewards(view, v, delegator, staking.delegation(view, delegator, operator), view.height,
                                   ratio)


def fee_of(block, index=0):
    found = [dict((k, v) for k, v, _ in e.attributes) for e in block.results[index].events if e.type == "tx"]
    return int(next(f["fee"] for f in found if "fee" in f).removesuffix("achain") or 0)


def test_fees_go_to_the_community_pool_and_the_validator_with_its_commission(chain):
    block = step(chain, [(1, [m.delegate(chain.prefix, chain.keys[1].address, chain.operator, 10 * CHAIN)])])
    fee = fee_of(block)
    assert balance(chain, FEE_COLLECTOR) == fee
    allocated = step(chain)
    view = chain.app.view()
    assert balance(chain, FEE_COLLECTOR) == 0
    assert chain.app.keepers["bank"].balance(view, distribution.DISTRIBUTION_ACCOUNT, "achain") == fee
    # 2% community tax; the one validator has all the power: the rest is its, 10% of it commission.
    to_validator = fee * ONE * (ONE - 2 * 10**16) // ONE
    commission = to_validator * 10**17 // ONE
    assert keeper_of(chain).community_pool(view) == {"achain": fee * ONE - to_validator}
    assert keeper_of(chain).outstanding(view, chain.operator) == {"achain": to_validator}
    assert keeper_of(chain).commission(view, chain.operator) == {"achain": commission}
    by_type = {e.type: dict((k, v) for k, v, _ in e.attributes) for e in allocated.events}
    valoper = m.valoper(chain.prefix, chain.operator)
    assert by_type["commission"] == {"amount": f"{legacy_dec.format(commission)}achain", "validator": valoper,
                                     "mode": "BeginBlock"}
    assert by_type["rewards"] == {"amount": f"{legacy_dec.format(to_validator)}achain", "validator": valoper,
                                  "mode": "BeginBlock"}
    # In the SDK's attribute order, FinalizeBlock's mode last; the fee collector's send is marked too.
    assert next(e for e in allocated.events if e.type == "commission").attributes == (
        ("amount", f"{legacy_dec.format(commission)}achain", True), ("validator", valoper, True),
        ("mode", "BeginBlock", True))
    collector = chain.b32(FEE_COLLECTOR)
    sent = [e for e in allocated.events if collector in (v for _, v, _ in e.attributes)]
    assert {e.type for e in sent} == {"coin_spent", "transfer"}
    assert all(e.attributes[-1] == ("mode", "BeginBlock", True) for e in sent)


def test_rewards_split_by_stake_and_a_withdrawal_pays_exactly_what_was_owed(chain):
    delegator = chain.keys[1].address
    self_stake = chain.app.keepers["staking"].validator(chain.app.view(), chain.operator).tokens
    step(chain, [(1, [m.delegate(chain.prefix, delegator, chain.operator, self_stake)])])
    for _ in range(3):    # fees to share: native sends from a third account
        step(chain, [(2, [m.delegate(chain.prefix, chain.keys[2].address, chain.operator, 1)])])
    # Account 2 holds 3 achain of stake beside two equal stakes: the two earn alike, to the last unit.
    mine, operator_own = rewards_now(chain, delegator, chain.operator), rewards_now(chain, chain.operator,
                                                                                     chain.operator)
    assert mine["achain"] > 0 and abs(mine["achain"] - operator_own["achain"]) <= 10**6
    before = balance(chain, delegator)
    expected, _ = dec_coins.truncate(mine)
    block = step(chain, [(1, [withdraw(chain, 1, chain.operator)])])
    # The block's own allocation came first: what it added to the period is paid too.
    paid = [dict((k, v) for k, v, _ in e.attributes) for e in block.results[0].events if e.type == "withdraw_rewards"]
    amount = int(paid[0]["amount"].removesuffix("achain"))
    assert amount >= expected[0][1]
    assert balance(chain, delegator) == before + amount - fee_of(block)
    assert rewards_now(chain, delegator, chain.operator) == {}


def test_rewards_survive_undelegate_and_redelegate(chain):
    delegator = chain.keys[1].address
    second, pubkey = chain.keys[3].address, m.new_consensus_key()[1]
    step(chain, [(3, [m.create(chain.prefix, second, pubkey, 100 * CHAIN)])])
    step(chain, [(1, [m.delegate(chain.prefix, delegator, chain.operator, 50 * CHAIN)])])
    step(chain, [(2, [m.delegate(chain.prefix, chain.keys[2].address, second, 1)])])
    step(chain)
    owed = rewards_now(chain, delegator, chain.operator)["achain"] // ONE
    before = balance(chain, delegator)
    # Undelegating pays what the delegation earned so far (the staking hook withdraws first).
    block = step(chain, [(1, [m.undelegate(chain.prefix, delegator, chain.operator, 20 * CHAIN)])])
    [paid] = [dict((k, v) for k, v, _ in e.attributes) for e in block.results[0].events
              if e.type == "withdraw_rewards"]
    assert int(paid["amount"].removesuffix("achain")) >= owed > 0
    assert balance(chain, delegator) == before + int(paid["amount"].removesuffix("achain")) - fee_of(block)
    step(chain, [(2, [m.delegate(chain.prefix, chain.keys[2].address, second, 1)])])
    block = step(chain, [(1, [m.redelegate(chain.prefix, delegator, chain.operator, second, 30 * CHAIN)])])
    assert [e for e in block.results[0].events if e.type == "withdraw_rewards"]
    assert chain.app.keepers["staking"].delegation(chain.app.view(), delegator, chain.operator) is None
    assert keeper_of(chain).starting_info(chain.app.view(), chain.operator, delegator) is None
    assert keeper_of(chain).starting_info(chain.app.view(), second, delegator) is not None
    step(chain, [(2, [m.delegate(chain.prefix, chain.keys[2].address, second, 1)])])
    step(chain)
    assert rewards_now(chain, delegator, second)["achain"] > 0


def test_commission_withdrawal_and_withdraw_address(chain):
    step(chain, [(1, [m.delegate(chain.prefix, chain.keys[1].address, chain.operator, CHAIN)])])
    step(chain)
    target = chain.keys[5].address
    operator_key = 0
    step(chain, [(operator_key, [(SET_ADDR, tx_pb2.MsgSetWithdrawAddress(
        delegator_address=chain.b32(chain.operator), withdraw_address=chain.b32(target)))])])
    assert keeper_of(chain).withdraw_address(chain.app.view(), chain.operator) == target
    before = balance(chain, target)
    accumulated = keeper_of(chain).commission(chain.app.view(), chain.operator)["achain"]
    block = step(chain, [(operator_key, [(COMMISSION, tx_pb2.MsgWithdrawValidatorCommission(
        validator_address=m.valoper(chain.prefix, chain.operator)))])])
    [event] = [dict((k, v) for k, v, _ in e.attributes) for e in block.results[0].events
               if e.type == "withdraw_commission"]
    amount = int(event["amount"].removesuffix("achain"))
    assert amount >= accumulated // ONE > 0
    assert balance(chain, target) == before + amount
    assert keeper_of(chain).commission(chain.app.view(), chain.operator).get("achain", 0) < ONE


def test_fund_community_pool_and_deposit_validator_rewards_pool(chain):
    pool = keeper_of(chain).community_pool(chain.app.view()).get("achain", 0)
    step(chain, [(1, [(FUND, tx_pb2.MsgFundCommunityPool(depositor=chain.b32(chain.keys[1].address),
                                                         amount=[m.coin(5 * CHAIN)]))])])
    assert keeper_of(chain).community_pool(chain.app.view())["achain"] >= pool + 5 * CHAIN * ONE
    outstanding = keeper_of(chain).outstanding(chain.app.view(), chain.operator).get("achain", 0)
    block = step(chain, [(1, [(DEPOSIT, tx_pb2.MsgDepositValidatorRewardsPool(
        depositor=chain.b32(chain.keys[1].address), validator_address=m.valoper(chain.prefix, chain.operator),
        amount=[m.coin(7 * CHAIN)]))])])
    assert keeper_of(chain).outstanding(chain.app.view(), chain.operator)["achain"] >= outstanding + 7 * CHAIN * ONE
    assert [e for e in block.results[0].events if e.type == "rewards"]


def refused(chain, who, message):
    """A message that fails: its (codespace, code, log), and proof that only the fee moved."""
    view = chain.app.view()
    pool, outstanding = keeper_of(chain).community_pool(view), keeper_of(chain).outstanding(view, chain.operator)
    result = run(chain, [(who, [message])]).results[0]
    assert result.code != 0
    after = chain.app.view()
    # The fee of the failed tx is allocated next block; this block's state holds nothing of the message.
    grown = keeper_of(chain).outstanding(after, chain.operator).get("achain", 0) - outstanding.get("achain", 0)
    assert grown < CHAIN * ONE
    assert keeper_of(chain).community_pool(after).get("achain", 0) - pool.get("achain", 0) < CHAIN * ONE
    return result.codespace, result.code, result.log


def test_refusals_carry_the_sdk_codes_and_change_nothing(chain):
    me = chain.b32(chain.keys[1].address)
    valoper = m.valoper(chain.prefix, chain.operator)
    stranger = m.valoper(chain.prefix, b"\x42" * 20)
    assert refused(chain, 1, withdraw(chain, 1, chain.operator))[:2] == ("distribution", 5)
    assert refused(chain, 1, (WITHDRAW, tx_pb2.MsgWithdrawDelegatorReward(
        delegator_address=me, validator_address=stranger)))[:2] == ("distribution", 6)
    assert refused(chain, 1, (COMMISSION, tx_pb2.MsgWithdrawValidatorCommission(
        validator_address=m.valoper(chain.prefix, chain.keys[1].address))))[:2] == ("distribution", 7)
    blocked = refused(chain, 1, (SET_ADDR, tx_pb2.MsgSetWithdrawAddress(
        delegator_address=me, withdraw_address=chain.b32(distribution.DISTRIBUTION_ACCOUNT))))
    assert blocked[:2] == ("sdk", 4) and "is not allowed to receive external funds" in blocked[2]
    assert refused(chain, 1, (FUND, tx_pb2.MsgFundCommunityPool(depositor=me)))[:2] == ("sdk", 10)
    assert refused(chain, 1, (FUND, tx_pb2.MsgFundCommunityPool(
        depositor=me, amount=[coin_pb2.Coin(denom="achain", amount="-1")])))[:2] == ("sdk", 10)
    poor = refused(chain, 1, (FUND, tx_pb2.MsgFundCommunityPool(depositor=me, amount=[m.coin(10**40)])))
    assert poor[:2] == ("sdk", 5)
    unknown = refused(chain, 1, (DEPOSIT, tx_pb2.MsgDepositValidatorRewardsPool(
        depositor=me, validator_address=stranger, amount=[m.coin(CHAIN)])))
    assert unknown[:2] == ("distribution", 12) and unknown[2].endswith(f"{stranger}: validator does not exist")
    assert keeper_of(chain).withdraw_address(chain.app.view(), chain.keys[1].address) == chain.keys[1].address
    assert valoper


def test_a_removed_validator_pays_its_commission_and_leaves_no_records(chain):
    second, pubkey = chain.keys[3].address, m.new_consensus_key()[1]
    step(chain, [(3, [m.create(chain.prefix, second, pubkey, 100 * CHAIN)])])
    step(chain, [(2, [m.delegate(chain.prefix, chain.keys[2].address, second, 1)])])
    step(chain)
    step(chain, [(2, [m.undelegate(chain.prefix, chain.keys[2].address, second, 1)])])
    step(chain, [(3, [m.undelegate(chain.prefix, second, second, 100 * CHAIN)])])
    # Unbonded after the unbonding time: the end blocker removes it, and distribution forgets it.
    run(chain, [], time_ns=chain.genesis.genesis_time_ns + 22 * 24 * 3600 * 10**9)
    step(chain)
    view = chain.app.view()
    assert chain.app.keepers["staking"].validator(view, second) is None
    assert keeper_of(chain).current_rewards(view, second) is None and keeper_of(chain).outstanding(view, second) == {}
    for name, check in INVARIANTS:
        assert check(chain.app, view) is None, name


def test_wire_of_dec_coins():
    assert dec_coins.to_text({"achain": 15 * 10**17, "stake": 2 * ONE}) == \
        "1.500000000000000000achain,2.000000000000000000stake"
    assert dec_coins.truncate({"achain": 15 * 10**17}) == ([("achain", 1)], {"achain": 5 * 10**17})
    assert dec_coins.mul_dec({"a": 5}, ONE // 2) == {"a": 2}     # 2.5 atomics rounds half to even
    assert to_bech32("chain", b"\0" * 20).startswith("chain1")


def test_the_one_denom_allocation_writes_and_emits_what_the_coin_map_allocation_does(tmp_path):
    """Keeper._allocate_one_denom (each block's loop for a chain's one fee denom) leaves the same records, events
    and total as _allocate over coin maps, over random validator sets, powers, commission rates and prior records,
    a vote of an unknown validator, rewards too small to share among them and commissions that round half to even."""
    db = Database(tmp_path / "db")
    # Staking's keeper reads the validators' summaries only: it needs neither bank nor hooks here, nor
    # distribution's keeper bank or accounts for an allocation's records and events.
    dist = keeper.DistributionKeeper("chain", "achain", None, None,
                                     {"staking": staking.StakingKeeper("chain", None, None)})
    rng = random.Random(16)
    try:
        for round_ in range(60):
            contexts = [types.SimpleNamespace(store=VersionedWriter(db, 1), summaries={}) for _ in range(2)]
            votes = [(rng.randbytes(20), rng.randrange(1, 10**6))]         # no validator has this one
            for _ in range(rng.randrange(1, 12)):
                operator, cons, pubkey = rng.randbytes(20), rng.randbytes(20), rng.randbytes(32)
                rate = rng.choice([0, ONE // 20, ONE // 3, ONE // 2, ONE, rng.randrange(ONE)])
                prior = None
                if rng.random() < 0.5:
                    prior = ValidatorRewards(*({d: rng.randrange(1, 10**30) for d in rng.sample(
                        ["achain", "stake"], rng.randrange(3))} for _ in range(3)), rng.randrange(1, 9))
                for ctx in contexts:
                    ctx.store.set(staking_keys.cons_key(cons), operator)
                    ctx.store.set(staking_keys.val_key(operator), staking.Validator(
                        operator, pubkey, {}, rate, ONE, ONE, 0, 1).to_record())
                    if prior is not None:
                        dist.set_rewards_of(ctx, operator, prior)
                votes.append((cons, rng.randrange(1, 10**6)))
            total = sum(power for _, power in votes)
            share = rng.choice([1, rng.randrange(1, total * ONE), rng.randrange(1, 10**32)])
            mode, general_events, one_events = (("mode", "BeginBlock", True),), [], []
            allocated = dist._allocate_one_denom(contexts[1], votes, total, "achain", share, one_events, mode)
            assert dist._allocate(contexts[0], votes, total, {"achain": share}, general_events, mode) == \
                ({"achain": allocated} if allocated else {})
            assert contexts[0].store.changes == contexts[1].store.changes, round_
            assert general_events == one_events, round_
    finally:
        db.close()


def test_the_validators_records_sit_in_sixteen_buckets_whatever_the_order_of_the_writes(tmp_path):
    """The validators' running records are kept in 16 buckets by the operator's first hex digit: a block's
    allocation to 60 validators writes at most 16 keys, writes in any order leave the same bytes, each validator's
    record reads back, forgetting one leaves its bucket's others, and a bucket left empty is deleted."""
    db = Database(tmp_path / "db")
    rng = random.Random(19)
    dist = keeper.DistributionKeeper("chain", "achain", None, None, {})
    try:
        operators = [rng.randbytes(20) for _ in range(60)]
        records = {o: ValidatorRewards({"achain": rng.randrange(1, 10**30)}, {}, {}, rng.randrange(1, 9))
                   for o in operators}
        first, second = (types.SimpleNamespace(store=VersionedWriter(db, 1)) for _ in range(2))
        for ctx, order in ((first, operators), (second, rng.sample(operators, len(operators)))):
            for operator in order:
                dist.set_rewards_of(ctx, operator, records[operator])
        assert first.store.changes == second.store.changes
        assert len(first.store.changes) == len({o[0] >> 4 for o in operators}) <= 16
        assert all(dist.rewards_of(first, o) == records[o] for o in operators)

        allocated = types.SimpleNamespace(store=VersionedWriter(db, 1))
        dist.add_allocations_one(allocated, "achain", [(o, 1, 3) for o in operators])
        assert len(allocated.store.changes) <= 16
        assert dist.rewards_of(allocated, operators[0]) == ValidatorRewards(
            {"achain": 3}, {"achain": 1}, {"achain": 2}, 1)

        shared = next(o for o in operators if sum(p[0] >> 4 == o[0] >> 4 for p in operators) > 1)
        dist.forget_validator(first, shared)
        assert dist.rewards_of(first, shared) is None
        assert all(dist.rewards_of(first, o) == records[o] for o in operators if o != shared)
        for operator in [o for o in operators if o[0] >> 4 == shared[0] >> 4 and o != shared]:
            dist.forget_validator(first, operator)
        assert first.store.get(bucket_key(shared)) is None
    finally:
        db.close()


def test_a_record_coin_map_plus_coins_is_the_dec_coins_sum():
    """records.added and added_one (an allocation's update of a record's text map, and its one-denom path) write
    what dec_coins' sum of the decoded map writes, over random maps and coins, zero amounts among them."""
    rng = random.Random(15)
    denoms = ["achain", "stake", "zeta"]
    for round_ in range(3000):
        record = {d: str(rng.randrange(1, 10**30)) for d in sorted(rng.sample(denoms, rng.randrange(3)))}
        coins = {d: rng.choice([0, rng.randrange(10**25)]) for d in rng.sample(denoms, rng.randrange(1, 3))}
        expected = dec_coins.to_record(dec_coins.add(dec_coins.from_record(record), coins))
        assert added(record, coins) == expected, round_
        assert list(added(record, coins)) == list(expected), round_
        if len(coins) == 1:
            (denom, amount), = coins.items()
            assert list(added_one(record, denom, amount).items()) == list(expected.items()), round_


def test_an_allocation_writes_what_the_records_round_trip_wrote(tmp_path):
    """DistributionKeeper.add_allocation (one read and write of the validator's record per block) leaves the same
    bytes as reading ValidatorRewards, adding with dec_coins and writing it back, over records of one and several
    denoms."""
    db = Database(tmp_path / "db")
    dist = keeper.DistributionKeeper("chain", "achain", None, None, {})
    try:
        fast = types.SimpleNamespace(store=VersionedWriter(db, 1))
        slow = types.SimpleNamespace(store=VersionedWriter(db, 1))
        rng = random.Random(7)
        denoms = ["achain", "ibc/AB", "stake", "zeta"]
        for round_ in range(300):
            operator = bytes([rng.randrange(6)]) * 20
            tokens = {d: rng.randrange(0, 10**22) for d in rng.sample(denoms, rng.randrange(1, 4))}
            tokens = {d: v for d, v in tokens.items() if v}
            commission = dec_coins.mul_dec(tokens, rng.choice([0, ONE // 20, ONE // 3, ONE]))
            dist.add_allocation(fast, operator, commission, tokens)
            records = dist.rewards_of(slow, operator) or ValidatorRewards()
            records.commission = dec_coins.add(records.commission, commission)
            records.current = dec_coins.add(records.current, dec_coins.sub(tokens, commission))
            records.outstanding = dec_coins.add(records.outstanding, tokens)
            dist.set_rewards_of(slow, operator, records)
            key = bucket_key(operator)
            assert fast.store.get(key) == slow.store.get(key), round_
        # Mostly the one fee denom, the amounts the last allocation wrote taken up again, among other writes of the
        # records (a period ended, the same record written anew) and a second denom now and then.
        for round_ in range(600):
            operator = bytes([10 + rng.randrange(4)]) * 20
            if rng.random() < 0.15:
                records = dist.rewards_of(slow, operator) or ValidatorRewards()
                if rng.random() < 0.5:
                    records.current, records.period = {}, records.period + 1
                for writer in (fast, slow):
                    dist.set_rewards_of(writer, operator, records)
            denom = "achain" if rng.random() < 0.97 else rng.choice(["stake", "ibc/AB"])
            amount = rng.randrange(0, 10**22)
            share = dec_coins.mul_dec_amount(amount, rng.choice([0, ONE // 20, ONE // 3, ONE]))
            dist.add_allocations_one(fast, denom, [(operator, share, amount)])
            records = dist.rewards_of(slow, operator) or ValidatorRewards()
            records.commission = dec_coins.add(records.commission, {denom: share})
            records.current = dec_coins.add(records.current, {denom: amount - share})
            records.outstanding = dec_coins.add(records.outstanding, {denom: amount})
            dist.set_rewards_of(slow, operator, records)
            key = bucket_key(operator)
            assert fast.store.get(key) == slow.store.get(key), round_
        # A record the module wrote another way (a period ended) is updated as well.
        dist.set_rewards_of(fast, b"\x09" * 20, ValidatorRewards({"achain": 5}, {}, {"achain": 2}, 7))
        dist.add_allocation(fast, b"\x09" * 20, {"achain": 1}, {"achain": 4})
        assert dist.rewards_of(fast, b"\x09" * 20) == ValidatorRewards({"achain": 9}, {"achain": 1},
                                                                              {"achain": 5}, 7)
    finally:
        db.close()
