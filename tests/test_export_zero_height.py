"""`chaind export --for-zero-height [--jail-allowed-addrs]` as the SDK's simapp prepares the state: a chain with two
validators, delegations, an unbonding and a redelegation that earned rewards is exported; the genesis starts a new
chain at height 1 whose supply, delegations and balances (each with what it was owed paid out) agree with the
old chain's, with distribution, staking and slashing begun again at height 0."""

import json
import shutil

import staking_msgs as m
from chain_driver import PROPOSER, Chain
from chaind.chain import genesis as genesis_mod
from chaind.chain.modules.staking.records import UNBONDING
from chaind.store.keys import compose, decompose
from cli_driver import cli, failed, ok
from staking_driver import make_chain, run
from staking_msgs import CHAIN

DELEGATIONS = compose("staking", "del")


def _busy_chain(tmp_path):
    """Two validators (the home's, and dev3's), delegations to both, an unbonding and a redelegation, ten blocks
    of rewards."""
    chain = make_chain(tmp_path)
    second = chain.keys[3].address
    chain.second = second
    prefix = chain.prefix
    run(chain, [(3, [m.create(prefix, second, m.new_consensus_key()[1], 100 * CHAIN)]),
                (1, [m.delegate(prefix, chain.keys[1].address, chain.operator, 10 * CHAIN)])])
    run(chain, [(2, [m.delegate(prefix, chain.keys[2].address, second, 5 * CHAIN)]),
                (1, [m.undelegate(prefix, chain.keys[1].address, chain.operator, CHAIN)])])
    run(chain, [(1, [m.redelegate(prefix, chain.keys[1].address, chain.operator, second, 2 * CHAIN)])])
    for _ in range(10):
        run(chain, [])
    return chain


def _delegations(app, state):
    return {tuple(decompose(key[len(DELEGATIONS):])): int(raw) for key, raw in state.store.iterate(DELEGATIONS)}


def _owed(app, view):
    """{address: what the zero-height withdrawals pay it}: its delegations' rewards and its commission, truncated."""
    staking, distribution = app.keepers["staking"], app.keepers["distribution"]
    owed = {}
    for (delegator, operator), shares in _delegations(app, view).items():
        v = staking.validator(view, operator)
        ratio, _ = distribution.ending_ratio(view, v)
        rewards = distribution.delegation_rewards(view, v, delegator, shares, view.height, ratio)
        owed[delegator] = owed.get(delegator, 0) + rewards.get("achain", 0) // 10**18
    for v in staking.validators(view):
        commission = distribution.commission(view, v.operator).get("achain", 0)
        owed[v.operator] = owed.get(v.operator, 0) + commission // 10**18
    return owed


def _started_from(tmp_path, chain, doc, name):
    """A new chain (the same home and validator key) from the exported AppGenesis `doc`."""
    shutil.copytree(chain.home.path, tmp_path / name / "home")
    (tmp_path / name / "home" / "config" / "genesis.json").write_text(json.dumps(doc))
    return Chain(tmp_path / name, "db")


