"""x/slashing and x/evidence driven block by block on a real App: a validator the node does not run misses
blocks, is slashed and jailed for downtime, unjails after its jail time; duplicate-vote evidence slashes,
jails and tombstones; evidence that fails verification is refused; replay reproduces every app hash."""

import json

import pytest
from google.protobuf import any_pb2

import gov_msgs as g
import staking_msgs as m
from chain_driver import PROPOSER, Chain, ok
from chaind.chain import evidence, valset, votes
from chaind.chain.authority import GOV
from chaind.chain.block import BlockId
from chaind.chain.modules import distribution, slashing, staking
from chaind.chain.modules.slashing import store_layout as slashing_layout
from chaind.chain.replay import replay_chain
from chaind.crypto.addresses import to_bech32
from chaind.home import Home
from chaind.pb.cosmos.slashing.v1beta1 import slashing_pb2, tx_pb2
from chaind.pb.tendermint.types import evidence_pb2, types_pb2
from chaind.store import keys
from staking_msgs import CHAIN

UNJAIL = "/cosmos.slashing.v1beta1.MsgUnjail"
WINDOW, JAIL_S = 4, 3
SECOND_STAKE = 100 * CHAIN


def make_chain(tmp_path):
    home = Home(tmp_path / "home")
    home.init("test", dev=True)
    doc = json.loads(home.genesis_file.read_text())
    doc["app_state"]["slashing"]["params"].update(
        signed_blocks_window=str(WINDOW), min_signed_per_window="0.5", downtime_jail_duration=f"{JAIL_S}s")
    home.genesis_file.write_text(json.dumps(doc))
    chain = Chain(tmp_path, "db")       # the home's validator signs, as Node sets it up
    chain.vote_key = chain.app.options.vote_key
    chain.prefix = chain.genesis.bech32_prefix
    chain.clock = chain.genesis.genesis_time_ns
    run(chain, [])
    return chain


def run(chain, messages_by_key, evidence_list=(), seconds=1):
    raws = [chain.native(chain.keys[who], msgs) for who, msgs in messages_by_key]
    chain.clock += seconds * 10**9
    block, puts = chain.app.finalize_block(raws, chain.clock, PROPOSER, evidence=tuple(evidence_list))
    chain.app.commit(block, puts)
    return block


def events(block, type_):
    return [dict((k, v) for k, v, _ in e.attributes) for e in block.events if e.type == type_]


def add_second_validator(chain, who=1):
    """A validator operated by dev account `who`, with a consensus key the node does not hold (the test does)."""
    private, public = m.new_consensus_key()
    operator = chain.keys[who].address
    ok(run(chain, [(who, [m.create(chain.prefix, operator, public, SECOND_STAKE)])]))
    return operator, private, public


def valcons(chain, cons):
    return to_bech32(chain.prefix + "valcons", cons)


def test_dev_genesis_params_and_a_signing_info_for_the_genesis_validator(chain):
    view = chain.app.view()
    p = chain.app.keepers["slashing"].params(view)
    assert (p.signed_blocks_window, p.downtime_jail_duration_ns) == (WINDOW, JAIL_S * 10**9)
    v = chain.app.keepers["staking"].validators(view)[0]
    info = chain.app.keepers["slashing"].signing_info(view, v.cons_address)
    assert info.address == valcons(chain, v.cons_address) and info.start_height == 0
    assert info.jailed_until.seconds == 0 and not info.tombstoned
    # The SDK's layout: the signing info under 0x01 | len | address in the slashing store, as its proto.
    found = chain.app.stores.read(chain.app.store_version(), "slashing", b"\x01\x14" + v.cons_address, False)
    assert slashing_pb2.ValidatorSigningInfo.FromString(found[0]) == info


