"""x/auth/vesting on a real App block by block: continuous, delayed, periodic and permanently locked accounts;
locked coins refused to bank sends, fees, EVM value transfers and the ERC-20 precompile of a native coin, and
spendable later; delegating locked coins tracked as the SDK tracks it; the SDK's account types and codes."""


import pytest
from eth_account import Account

import staking_msgs
from chain_driver import Chain, LatestQueryContext, balance, ok
from chaind.chain import txs
from chaind.chain.modules import auth
from chaind.chain.modules.auth import vesting
from chaind.chain.modules.bank.query import BankQuery
from chaind.chain.replay import replay_chain
from chaind.crypto.keys import AccountKey
from chaind.pb.cosmos.bank.v1beta1 import query_pb2 as bank_q
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.vesting.v1beta1 import tx_pb2, vesting_pb2
from gov_driver import address, make_chain, run

S = 10**9
CHAIN = 10**18
CREATE = "/cosmos.vesting.v1beta1.MsgCreateVestingAccount"
PERMANENT = "/cosmos.vesting.v1beta1.MsgCreatePermanentLockedAccount"
PERIODIC = "/cosmos.vesting.v1beta1.MsgCreatePeriodicVestingAccount"
SEND = "/cosmos.bank.v1beta1.MsgSend"


def coins(amount, denom="achain"):
    return [coin_pb2.Coin(denom=denom, amount=str(amount))]


def new_key(chain):
    key = AccountKey(bytes(Account.create().key))
    chain.keys.append(key)
    return len(chain.keys) - 1


def now_s(chain):
    return chain.app.head[0].time_ns // S


def create(chain, to, amount, end_time, delayed=False, funder=1):
    return CREATE, tx_pb2.MsgCreateVestingAccount(
        from_address=chain.b32(address(chain, funder)), to_address=chain.b32(to), amount=coins(amount),
        end_time=end_time, delayed=delayed)


def send(chain, sender, to, amount):
    return SEND, bank_tx.MsgSend(from_address=chain.b32(sender), to_address=chain.b32(to), amount=coins(amount))


def test_a_continuous_vesting_account_cannot_send_locked_coins_and_later_can(chain):
    who = new_key(chain)
    me = address(chain, who)
    start = now_s(chain) + 1            # the creating block's time
    block = ok(run(chain, [(1, [create(chain, me, 100 * CHAIN, start + 100)])]))
    assert block.results[0].code == 0
    url, account = chain.app.keepers["auth"].vesting_account(chain.app.view(), me)
    assert url == vesting.CONTINUOUS and account.start_time == start
    assert account.base_vesting_account.end_time == start + 100
    assert vesting.coins(account.base_vesting_account.original_vesting) == {"achain": 100 * CHAIN}
    # 10 s in: 10% vested; fees come out of that.
    view_time = start + 10
    chain.clock = view_time * S - S
    block = run(chain, [(who, [send(chain, me, b"\x21" * 20, 50 * CHAIN)])])
    r = block.results[0]
    assert (r.codespace, r.code) == ("sdk", 5) and "spendable balance" in r.log, r.log
    assert balance(chain, b"\x21" * 20) == 0
    ok(run(chain, [(who, [send(chain, me, b"\x21" * 20, 5 * CHAIN)])]))
    assert balance(chain, b"\x21" * 20) == 5 * CHAIN
    # SpendableBalances answers what is free at the head's time.
    spendable = BankQuery(chain.app).SpendableBalances(bank_q.QuerySpendableBalancesRequest(
        address=chain.b32(me)), LatestQueryContext())
    locked = vesting.locked(url, account, now_s(chain))["achain"]
    assert int(spendable.balances[0].amount) == balance(chain, me) - locked
    # After the end everything is free.
    block = ok(run(chain, [(who, [send(chain, me, b"\x21" * 20, 90 * CHAIN)])], after_s=100))
    assert balance(chain, b"\x21" * 20) == 95 * CHAIN


