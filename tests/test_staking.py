"""x/staking driven block by block on a real App: each message, its failures, the end blocker's validator
updates and the validator set they make from height H+2 (header hashes, commits with absent signers)."""

import hashlib
import random

import attrs
import pytest
from google.protobuf import any_pb2, wrappers_pb2

import staking_msgs as m
from chain_driver import ok
from chaind.chain import errors, legacy_dec, valset, votes
from chaind.chain.block import BlockId
from chaind.chain.modules import staking
from chaind.chain.modules.staking import BONDED, BONDED_POOL, NOT_BONDED_POOL, UNBONDED, UNBONDING
from chaind.chain.modules.staking import keys as staking_keys
from chaind.pb.cosmos.base.abci.v1beta1 import abci_pb2
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.staking.v1beta1 import staking_pb2, tx_pb2
from chaind.store import keys as store_keys
from staking_driver import make_chain, run
from staking_msgs import CHAIN

DAY = 24 * 3600 * 10**9


def failure(chain, who, msg):
    result = run(chain, [(who, [msg])]).results[0]
    assert result.code != 0
    return result.codespace, result.code, result.log


def events(result, type_):
    return [dict((k, v) for k, v, _ in e.attributes) for e in result.events if e.type == type_]


def power_of(chain, operator):
    v = chain.app.keepers["staking"].validator(chain.app.view(), operator)
    return v.power


def test_genesis_validator_is_bonded_with_its_tokens_in_the_bonded_pool(chain):
    view = chain.app.view()
    [v] = chain.app.keepers["staking"].validators(view)
    gv = chain.genesis.validators[0]
    assert (v.operator, v.pubkey, v.status, v.tokens, v.power) == (gv.operator, gv.consensus_pubkey, BONDED,
                                                                     1000 * CHAIN, 1000)
    assert chain.app.keepers["staking"].delegation(view, gv.operator, gv.operator) == v.shares == 1000 * CHAIN * 10**18
    assert chain.app.keepers["staking"].pool_balances(view) == (0, 1000 * CHAIN)
    # Minted into the pool: the supply counts it beside the dev accounts' balances.
    dev_total = sum(a for _, coins in chain.genesis.balances for d, a in coins if d == "achain")
    assert chain.app.keepers["bank"].supply(view, "achain") == dev_total + 1000 * CHAIN
    assert chain.app.keepers["staking"].last_powers(view) == {gv.operator: 1000}
    [sv] = chain.app.validator_set(1)
    assert (sv.pubkey, sv.power, sv.address) == (gv.consensus_pubkey, 1000,
                                                 hashlib.sha256(gv.consensus_pubkey).digest()[:20])
    header, _ = chain.app.block_at(1)
    assert header.validators_hash == header.next_validators_hash == valset.hash_of([sv])


def test_delegate_changes_the_set_from_two_heights_later(chain):
    before = chain.app.validators_hash(chain.app.height + 1)
    balance = chain.app.keepers["bank"].balance(chain.app.view(), chain.keys[1].address, "achain")
    block = ok(run(chain, [(1, [m.delegate(chain.prefix, chain.keys[1].address, chain.operator, 500 * CHAIN)])]))
    h = block.height
    [delegated] = events(block.results[0], "delegate")
    assert delegated == {"validator": m.valoper(chain.prefix, chain.operator),
                         "delegator": chain.b32(chain.keys[1].address), "amount": f"{500 * CHAIN}achain",
                         "new_shares": f"{500 * CHAIN}.000000000000000000"}
    assert {"receiver": chain.b32(BONDED_POOL), "amount": f"{500 * CHAIN}achain"} in \
        events(block.results[0], "coin_received")
    pubkey = chain.genesis.validators[0].consensus_pubkey
    assert block.validator_updates == ((pubkey, 1500),)
    view = chain.app.view()
    fee = 200000 * block.meta.base_fee
    assert chain.app.keepers["bank"].balance(view, chain.keys[1].address, "achain") == balance - 500 * CHAIN - fee
    assert chain.app.keepers["staking"].pool_balances(view) == (0, 1500 * CHAIN)
    # Updates of block H: header H+1 announces them (next_validators_hash), header H+2 is signed by them.
    assert block.header.validators_hash == block.header.next_validators_hash == before
    nxt = ok(run(chain, []))
    assert nxt.header.validators_hash == before != nxt.header.next_validators_hash
    after = ok(run(chain, []))
    assert after.header.validators_hash == nxt.header.next_validators_hash == valset.hash_of(
        [valset.SetValidator(hashlib.sha256(pubkey).digest()[:20], pubkey, 1500)])
    assert [v.power for v in chain.app.validator_set(h + 1)] == [1000]
    assert [v.power for v in chain.app.validator_set(h + 2)] == [1500]
    assert chain.app.finalize_info(h)[1] == ((pubkey, 1500),)
    assert not nxt.validator_updates and not after.validator_updates