def test_a_validator_the_node_does_not_run_is_jailed_for_downtime_and_unjails_after_its_jail_time(chain):
    operator, _, public = add_second_validator(chain)
    cons = valset.address_of(public)
    view = chain.app.view()
    assert chain.app.keepers["staking"].validator(view, operator).status == staking.BONDED
    bonded_at = chain.app.keepers["slashing"].signing_info(view, cons).start_height
    assert bonded_at == chain.app.height
    jailed_block = None
    for _ in range(WINDOW + 6):
        block = ok(run(chain, []))
        if events(block, "slash"):
            jailed_block = block
            break
    assert jailed_block is not None
    address = valcons(chain, cons)
    # It joins the set two blocks after bonding; its first absent vote is in the block after that.
    liveness = events(jailed_block, "liveness")
    assert liveness == [{"address": address, "missed_blocks": str(WINDOW // 2 + 1), "height": str(jailed_block.height),
                         "mode": "BeginBlock"}]
    burned = SECOND_STAKE // 100
    assert events(jailed_block, "slash") == [{"address": address, "power": "100", "reason": "missing_signature",
                                              "jailed": address, "burned_coins": str(burned), "mode": "BeginBlock"}]
    view = chain.app.view()
    v = chain.app.keepers["staking"].validator(view, operator)
    assert v.jailed and v.tokens == SECOND_STAKE - burned
    assert {"burner": chain.app.keepers["bank"].bech32(staking.BONDED_POOL), "amount": f"{burned}achain",
            "mode": "BeginBlock"} in events(jailed_block, "burn")
    info = chain.app.keepers["slashing"].signing_info(view, cons)
    assert info.missed_blocks_counter == 0
    assert info.jailed_until.seconds * 10**9 + info.jailed_until.nanos == jailed_block.header.time_ns + JAIL_S * 10**9
    # distribution saw the slash: a slash event at that height with the fraction.
    slashes = chain.app.keepers["distribution"].slash_events(view, operator, 0, chain.app.height)
    assert [(h, f) for h, _, f in slashes] == [(jailed_block.height, 10**16)]
    # Out of the set at the end of that block (power 0 update), unbonding.
    assert (public, 0) in jailed_block.validator_updates
    assert chain.app.keepers["staking"].validator(view, operator).status == staking.UNBONDING
    # Too early: still jailed; no state changes.
    unjail = (UNJAIL, tx_pb2.MsgUnjail(validator_addr=m.valoper(chain.prefix, operator)))
    result = run(chain, [(1, [unjail])]).results[0]
    assert (result.codespace, result.code) == ("slashing", 4)
    assert result.log.endswith("validator still jailed; cannot be unjailed")
    assert chain.app.keepers["staking"].validator(chain.app.view(), operator).jailed
    # After the jail time it unjails and bonds again (its window starts over).
    block = ok(run(chain, [(1, [unjail])], seconds=JAIL_S))
    assert any(e == {"module": "slashing", "sender": m.valoper(chain.prefix, operator)} for e in
               [dict((k, v) for k, v, _ in ev.attributes) for ev in block.results[0].events if ev.type == "message"])
    view = chain.app.view()
    v = chain.app.keepers["staking"].validator(view, operator)
    assert not v.jailed and v.status == staking.BONDED
    assert chain.app.keepers["slashing"].signing_info(view, cons).start_height == chain.app.height
    # Not jailed any more: a second unjail is refused.
    result = run(chain, [(1, [unjail])]).results[0]
    assert (result.codespace, result.code, result.log.split(": ")[-1]) == \
        ("slashing", 5, "validator not jailed; cannot be unjailed")
    # The bank and staking books still balance.
    for module in chain.app.modules:
        for name, check in module.invariants:
            assert check(chain.app, chain.app.view()) is None, name


def test_missed_blocks_are_the_sdks_bitmap_chunks_in_the_slashing_store(chain):
    """x/slashing v0.50's ValidatorMissedBlockBitmap: key 0x02 | len | consensus address | chunk index (uint64
    big-endian), value a 1,024-bit bitset as bits-and-blooms marshals it (length, then big-endian 64-bit words)."""
    _, _, public = add_second_validator(chain)
    cons = valset.address_of(public)
    key = b"\x02" + bytes((len(cons),)) + cons + (0).to_bytes(8, "big")
    for _ in range(3):
        ok(run(chain, []))
    info = chain.app.keepers["slashing"].signing_info(chain.app.view(), cons)
    assert info.missed_blocks_counter >= 1
    # Its window's first indexes are the blocks it missed since it joined the set: the low bits of word 0.
    raw, _ = chain.app.stores.read(chain.app.store_version(), "slashing", key, False)
    word0 = (1 << info.missed_blocks_counter) - 1
    assert raw == (1024).to_bytes(8, "big") + word0.to_bytes(8, "big") + bytes(120)
    # Jailed for downtime: the bitmap is deleted with its window.
    for _ in range(WINDOW + 6):
        if events(ok(run(chain, [])), "slash"):
            break
    assert chain.app.stores.read(chain.app.store_version(), "slashing", key, False)[0] is None


def test_bitmap_bits_sit_where_bits_and_blooms_puts_them():
    class Store(dict):
        def set(self, key, value):
            self[key] = bytes(value)

        def delete(self, key):
            del self[key]

    class State:
        store = Store()

    # The bitmap's bits need no other keeper.
    keeper = slashing.SlashingKeeper("chain", None)
    cons = b"\x11" * 20
    for index in (0, 63, 64, 1023, 1024 + 5):
        keeper.set_missed(State, cons, index, True)
    assert [keeper.missed(State, cons, i) for i in (0, 1, 63, 64, 65, 1023, 1024, 1029)] == \
        [True, False, True, True, False, True, False, True]
    first, second = (State.store[keys.compose("slashing", "missed", cons, c.to_bytes(8, "big"))] for c in (0, 1))
    words = [int.from_bytes(first[8 + 8 * w:16 + 8 * w], "big") for w in range(16)]
    assert first[:8] == (1024).to_bytes(8, "big") and len(first) == 136
    assert words[0] == 1 | 1 << 63 and words[1] == 1 and words[15] == 1 << 63 and not any(words[2:15])
    assert int.from_bytes(second[8:16], "big") == 1 << 5
    keeper.set_missed(State, cons, 63, False)
    assert not keeper.missed(State, cons, 63) and keeper.missed(State, cons, 0)
    assert slashing_layout.entries(keys.compose("missed", cons, (1).to_bytes(8, "big")), b"") == \
        [(b"\x02\x14" + cons + (1).to_bytes(8, "big"), b"")]


def test_unjail_of_a_validator_that_does_not_exist(chain):
    stranger = chain.keys[5].address
    result = run(chain, [(5, [(UNJAIL, tx_pb2.MsgUnjail(validator_addr=m.valoper(chain.prefix, stranger)))])])
    assert (result.results[0].codespace, result.results[0].code) == ("slashing", 2)


def vote(key, chain_id, height, block_hash, time_ns, address, kind=votes.PRECOMMIT, round_=0):
    bid = BlockId(block_hash, 1, block_hash[::-1]) if block_hash else BlockId()
    v = types_pb2.Vote(type=kind, height=height, round=round_, validator_address=address, validator_index=0)
    v.block_id.hash, v.block_id.part_set_header.total, v.block_id.part_set_header.hash = \
        bid.hash, bid.parts_total, bid.parts_hash
    v.timestamp.seconds, v.timestamp.nanos = divmod(time_ns, 10**9)
    v.signature = key.sign(votes.sign_bytes(chain_id, height, round_, bid, time_ns, kind))
    return v


def duplicate_vote(chain, key, public, height, hashes=(b"\x01" * 32, b"\x02" * 32)):
    """Two conflicting precommits of `key` at `height`, in CometBFT's order, with the evidence's powers."""
    address = valset.address_of(public)
    block_time = chain.app.block_at(height)[0].time_ns
    a, b = (vote(key, chain.genesis.chain_id, height, h, block_time + 5, address) for h in hashes)
    dve = evidence_pb2.DuplicateVoteEvidence(vote_a=a, vote_b=b)
    validators = chain.app.validator_set(height)
    dve.validator_power = next(v.power for v in validators if v.address == address)
    dve.total_voting_power = sum(v.power for v in validators)
    dve.timestamp.seconds, dve.timestamp.nanos = divmod(block_time, 10**9)
    return dve


def test_double_sign_evidence_slashes_jails_and_tombstones(chain):
    operator, key, public = add_second_validator(chain)
    for _ in range(3):
        run(chain, [])
    height = chain.app.height
    dve = duplicate_vote(chain, key, public, height)
    evidence.validate_basic(dve)
    evidence.verify(chain.app, dve)
    cons = valset.address_of(public)
    before = chain.app.keepers["staking"].validator(chain.app.view(), operator).tokens
    block = ok(run(chain, [], [dve]))
    assert block.header.evidence_hash == evidence.list_hash([dve]) != evidence.list_hash([])
    assert chain.app.evidence_height(evidence.hash_of(dve)) == block.height
    address = valcons(chain, cons)
    burned = 100 * CHAIN * 5 // 100
    assert events(block, "slash") == [
        {"address": address, "power": "100", "reason": "double_sign", "burned_coins": str(burned),
         "mode": "BeginBlock"},
        {"jailed": address, "mode": "BeginBlock"}]
    view = chain.app.view()
    v = chain.app.keepers["staking"].validator(view, operator)
    assert v.jailed and v.tokens == before - burned
    info = chain.app.keepers["slashing"].signing_info(view, cons)
    assert info.tombstoned and info.jailed_until.seconds == slashing.DOUBLE_SIGN_JAIL_END_SECONDS
    stored = chain.app.keepers["evidence"].all_evidence(view)
    assert len(stored) == 1 and stored[0][1].type_url == "/cosmos.evidence.v1beta1.Equivocation"
    # The SDK's layout in the evidence store: 0x00 | hash, the Any.
    found = chain.app.stores.read(chain.app.store_version(), "evidence", b"\x00" + stored[0][0], False)[0]
    assert found == stored[0][1].SerializeToString()
    # A tombstoned validator never unjails.
    unjail = (UNJAIL, tx_pb2.MsgUnjail(validator_addr=m.valoper(chain.prefix, operator)))
    result = run(chain, [(1, [unjail])], seconds=10**6).results[0]
    assert (result.codespace, result.code) == ("slashing", 4)
    # The block carries the evidence as it was given; replay reproduces every hash.
    assert chain.app.consensus_info(block.height)[2] == (dve,)
    report = replay_chain(chain.app, chain.path.parent / "replayed", vote_key=chain.vote_key,
                          validator_address=chain.app.options.validator_address)
    assert report.ok, str(report.mismatch)


def test_redelegated_and_unbonding_stake_since_the_infraction_is_slashed_too(chain):
    operator, key, public = add_second_validator(chain)
    run(chain, [])
    run(chain, [])
    height = chain.app.height       # the first height it signs (it joined the set two blocks after bonding)
    run(chain, [])
    # After the infraction: dev 4 delegates to the second validator, then moves half away, and unbonds some.
    ok(run(chain, [(4, [m.delegate(chain.prefix, chain.keys[4].address, operator, 10 * CHAIN)])]))
    genesis_operator = chain.genesis.validators[0].operator
    ok(run(chain, [(4, [m.redelegate(chain.prefix, chain.keys[4].address, operator, genesis_operator, 4 * CHAIN),
                        m.undelegate(chain.prefix, chain.keys[4].address, operator, 2 * CHAIN)])]))
    view = chain.app.view()
    ubd = chain.app.keepers["staking"].unbonding(view, chain.keys[4].address, operator)
    dst_shares = chain.app.keepers["staking"].delegation(view, chain.keys[4].address, genesis_operator)
    run(chain, [], [duplicate_vote(chain, key, public, height)])
    view = chain.app.view()
    # 5% of each entry begun since the infraction: the unbonding's balance and the redelegated shares.
    assert int(chain.app.keepers["staking"].unbonding(view, chain.keys[4].address, operator)[0][3]) == \
        int(ubd[0][3]) - 2 * CHAIN * 5 // 100
    assert chain.app.keepers["staking"].delegation(view, chain.keys[4].address, genesis_operator) == \
        dst_shares - dst_shares * 5 // 100
    for module in chain.app.modules:
        for name, check in module.invariants:
            assert check(chain.app, chain.app.view()) is None, name


def refused(chain, dve, text):
    with pytest.raises(evidence.EvidenceError) as caught:
        evidence.validate_basic(dve)
        evidence.verify(chain.app, dve)
    assert text in str(caught.value), str(caught.value)


def test_evidence_that_fails_verification_is_refused_with_cometbfts_errors(chain):
    _, key, public = add_second_validator(chain)
    for _ in range(3):
        run(chain, [])
    height = chain.app.height
    good = duplicate_vote(chain, key, public, height)
    swapped = evidence_pb2.DuplicateVoteEvidence()
    swapped.CopyFrom(good)
    swapped.vote_a.CopyFrom(good.vote_b)
    swapped.vote_b.CopyFrom(good.vote_a)
    refused(chain, swapped, "duplicate votes in invalid order")
    same = duplicate_vote(chain, key, public, height, hashes=(b"\x01" * 32, b"\x01" * 32))
    refused(chain, same, "duplicate votes in invalid order")
    bad_sig = evidence_pb2.DuplicateVoteEvidence()
    bad_sig.CopyFrom(good)
    bad_sig.vote_b.signature = bytes(64)
    refused(chain, bad_sig, "verifying VoteB: invalid signature")
    other_key, _ = m.new_consensus_key()
    forged = duplicate_vote(chain, other_key, public, height)
    refused(chain, forged, "verifying VoteA: invalid signature")
    _, stranger = m.new_consensus_key()
    refused(chain, _with_address(duplicate_vote(chain, key, public, height), valset.address_of(stranger)),
            "was not a validator at height")
    wrong_power = evidence_pb2.DuplicateVoteEvidence()
    wrong_power.CopyFrom(good)
    wrong_power.validator_power += 1
    refused(chain, wrong_power, "validator power from evidence and our validator set does not match")
    wrong_time = evidence_pb2.DuplicateVoteEvidence()
    wrong_time.CopyFrom(good)
    wrong_time.timestamp.seconds += 1
    refused(chain, wrong_time, "evidence has a different time to the block it is associated with")
    future = evidence_pb2.DuplicateVoteEvidence()
    future.CopyFrom(good)
    future.vote_a.height = future.vote_b.height = chain.app.height + 5
    refused(chain, future, f"don't have header #{chain.app.height + 5}")
    unsigned = evidence_pb2.DuplicateVoteEvidence()
    unsigned.CopyFrom(good)
    unsigned.vote_a.signature = b""
    refused(chain, unsigned, "invalid VoteA: signature is missing")
    prevote = evidence_pb2.DuplicateVoteEvidence()
    prevote.CopyFrom(good)
    prevote.vote_b.type = votes.PREVOTE
    refused(chain, prevote, "h/r/s does not match")


def _with_address(dve, address):
    dve.vote_a.validator_address = dve.vote_b.validator_address = address
    return dve


def test_distribution_rewards_survive_a_slash(chain):
    operator, key, public = add_second_validator(chain)
    ok(run(chain, [(4, [m.delegate(chain.prefix, chain.keys[4].address, operator, 10 * CHAIN)])]))
    for _ in range(3):
        run(chain, [])
    run(chain, [], [duplicate_vote(chain, key, public, chain.app.height)])
    for _ in range(2):
        run(chain, [])
    # Withdrawing after the slash works (F1 accounts for the slash period) and the books balance.
    block = run(chain, [(4, [("/cosmos.distribution.v1beta1.MsgWithdrawDelegatorReward",
                              _withdraw(chain, chain.keys[4].address, operator))])])
    ok(block)
    assert distribution.MODULE.invariants
    for module in chain.app.modules:
        for name, check in module.invariants:
            assert check(chain.app, chain.app.view()) is None, name


def _withdraw(chain, delegator, operator):
    from chaind.pb.cosmos.distribution.v1beta1 import tx_pb2 as dist_tx
    return dist_tx.MsgWithdrawDelegatorReward(delegator_address=to_bech32(chain.prefix, delegator),
                                              validator_address=m.valoper(chain.prefix, operator))


def params_msg(chain, authority, window=50):
    p = chain.app.keepers["slashing"].params(chain.app.view())
    proto = p.proto()
    proto.signed_blocks_window = window
    msg = tx_pb2.MsgUpdateParams(authority=authority, params=proto)
    return any_pb2.Any(type_url="/cosmos.slashing.v1beta1.MsgUpdateParams", value=msg.SerializeToString())


def test_msg_update_params_comes_from_the_gov_authority_only(chain):
    direct = params_msg(chain, chain.b32(chain.keys[1].address))
    result = run(chain, [(1, [(direct.type_url, tx_pb2.MsgUpdateParams.FromString(direct.value))])]).results[0]
    assert (result.codespace, result.code) == ("gov", 13) and "invalid authority" in result.log
    assert chain.app.keepers["slashing"].params(chain.app.view()).signed_blocks_window == WINDOW
    # Through a proposal that passes, as the gov account.
    proposal = g.submit(chain.prefix, chain.keys[1].address, [params_msg(chain, chain.b32(GOV))], deposit=10)
    ok(run(chain, [(1, [(g.SUBMIT, proposal)])]))
    ok(run(chain, [(0, [(g.VOTE, g.vote(chain.prefix, chain.keys[0].address, 1, g.YES))])]))
    run(chain, [], seconds=21)
    run(chain, [])
    assert chain.app.keepers["slashing"].params(chain.app.view()).signed_blocks_window == 50