def test_the_vesting_account_answers_in_the_sdks_type_and_refuses_a_second_creation(chain):
    who = new_key(chain)
    me = address(chain, who)
    ok(run(chain, [(1, [create(chain, me, 10 * CHAIN, now_s(chain) + 50, delayed=True)])]))
    found = chain.app.keepers["auth"].account_any(chain.app.view(), me)
    assert found.type_url == "/cosmos.vesting.v1beta1.DelayedVestingAccount"
    decoded = vesting_pb2.DelayedVestingAccount.FromString(found.value)
    assert decoded.base_vesting_account.base_account.address == chain.b32(me)
    # The acc store (the app hash) holds the same Any.
    block = run(chain, [(1, [create(chain, me, 1, now_s(chain) + 50)])])
    r = block.results[0]
    assert (r.codespace, r.code) == ("sdk", 18) and f"account {chain.b32(me)} already exists" in r.log
    # A delayed account's coins are all locked until the end: not even a fee is paid from them.
    ok(run(chain, [(1, [send(chain, address(chain, 1), me, CHAIN)])]))
    block = run(chain, [(who, [send(chain, me, b"\x22" * 20, 2 * CHAIN)])])
    assert block.results[0].code == 5
    # Its signing key is recorded with the schedule kept.
    assert chain.app.keepers["auth"].vesting_account(chain.app.view(), me)[0] == vesting.DELAYED


def test_bad_creations_are_refused_with_the_sdks_codes(chain):
    to = b"\x23" * 20
    cases = [
        (create(chain, to, 10, 0), ("sdk", 18, "invalid end time")),
        (create(chain, to, 0, now_s(chain) + 5), ("sdk", 10, "invalid coins")),
        ((PERIODIC, tx_pb2.MsgCreatePeriodicVestingAccount(
            from_address=chain.b32(address(chain, 1)), to_address=chain.b32(to), start_time=0)),
         ("sdk", 18, "invalid start time of 0")),
        ((PERIODIC, tx_pb2.MsgCreatePeriodicVestingAccount(
            from_address=chain.b32(address(chain, 1)), to_address=chain.b32(to), start_time=5,
            vesting_periods=[vesting_pb2.Period(length=0, amount=coins(1))])), ("sdk", 18, "invalid period length")),
        (create(chain, address(chain, 2), 10, now_s(chain) + 5), ("sdk", 18, "already exists")),
        (create(chain, auth.FEE_COLLECTOR, 10, now_s(chain) + 5), ("sdk", 4, "is not allowed to receive funds")),
    ]
    for message, (codespace, code, text) in cases:
        r = run(chain, [(1, [message])]).results[0]
        assert (r.codespace, r.code) == (codespace, code) and text in r.log, r.log
    assert chain.app.keepers["auth"].account(chain.app.view(), to) is None