def test_undelegate_moves_tokens_out_and_returns_them_after_the_unbonding_time(tmp_path):
    chain = make_chain(tmp_path, unbonding_time="5s")
    who = chain.keys[1].address
    ok(run(chain, [(1, [m.delegate(chain.prefix, who, chain.operator, 500 * CHAIN)])]))
    block = ok(run(chain, [(1, [m.undelegate(chain.prefix, who, chain.operator, 200 * CHAIN)])]))
    [unbond] = events(block.results[0], "unbond")
    completion = block.header.time_ns + 5 * 10**9
    assert unbond["amount"] == f"{200 * CHAIN}achain" and unbond["completion_time"].endswith("Z")
    response = tx_pb2.MsgUndelegateResponse()
    abci_pb2.TxMsgData.FromString(block.results[0].data).msg_responses[0].Unpack(response)
    assert response.amount.amount == str(200 * CHAIN) and response.completion_time.ToNanoseconds() == completion
    assert block.validator_updates[0][1] == 1300
    view = chain.app.view()
    assert chain.app.keepers["staking"].pool_balances(view) == (200 * CHAIN, 1300 * CHAIN)
    [entry] = chain.app.keepers["staking"].unbonding(view, who, chain.operator)
    assert entry[:4] == [block.height, completion, str(200 * CHAIN), str(200 * CHAIN)]
    balance = chain.app.keepers["bank"].balance(view, who, "achain")
    done = ok(run(chain, [], time_ns=completion - 10**9))
    assert not [e for e in done.events if e.type == "complete_unbonding"]
    done = ok(run(chain, [], time_ns=completion))
    [complete] = [dict((k, v) for k, v, _ in e.attributes) for e in done.events if e.type == "complete_unbonding"]
    assert complete == {"amount": f"{200 * CHAIN}achain", "validator": m.valoper(chain.prefix, chain.operator),
                        "delegator": chain.b32(who)}
    view = chain.app.view()
    assert chain.app.keepers["bank"].balance(view, who, "achain") == balance + 200 * CHAIN
    assert chain.app.keepers["staking"].unbonding(view, who, chain.operator) == []
    assert chain.app.keepers["staking"].pool_balances(view) == (0, 1300 * CHAIN)
    chain.close()