def test_a_zero_height_export_starts_a_chain_at_height_1_with_the_rewards_paid_out(tmp_path):
    chain = _busy_chain(tmp_path)
    app, height = chain.app, chain.app.height
    view = app.view()
    bank = app.keepers["bank"]
    owed = _owed(app, view)
    assert all(owed[k.address] > 0 for k in (chain.keys[0], chain.keys[1], chain.keys[3]))
    holders = sorted({k.address for k in chain.keys} | set(owed))
    expected = {a: bank.balance(view, a, "achain") + owed.get(a, 0) for a in holders}
    supply, delegations = bank.total_supply(view), _delegations(app, view)
    pool = app.keepers["distribution"].community_pool(view)
    head = app.head

    doc = genesis_mod.app_genesis(genesis_mod.export_document(app, for_zero_height=True), "chaind", "test")
    assert doc["initial_height"] == 0
    assert app.head == head and app.height == height          # the old chain: nothing written
    assert {v["name"] for v in doc["consensus"]["validators"]} == {"test", "second"}

    new = _started_from(tmp_path, chain, doc, "new")
    try:
        assert new.genesis.initial_height == 1 and new.app.height == 0
        state = new.app.view()
        nbank, nstaking, ndist = (new.app.keepers[n] for n in ("bank", "staking", "distribution"))
        assert nbank.total_supply(state) == supply
        assert _delegations(new.app, state) == delegations
        assert {a: nbank.balance(state, a, "achain") for a in holders} == expected
        # Distribution begun again: nothing outstanding, no commission, every delegation starting at height 0.
        for v in nstaking.validators(state):
            assert ndist.outstanding(state, v.operator) == {} and ndist.commission(state, v.operator) == {}
            assert v.unbonding_height == 0
        for delegator, operator in delegations:
            assert ndist.starting_info(state, operator, delegator)[2] == 0
        # What rewards could not pay (their fractions) went to the community pool.
        assert ndist.community_pool(state)["achain"] > pool["achain"]
        # Staking's entries and slashing's signing infos start at height 0.
        [(_, entries)] = nstaking.unbondings_of(state, chain.keys[1].address)
        assert [e[0] for e in entries] == [0]
        [(_, _, entries)] = nstaking.redelegations_of(state, chain.keys[1].address)
        assert [e[0] for e in entries] == [0]
        assert [info.start_height for _, info in new.app.keepers["slashing"].signing_infos(state)] == [0, 0]
        # The new chain makes its first block.
        block, puts = new.app.finalize_block([], new.genesis.genesis_time_ns + 10**9, PROPOSER)
        new.app.commit(block, puts)
        assert new.app.height == 1
    finally:
        new.close()
        chain.close()


def test_jail_allowed_addrs_jails_every_other_validator(tmp_path):
    chain = _busy_chain(tmp_path)
    try:
        doc = genesis_mod.app_genesis(genesis_mod.export_document(chain.app, for_zero_height=True,
                                                                  jail_allowed={chain.operator}), "chaind", "test")
    finally:
        chain.close()
    assert [v["name"] for v in doc["consensus"]["validators"]] == ["test"]
    new = _started_from(tmp_path, chain, doc, "new")
    try:
        state = new.app.view()
        staking = new.app.keepers["staking"]
        second = staking.validator(state, chain.second)
        assert second.jailed and second.status == UNBONDING
        assert not staking.validator(state, chain.operator).jailed
        assert set(staking.last_powers(state)) == {chain.operator}
        block, puts = new.app.finalize_block([], new.genesis.genesis_time_ns + 10**9, PROPOSER)
        new.app.commit(block, puts)
    finally:
        new.close()


def test_the_export_command_with_for_zero_height_and_its_refusals(tmp_path):
    chain = Chain(tmp_path, "home/data/chain.db")
    run(chain, [])
    run(chain, [])
    operator = m.valoper(chain.genesis.bech32_prefix, chain.genesis.validators[0].operator)
    chain.close()
    home = chain.home.path
    doc = json.loads(ok(cli("export", "--home", home, "--for-zero-height", "--jail-allowed-addrs", operator)).stdout)
    assert doc["initial_height"] == 0 and len(doc["consensus"]["validators"]) == 1
    failed(cli("export", "--home", home, "--jail-allowed-addrs", operator),
           "--jail-allowed-addrs applies to --for-zero-height exports only")
    failed(cli("export", "--home", home, "--for-zero-height", "--jail-allowed-addrs", "chain1qqqqqqqqqq"),
           "error exporting state: --jail-allowed-addrs: invalid bech32 address")
    wrong_prefix = m.valoper("other", chain.genesis.validators[0].operator)
    failed(cli("export", "--home", home, "--for-zero-height", "--jail-allowed-addrs", wrong_prefix),
           "invalid bech32 prefix: expected 'chainvaloper', got 'othervaloper'")