def test_periodic_and_permanent_accounts(chain):
    periodic, permanent = new_key(chain), new_key(chain)
    start = now_s(chain) + 1
    periods = [vesting_pb2.Period(length=10, amount=coins(4 * CHAIN)),
               vesting_pb2.Period(length=10, amount=coins(6 * CHAIN))]
    ok(run(chain, [(1, [(PERIODIC, tx_pb2.MsgCreatePeriodicVestingAccount(
        from_address=chain.b32(address(chain, 1)), to_address=chain.b32(address(chain, periodic)),
        start_time=start, vesting_periods=periods)),
        (PERMANENT, tx_pb2.MsgCreatePermanentLockedAccount(
            from_address=chain.b32(address(chain, 1)), to_address=chain.b32(address(chain, permanent)),
            amount=coins(5 * CHAIN)))])]))
    url, account = chain.app.keepers["auth"].vesting_account(chain.app.view(), address(chain, periodic))
    assert url == vesting.PERIODIC and account.base_vesting_account.end_time == start + 20
    assert vesting.locked(url, account, start + 9) == {"achain": 10 * CHAIN}
    assert vesting.locked(url, account, start + 10) == {"achain": 6 * CHAIN}
    assert vesting.locked(url, account, start + 20) == {}
    url, account = chain.app.keepers["auth"].vesting_account(chain.app.view(), address(chain, permanent))
    assert url == vesting.PERMANENT and vesting.locked(url, account, 2**40) == {"achain": 5 * CHAIN}
    # The permanent account gets some free coins: it pays fees and sends those, not the locked ones.
    ok(run(chain, [(1, [send(chain, address(chain, 1), address(chain, permanent), CHAIN)])]))
    r = run(chain, [(permanent, [send(chain, address(chain, permanent), b"\x24" * 20, 2 * CHAIN)])]).results[0]
    assert r.code == 5
    ok(run(chain, [(permanent, [send(chain, address(chain, permanent), b"\x24" * 20, CHAIN // 2)])]))


def test_locked_coins_can_be_delegated_and_are_tracked(chain):
    who = new_key(chain)
    me = address(chain, who)
    operator = chain.genesis.validators[0].operator
    ok(run(chain, [(1, [create(chain, me, 100 * CHAIN, now_s(chain) + 10_000)])]))
    ok(run(chain, [(1, [send(chain, address(chain, 1), me, CHAIN)])]))       # free coins for the fees
    ok(run(chain, [(who, [staking_msgs.delegate(chain.prefix, me, operator, 60 * CHAIN)])]))
    url, account = chain.app.keepers["auth"].vesting_account(chain.app.view(), me)
    base = account.base_vesting_account
    assert vesting.coins(base.delegated_vesting) == {"achain": 60 * CHAIN}
    assert vesting.coins(base.delegated_free) == {}
    # The delegated coins count against the locked ones: what is left locked is what is still held.
    locked = vesting.locked(url, account, now_s(chain))["achain"]
    assert locked <= 40 * CHAIN
    ok(run(chain, [(who, [staking_msgs.undelegate(chain.prefix, me, operator, 60 * CHAIN)])]))


def test_an_evm_value_transfer_of_locked_coins_is_refused(chain):
    who = new_key(chain)
    me = address(chain, who)
    ok(run(chain, [(1, [create(chain, me, 100 * CHAIN, now_s(chain) + 10_000)])]))
    transfer = chain.evm(who, 0, to=b"\x25" * 20, value=50 * CHAIN)
    with pytest.raises(Exception) as e:
        chain.app.check_tx(transfer)
    assert e.value.code == 5 and "insufficient funds for gas * price + value" in e.value.evm_message
    chain.clock += S
    block, puts = chain.app.finalize_block([transfer], chain.clock, b"\x01" * 20)
    chain.app.commit(block, puts)
    assert block.results[0].code == 5 and balance(chain, b"\x25" * 20) == 0
    # With free coins beside the locked ones, a transfer within the free part goes through.
    ok(run(chain, [(1, [send(chain, address(chain, 1), me, 2 * CHAIN)])]))
    small = chain.evm(who, 0, to=b"\x25" * 20, value=CHAIN)
    chain.clock += S
    block, puts = chain.app.finalize_block([small], chain.clock, b"\x01" * 20)
    chain.app.commit(block, puts)
    assert block.results[0].code == 0 and block.results[0].receipt.status == 1
    assert balance(chain, b"\x25" * 20) == CHAIN
    assert txs is not None


def test_the_base_denoms_erc20_refuses_locked_coins(tmp_path):
    """The base denom's ERC-20 precompile (the dev chain's WERC20, as Evmos' WEVMOS): a transfer of locked coins
    through it reverts, one within the free coins goes through."""
    token = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE"
    chain = Chain(tmp_path, "db")
    chain.prefix, chain.clock = chain.genesis.bech32_prefix, chain.genesis.genesis_time_ns
    run(chain, [])
    try:
        who = new_key(chain)
        me = address(chain, who)
        ok(run(chain, [(1, [create(chain, me, 100 * CHAIN, now_s(chain) + 10_000)])]))
        ok(run(chain, [(1, [send(chain, address(chain, 1), me, 2 * CHAIN)])]))

        def transfer(nonce, amount):
            data = bytes.fromhex("a9059cbb") + bytes(12) + b"\x26" * 20 + amount.to_bytes(32, "big")
            raw = chain.evm(who, nonce, to=bytes.fromhex(token[2:]), data=data)
            chain.clock += S
            block, puts = chain.app.finalize_block([raw], chain.clock, b"\x01" * 20)
            chain.app.commit(block, puts)
            return block.results[0]

        assert transfer(0, 50 * CHAIN).receipt.status == 0
        assert balance(chain, b"\x26" * 20) == 0
        assert transfer(1, CHAIN).receipt.status == 1
        assert balance(chain, b"\x26" * 20) == CHAIN
    finally:
        chain.close()


def test_locked_coins_pay_no_fee_in_check_tx_or_in_a_block(chain):
    who = new_key(chain)
    me = address(chain, who)
    ok(run(chain, [(1, [create(chain, me, 10 * CHAIN, now_s(chain) + 1000, delayed=True)])]))
    raw = chain.native(chain.keys[who], [send(chain, me, b"\x27" * 20, 1)])
    with pytest.raises(Exception) as e:
        chain.app.check_tx(raw)
    assert (e.value.codespace, e.value.code) == ("sdk", 5) and "insufficient funds to pay fee" in e.value.log
    r = run(chain, [(who, [send(chain, me, b"\x27" * 20, 1)])]).results[0]
    assert (r.codespace, r.code) == ("sdk", 5)
    # Nothing changed: no sequence used, no fee taken.
    assert chain.app.view().accounts.get_nonce(me) == 0 and balance(chain, me) == 10 * CHAIN


def test_delegation_tracking_follows_the_sdks_formulas():
    account = vesting_pb2.ContinuousVestingAccount(
        base_vesting_account=vesting_pb2.BaseVestingAccount(original_vesting=coins(100), end_time=200), start_time=100)
    url = vesting.CONTINUOUS
    # Half vested at 150: 50 vesting. Delegating 70 of a balance of 100: 50 from the vesting, 20 free.
    vesting.track_delegation(url, account, {"achain": 100}, {"achain": 70}, 150)
    base = account.base_vesting_account
    assert vesting.coins(base.delegated_vesting) == {"achain": 50}
    assert vesting.coins(base.delegated_free) == {"achain": 20}
    assert vesting.locked(url, account, 150) == {}
    # Undelegating 30: the free delegation returns first (20), then 10 of the vesting one.
    vesting.track_undelegation(account, {"achain": 30})
    assert vesting.coins(base.delegated_free) == {} and vesting.coins(base.delegated_vesting) == {"achain": 40}
    assert vesting.locked(url, account, 150) == {"achain": 10}
    # 33 s of 100: LegacyDec 0.33 x 100.
    assert vesting.vested(url, account, 133) == {"achain": 33}
    assert vesting.vested(url, account, 100) == {} and vesting.vested(url, account, 200) == {"achain": 100}


def test_replay_reproduces_the_app_hashes_of_vesting_accounts(tmp_path):
    chain = make_chain(tmp_path)
    try:
        who = new_key(chain)
        me = address(chain, who)
        operator = chain.genesis.validators[0].operator
        ok(run(chain, [(1, [create(chain, me, 100 * CHAIN, now_s(chain) + 30)])]))
        ok(run(chain, [(1, [send(chain, address(chain, 1), me, CHAIN)])]))
        ok(run(chain, [(who, [staking_msgs.delegate(chain.prefix, me, operator, 60 * CHAIN)])]))
        run(chain, [(who, [send(chain, me, b"\x28" * 20, 30 * CHAIN)])])
        ok(run(chain, [(who, [send(chain, me, b"\x28" * 20, 30 * CHAIN)])], after_s=40))
        report = replay_chain(chain.app, tmp_path / "replayed.db", chain.app.options.vote_key,
                              chain.app.options.validator_address)
        assert report.ok and report.last_height == chain.app.height, str(report.mismatch)
    finally:
        chain.close()