def test_a_created_validator_joins_the_set_and_shows_as_absent_in_commits(chain):
    _, pubkey = m.new_consensus_key()
    operator = chain.keys[2].address
    block = ok(run(chain, [(2, [m.create(chain.prefix, operator, pubkey, 300 * CHAIN)])]))
    [created] = events(block.results[0], "create_validator")
    assert created == {"validator": m.valoper(chain.prefix, operator), "amount": f"{300 * CHAIN}achain"}
    v = chain.app.keepers["staking"].validator(chain.app.view(), operator)
    # Bonded by the same block's end blocker: its tokens went to the not-bonded pool, then across.
    assert v.status == BONDED and v.power == 300 and v.description["moniker"] == "second"
    assert {"receiver": chain.b32(NOT_BONDED_POOL), "amount": f"{300 * CHAIN}achain"} in \
        events(block.results[0], "coin_received")
    # The end blocker's transfer (the begin blocker's is distribution's, from the fee collector).
    transfer = [dict((k, v) for k, v, _ in e.attributes) for e in block.events
                if e.type == "transfer" and ("mode", "BeginBlock", True) not in e.attributes]
    assert transfer == [{"recipient": chain.b32(BONDED_POOL), "sender": chain.b32(NOT_BONDED_POOL),
                         "amount": f"{300 * CHAIN}achain"}]
    assert block.validator_updates == ((pubkey, 300),)
    h = block.height
    ok(run(chain, []))
    two_later = ok(run(chain, []))
    ours = chain.app.options.validator_address
    the_set = chain.app.validator_set(h + 2)
    assert [(x.address, x.power) for x in the_set] == [(ours, 1000), (valset.address_of(pubkey), 300)]
    assert two_later.header.validators_hash == valset.hash_of(the_set)
    bid = BlockId(b"\x01" * 32, 1, b"\x02" * 32)
    sigs = chain.app.precommit_sigs(h + 2, bid, two_later.header.time_ns)
    assert [s.block_id_flag for s in sigs] == [votes.BLOCK_ID_FLAG_COMMIT, votes.BLOCK_ID_FLAG_ABSENT]
    assert sigs[0].validator_address == ours and sigs[1].validator_address == b"" and not sigs[1].signature
    assert sigs[1].timestamp.seconds == votes.GO_ZERO_TIME_SECONDS
    chain.app.options.vote_key.public_key().verify(sigs[0].signature, votes.sign_bytes(
        chain.genesis.chain_id, h + 2, 0, bid, two_later.header.time_ns))
    # The next header hashes the two-signature commit.
    following = ok(run(chain, []))
    assert following.header.last_commit_hash == votes.commit_hash(chain.app.commit_sigs(following.header))
    assert len(chain.app.commit_sigs(following.header)) == 2


def test_redelegation_moves_power_between_validators(tmp_path):
    chain = make_chain(tmp_path, unbonding_time="5s")
    _, pubkey = m.new_consensus_key()
    second, who = chain.keys[2].address, chain.keys[1].address
    ok(run(chain, [(2, [m.create(chain.prefix, second, pubkey, 300 * CHAIN)]),
                   (1, [m.delegate(chain.prefix, who, chain.operator, 100 * CHAIN)])]))
    block = ok(run(chain, [(1, [m.redelegate(chain.prefix, who, chain.operator, second, 40 * CHAIN)])]))
    [red] = events(block.results[0], "redelegate")
    assert red["source_validator"] == m.valoper(chain.prefix, chain.operator)
    assert red["destination_validator"] == m.valoper(chain.prefix, second) and red["amount"] == f"{40 * CHAIN}achain"
    assert sorted(p for _, p in block.validator_updates) == [340, 1060]
    view = chain.app.view()
    [(src, dst, entries)] = chain.app.keepers["staking"].redelegations_of(view, who)
    assert (src, dst, entries[0][2]) == (chain.operator, second, str(40 * CHAIN))
    assert chain.app.keepers["staking"].delegation(view, who, second) == 40 * CHAIN * 10**18
    # Both bonded: no tokens leave the bonded pool.
    assert chain.app.keepers["staking"].pool_balances(view) == (0, 1400 * CHAIN)
    # From the validator that just received a redelegation: transitive, refused.
    assert failure(chain, 1, m.redelegate(chain.prefix, who, second, chain.operator, CHAIN))[:2] == ("staking", 32)
    assert failure(chain, 1, m.redelegate(chain.prefix, who, second, second, CHAIN))[:2] == ("staking", 29)
    done = ok(run(chain, [], time_ns=entries[0][1]))
    assert [e.type for e in done.events].count("complete_redelegation") == 1
    assert chain.app.keepers["staking"].redelegations_of(chain.app.view(), who) == []
    # Once complete, the way back is open.
    ok(run(chain, [(1, [m.redelegate(chain.prefix, who, second, chain.operator, 10 * CHAIN)])]))
    chain.close()


def test_edit_validator_description_commission_and_min_self_delegation(chain):
    start = chain.app.head[0].time_ns
    block = ok(run(chain, [(0, [m.edit(chain.prefix, chain.operator, moniker="renamed")])]))
    [edited] = events(block.results[0], "edit_validator")
    assert edited == {"commission_rate": "0.100000000000000000", "min_self_delegation": "1"}
    v = chain.app.keepers["staking"].validator(chain.app.view(), chain.operator)
    assert v.description["moniker"] == "renamed" and v.rate == 10**17
    # Within 24 hours of the genesis commission: refused.
    assert failure(chain, 0, m.edit(chain.prefix, chain.operator, rate=11 * 10**16))[:2] == ("staking", 12)
    later = start + 2 * DAY
    too_far = run(chain, [(0, [m.edit(chain.prefix, chain.operator, rate=13 * 10**16)])], time_ns=later)
    assert (too_far.results[0].codespace, too_far.results[0].code) == ("staking", 15)
    ok(run(chain, [(0, [m.edit(chain.prefix, chain.operator, rate=11 * 10**16, min_self=str(5 * CHAIN))])],
           time_ns=later + 10**9))
    v = chain.app.keepers["staking"].validator(chain.app.view(), chain.operator)
    assert v.rate == 11 * 10**16 and v.min_self_delegation == 5 * CHAIN
    assert failure(chain, 0, m.edit(chain.prefix, chain.operator, min_self=str(CHAIN)))[:2] == ("staking", 17)
    assert failure(chain, 0, m.edit(chain.prefix, chain.operator, min_self=str(10**4 * CHAIN)))[:2] == \
        ("staking", 16)


def test_message_failures_give_the_sdk_codes_and_change_nothing(chain):
    p, op, who = chain.prefix, chain.operator, chain.keys[1].address
    _, pubkey = m.new_consensus_key()
    nobody = bytes([0x77]) * 20
    genesis_key = chain.genesis.validators[0].consensus_pubkey
    before = chain.app.keepers["staking"].validators(chain.app.view())
    secp256k1 = any_pb2.Any(type_url="/cosmos.crypto.secp256k1.PubKey", value=b"\x0a\x21" + b"\x02" * 33)
    cases = [     # (signer, message, (codespace, code, log))
        (1, m.delegate(p, who, nobody, CHAIN), ("staking", 3, "validator does not exist")),
        (1, m.delegate(p, who, op, CHAIN, denom="stake"),
         ("sdk", 18, "invalid coin denomination: got stake, expected achain: invalid request")),
        (1, m.delegate(p, who, op, 0), ("sdk", 18, "invalid delegation amount: invalid request")),
        (1, m.delegate(p, who, op, 10**9 * CHAIN), ("sdk", 5, None)),
        (1, m.undelegate(p, who, op, CHAIN), ("staking", 19, "no delegation for (address, validator) tuple")),
        (0, m.undelegate(p, op, op, 2000 * CHAIN), ("sdk", 18, "invalid shares amount: invalid request")),
        (1, m.redelegate(p, who, op, nobody, CHAIN), ("staking", 3, "validator does not exist")),
        (0, m.create(p, op, pubkey, CHAIN),
         ("staking", 4, "validator already exist for this operator address; must use new validator operator address")),
        (1, m.create(p, who, genesis_key, CHAIN),
         ("staking", 5, "validator already exist for this pubkey; must use new validator pubkey")),
        (1, m.create(p, who, pubkey, CHAIN, rate=3 * 10**17),
         ("staking", 11, "commission cannot be more than the max rate")),
        (1, m.create(p, who, pubkey, CHAIN, max_rate=2 * 10**18),
         ("staking", 10, "commission cannot be more than 100%")),
        (1, m.create(p, who, pubkey, CHAIN, min_self=str(2 * CHAIN)),
         ("staking", 16, "validator's self delegation must be greater than their minimum self delegation")),
        (1, m.create(p, who, pubkey, CHAIN, min_self="0"),
         ("sdk", 18, "minimum self delegation must be a positive integer: invalid request")),
        (1, m.create(p, who, pubkey, CHAIN, moniker=""), ("sdk", 18, "empty description: invalid request")),
        (1, m.create(p, who, pubkey, CHAIN, moniker="x" * 71),
         ("sdk", 18, "invalid moniker length; got: 71, max: 70: invalid request")),
        (1, m.create(p, who, pubkey, CHAIN, pubkey_any=secp256k1),
         ("staking", 6, "got: secp256k1, expected: [ed25519]: validator pubkey type is not supported")),
        (1, m.create(p, who, pubkey, CHAIN, denom="stake"),
         ("sdk", 18, "invalid coin denomination: got stake, expected achain: invalid request")),
    ]
    for signer, msg, (codespace, code, log) in cases:
        got = failure(chain, signer, msg)
        assert got[:2] == (codespace, code), (msg[0], got)
        if log is not None:
            assert got[2] == f"failed to execute message; message index: 0: {log}", got
    assert chain.app.keepers["staking"].validators(chain.app.view()) == before


def test_check_tx_wants_the_delegator_to_sign(chain):
    raw = chain.native(chain.keys[2], [m.delegate(chain.prefix, chain.keys[1].address, chain.operator, CHAIN)])
    with pytest.raises(errors.TxError) as raised:
        chain.app.check_tx(raw)
    assert raised.value.code == 8 and "pubKey does not match signer address" in raised.value.log
    bad = tx_pb2.MsgDelegate(delegator_address="chain1nope", validator_address="x", amount=m.coin(1))
    with pytest.raises(errors.TxError) as raised:
        chain.app.check_tx(chain.native(chain.keys[1], [(m.DELEGATE, bad)]))
    assert raised.value.code == 7


def test_max_validators_keeps_the_strongest(tmp_path):
    chain = make_chain(tmp_path, max_validators=1)
    _, pubkey = m.new_consensus_key()
    second = chain.keys[2].address
    genesis_key = chain.genesis.validators[0].consensus_pubkey
    block = ok(run(chain, [(2, [m.create(chain.prefix, second, pubkey, 300 * CHAIN)])]))
    assert block.validator_updates == ()
    assert chain.app.keepers["staking"].validator(chain.app.view(), second).status == UNBONDED
    assert chain.app.keepers["staking"].pool_balances(chain.app.view()) == (300 * CHAIN, 1000 * CHAIN)
    block = ok(run(chain, [(2, [m.delegate(chain.prefix, second, second, 800 * CHAIN)])]))
    assert block.validator_updates == ((pubkey, 1100), (genesis_key, 0))
    view = chain.app.view()
    old = chain.app.keepers["staking"].validator(view, chain.operator)
    assert old.status == UNBONDING and old.unbonding_height == block.height
    assert chain.app.keepers["staking"].pool_balances(view) == (1000 * CHAIN, 1100 * CHAIN)
    ok(run(chain, []))
    ok(run(chain, []))
    assert [v.pubkey for v in chain.app.validator_set(block.height + 2)] == [pubkey]
    # Out of the set: our validator no longer signs; its commit is one absent signature.
    sigs = chain.app.precommit_sigs(block.height + 2, BlockId(), 0)
    assert [s.block_id_flag for s in sigs] == [votes.BLOCK_ID_FLAG_ABSENT]
    chain.close()


def test_an_operator_below_its_minimum_is_jailed_and_leaves_the_set(tmp_path):
    chain = make_chain(tmp_path, unbonding_time="5s")
    _, pubkey = m.new_consensus_key()
    second = chain.keys[2].address
    ok(run(chain, [(2, [m.create(chain.prefix, second, pubkey, 300 * CHAIN, min_self=str(100 * CHAIN))])]))
    block = ok(run(chain, [(2, [m.undelegate(chain.prefix, second, second, 250 * CHAIN)])]))
    assert block.validator_updates == ((pubkey, 0),)
    v = chain.app.keepers["staking"].validator(chain.app.view(), second)
    assert v.jailed and v.status == UNBONDING and v.tokens == 50 * CHAIN
    # Its unbonding ends: unbonded, still there (shares remain).
    ok(run(chain, [], time_ns=v.unbonding_time_ns))
    assert chain.app.keepers["staking"].validator(chain.app.view(), second).status == UNBONDED
    # The last shares leave: an unbonded validator without shares is removed.
    ok(run(chain, [(2, [m.undelegate(chain.prefix, second, second, 50 * CHAIN)])]))
    assert chain.app.keepers["staking"].validator(chain.app.view(), second) is None
    chain.close()


def test_max_entries_bounds_unbonding_entries(tmp_path):
    chain = make_chain(tmp_path, max_entries=2)
    for _ in range(2):
        ok(run(chain, [(0, [m.undelegate(chain.prefix, chain.operator, chain.operator, CHAIN)])]))
    got = failure(chain, 0, m.undelegate(chain.prefix, chain.operator, chain.operator, CHAIN))
    assert got[:2] == ("staking", 27)
    chain.close()


def test_decimals_round_as_legacy_dec():
    assert legacy_dec.parse("0.1") == 10**17 and legacy_dec.format(10**17) == "0.100000000000000000"
    assert legacy_dec.format(-5) == "-0.000000000000000005"
    # Quotients exactly halfway between two atomics round to the even one.
    assert [staking.dec_quo(a * 10**17, 10**36) for a in (5, 15, 25, 26)] == [0, 2, 2, 3]
    assert staking.dec_quo(3 * 10**18, 2 * 10**18) == 15 * 10**17
    with pytest.raises(ValueError, match="exceeds max precision"):
        legacy_dec.parse("0." + "1" * 19)
    assert staking.parse_duration("1814400s") == 1814400 * 10**9
    assert staking.format_duration(1500 * 10**6) == "1.5s"


def test_a_blocks_kept_summary_gives_way_to_a_write_and_returns_when_it_is_undone(chain):
    """summary_by_cons in a block's context keeps what it read from the parent's state; a write of the validator
    in the block is seen at once, and a write undone (a failed message's changes put back) shows the parent's."""
    app = chain.app
    header, meta = app.head
    ctx = app._context(header.height + 1, header.time_ns + 10**9, b"", meta.base_fee, evm_root=meta.evm_state_root)
    v = chain.app.keepers["staking"].validator(ctx, chain.operator)
    first = chain.app.keepers["staking"].summary_by_cons(ctx, v.cons_address)
    assert (first.operator, first.rate, first.jailed) == (chain.operator, v.rate, False) and ctx.summaries
    assert chain.app.keepers["staking"].summary_by_cons(ctx, v.cons_address) is first
    before = dict(ctx.store.changes)
    chain.app.keepers["staking"].set_validator(ctx, attrs.evolve(v, jailed=True, rate=v.rate // 2))
    changed = chain.app.keepers["staking"].summary_by_cons(ctx, v.cons_address)
    assert (changed.jailed, changed.rate) == (True, v.rate // 2)
    ctx.store.changes = before
    assert chain.app.keepers["staking"].summary_by_cons(ctx, v.cons_address) == first
    # A view keeps nothing.
    assert chain.app.keepers["staking"].summary_by_cons(app.view(), v.cons_address) == first


def test_keys_built_from_composed_prefixes_and_parts_are_the_composed_keys():
    """store.keys.part and staking's per-block keys (a composed prefix, then length-prefixed addresses) are what
    compose makes of all the parts; a part longer than 255 bytes is refused as compose refuses it."""
    rng = random.Random(19)
    for _ in range(300):
        a, b = (rng.randbytes(rng.choice((0, 1, 20, 32, rng.randrange(256)))) for _ in range(2))
        assert store_keys.part(a) == store_keys.compose(a)
        assert staking_keys.val_key(a) == store_keys.compose("staking", "val", a)
        assert staking_keys.cons_key(a) == store_keys.compose("staking", "cons", a)
        assert staking_keys.del_key(a, b) == store_keys.compose("staking", "del", a, b)
    with pytest.raises(ValueError, match="longer than 255"):
        store_keys.part(b"x" * 256)


def test_a_decimal_prints_as_its_whole_and_padded_fraction():
    """legacy_dec.format inserts the point in the integer's digits: the text of math/dec.go's String(), the whole
    part and the 18-place fraction of divmod, over random values of every size and sign."""
    rng = random.Random(18)
    values = [0, 1, -1, 10**18, -(10**18), 10**18 - 1, 10**17, -(10**36) - 5]
    values += [rng.choice((1, -1)) * rng.randrange(10 ** rng.randrange(1, 80)) for _ in range(3000)]
    for value in values:
        whole, fraction = divmod(abs(value), 10**18)
        assert legacy_dec.format(value) == f"{'-' if value < 0 else ''}{whole}.{fraction:018d}", value


def test_the_staking_store_holds_the_sdks_keys_and_protos(tmp_path):
    """x/staking v0.50's layout in the staking IAVL store: what a light client or relayer reads there."""
    chain = make_chain(tmp_path, unbonding_time="5s")
    _, pubkey = m.new_consensus_key()
    second, who = chain.keys[2].address, chain.keys[1].address
    ok(run(chain, [(2, [m.create(chain.prefix, second, pubkey, 300 * CHAIN)]),
                   (1, [m.delegate(chain.prefix, who, chain.operator, 100 * CHAIN)])]))
    ok(run(chain, [(1, [m.redelegate(chain.prefix, who, chain.operator, second, 40 * CHAIN),
                        m.undelegate(chain.prefix, who, chain.operator, 10 * CHAIN)])]))
    app, view = chain.app, chain.app.view()
    info = app.store_version()

    def read(key):
        return app.stores.read(info, "staking", key, False)[0]

    lp = lambda part: bytes([len(part)]) + part  # noqa: E731
    valoper = m.valoper(chain.prefix, second)
    v = staking_pb2.Validator.FromString(read(b"\x21" + lp(second)))
    assert (v.operator_address, v.tokens, v.status) == (valoper, str(340 * CHAIN), BONDED)
    assert v.description.moniker and v.commission.commission_rates.max_rate
    assert read(b"\x22" + lp(chain.app.keepers["staking"].validator(view, second).cons_address)) == second
    d = staking_pb2.Delegation.FromString(read(b"\x31" + lp(who) + lp(chain.operator)))
    assert (d.validator_address, d.shares) == (m.valoper(chain.prefix, chain.operator),
                                               str(chain.app.keepers["staking"].delegation(view, who, chain.operator)))
    assert read(b"\x71" + lp(second) + who) == b""           # the delegator is not length-prefixed
    u = staking_pb2.UnbondingDelegation.FromString(read(b"\x32" + lp(who) + lp(chain.operator)))
    assert [e.balance for e in u.entries] == [str(10 * CHAIN)] and u.entries[0].unbonding_id
    assert read(b"\x33" + lp(chain.operator) + lp(who)) == b""
    r = staking_pb2.Redelegation.FromString(read(b"\x34" + lp(who) + lp(chain.operator) + lp(second)))
    assert (r.validator_dst_address, r.entries[0].initial_balance) == (valoper, str(40 * CHAIN))
    assert read(b"\x35" + lp(chain.operator) + lp(who) + lp(second)) == b""
    assert read(b"\x36" + lp(second) + lp(who) + lp(chain.operator)) == b""
    powers = chain.app.keepers["staking"].last_powers(view)
    assert wrappers_pb2.Int64Value.FromString(read(b"\x11" + lp(second))).value == powers[second]
    assert coin_pb2.IntProto.FromString(read(b"\x12")).int == str(sum(powers.values()))
    assert int.from_bytes(read(b"\x37"), "big") == u.entries[0].unbonding_id
    p = staking_pb2.Params.FromString(read(b"\x51"))
    assert (p.bond_denom, p.unbonding_time.seconds) == ("achain", 5)
    # Gone from the store once complete.
    ok(run(chain, [], time_ns=u.entries[0].completion_time.ToNanoseconds()))
    info = app.store_version()
    assert read(b"\x32" + lp(who) + lp(chain.operator)) is None and read(b"\x33" + lp(chain.operator) + lp(who)) is None
    chain.close()
