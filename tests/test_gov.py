"""x/gov driven block by block on a real App: proposals through deposit and voting periods, the tally, execution
of a passed proposal's messages as the gov account, refusals with the SDK's codes and no state change."""

from google.protobuf import any_pb2

import gov_msgs as g
import staking_msgs
from chain_driver import PROPOSER, balance, ok
from chaind.chain import amino
from chaind.chain.authority import GOV
from chaind.chain.modules import staking
from chaind.chain.modules.gov.query_v1beta1 import GovQueryV1Beta1
from chaind.chain.modules.gov.tally import tally
from chaind.chain.registry import MODULES
from chaind.chain.replay import replay_chain
from chaind.pb.cosmos.gov.v1 import gov_pb2
from chaind.pb.cosmos.gov.v1beta1 import gov_pb2 as gov_v1beta1
from chaind.pb.cosmos.gov.v1beta1 import query_pb2 as q_v1beta1
from chaind.pb.cosmos.gov.v1beta1 import tx_pb2 as tx_v1beta1
from chaind.pb.cosmos.staking.v1beta1 import tx_pb2 as staking_tx
from chaind.pb.evmos.erc20.v1 import tx_pb2 as erc20_tx
from gov_driver import S, address, attrs, make_chain, run, submit


def proposal(chain, pid):
    return chain.app.keepers["gov"].proposal(chain.app.view(), pid)


def test_a_passed_proposal_changes_staking_params_as_the_gov_account(chain):
    before = balance(chain, address(chain, 1))
    block = ok(submit(chain, deposit=4))
    result = block.results[0]
    assert attrs(result.events, "submit_proposal")[0] == {
        "proposal_id": "1", "proposal_messages": g.STAKING_PARAMS}
    p = proposal(chain, 1)
    assert p.status == gov_pb2.PROPOSAL_STATUS_DEPOSIT_PERIOD and p.proposer == chain.b32(address(chain, 1))
    assert balance(chain, GOV) == 4
    # A second depositor completes the minimum (10achain): the voting period opens.
    block = ok(run(chain, [(2, [(g.DEPOSIT, g.deposit(chain.prefix, address(chain, 2), 1, 6))])]))
    assert {"voting_period_start": "1"} in attrs(block.results[0].events, "proposal_deposit")
    p = proposal(chain, 1)
    assert p.status == gov_pb2.PROPOSAL_STATUS_VOTING_PERIOD
    assert p.voting_end_time.ToNanoseconds() - p.voting_start_time.ToNanoseconds() == 20 * S
    # The validator's operator (dev account 0) votes yes with all the bonded power.
    block = ok(run(chain, [(0, [(g.VOTE, g.vote(chain.prefix, address(chain, 0), 1, g.YES))])]))
    assert attrs(block.results[0].events, "proposal_vote")[0]["option"] == \
        'option:VOTE_OPTION_YES weight:"1.000000000000000000"'
    assert chain.app.keepers["staking"].params(chain.app.view()).max_validators == 100
    block = run(chain, [], after_s=20)
    assert attrs(block.events, "active_proposal") == [
        {"proposal_id": "1", "proposal_result": "proposal_passed", "proposal_log": "passed"}]
    p = proposal(chain, 1)
    assert p.status == gov_pb2.PROPOSAL_STATUS_PASSED
    bonded = chain.app.keepers["bank"].balance(chain.app.view(), staking.BONDED_POOL, "achain")
    assert p.final_tally_result.yes_count == str(bonded)
    assert chain.app.keepers["staking"].params(chain.app.view()).max_validators == 7
    # Deposits went back; the votes were removed by the tally.
    assert balance(chain, GOV) == 0
    assert chain.app.keepers["gov"].votes(chain.app.view(), 1) == []
    assert balance(chain, address(chain, 1)) < before   # fees only


def test_a_failing_proposal_leaves_the_chain_as_it_was_and_records_why(chain):
    # The first message would change max_validators; the second's params fail staking's Validate.
    messages = [g.staking_params_msg(chain.prefix, max_validators=9),
                g.staking_params_msg(chain.prefix, max_validators=7, unbonding_s=0)]
    ok(submit(chain, messages=messages))
    ok(run(chain, [(0, [(g.VOTE, g.vote(chain.prefix, address(chain, 0), 1, g.YES))])]))
    block = run(chain, [], after_s=20)
    event = attrs(block.events, "active_proposal")[0]
    assert event["proposal_result"] == "proposal_failed"
    assert event["proposal_log"].startswith(f"passed, but msg 1 ({g.STAKING_PARAMS}) failed on execution: ")
    p = proposal(chain, 1)
    assert p.status == gov_pb2.PROPOSAL_STATUS_FAILED
    assert p.failed_reason == "unbonding time must be positive: 0"
    # The first message was undone too.
    assert chain.app.keepers["staking"].params(chain.app.view()).max_validators == 100


def test_no_votes_means_no_quorum_and_a_rejection_with_deposits_refunded(chain):
    ok(submit(chain))
    block = run(chain, [], after_s=21)
    assert attrs(block.events, "active_proposal")[0]["proposal_result"] == "proposal_rejected"
    assert proposal(chain, 1).status == gov_pb2.PROPOSAL_STATUS_REJECTED
    assert balance(chain, GOV) == 0


def test_veto_burns_the_deposits(chain):
    ok(submit(chain))
    ok(run(chain, [(0, [(g.VOTE, g.vote(chain.prefix, address(chain, 0), 1, g.VETO))])]))
    supply = chain.app.keepers["bank"].supply(chain.app.view(), "achain")
    block = run(chain, [], after_s=20)
    assert attrs(block.events, "burn")[0]["amount"] == "10achain"
    # The dev chain's inflation mints every 10 s epoch, in the same block.
    minted = sum(int(a["amount"].removesuffix("achain")) for a in attrs(block.events, "coinbase"))
    assert chain.app.keepers["bank"].supply(chain.app.view(), "achain") == supply - 10 + minted
    assert proposal(chain, 1).status == gov_pb2.PROPOSAL_STATUS_REJECTED


def test_a_delegators_own_vote_overrides_its_validators(chain):
    operator = chain.genesis.validators[0].operator
    ok(run(chain, [(3, [staking_msgs.delegate(chain.prefix, address(chain, 3), operator, 4 * 10**20)])]))
    ok(submit(chain))
    ok(run(chain, [(0, [(g.VOTE, g.vote(chain.prefix, address(chain, 0), 1, g.YES))]),
                   (3, [(g.VOTE, g.vote(chain.prefix, address(chain, 3), 1, g.NO))])]))
    view = chain.app.view()
    _, _, result = tally(chain.app, view, chain.app.keepers["gov"].proposal(view, 1), lambda voter: None)
    # The validator's own 1000 chain vote yes; the delegator's 400 leave its vote for its own: no.
    assert (result.yes_count, result.no_count) == (str(10**21), str(4 * 10**20))
    block = run(chain, [], after_s=20)
    assert attrs(block.events, "active_proposal")[0]["proposal_result"] == "proposal_passed"


def test_expedited_proposal_failing_becomes_regular(chain):
    ok(submit(chain, deposit=50, expedited=True))
    p = proposal(chain, 1)
    assert p.voting_end_time.ToNanoseconds() - p.voting_start_time.ToNanoseconds() == 10 * S
    block = run(chain, [], after_s=11)
    assert attrs(block.events, "active_proposal")[0]["proposal_result"] == "expedited_proposal_rejected"
    p = proposal(chain, 1)
    assert not p.expedited and p.status == gov_pb2.PROPOSAL_STATUS_VOTING_PERIOD
    assert p.voting_end_time.ToNanoseconds() - p.voting_start_time.ToNanoseconds() == 20 * S
    assert balance(chain, GOV) == 50


def test_cancel_returns_half_and_burns_half(chain):
    ok(submit(chain))
    proposer = address(chain, 1)
    before = balance(chain, proposer)
    block = ok(run(chain, [(1, [(g.CANCEL, g.cancel(chain.prefix, proposer, 1))])]))
    assert attrs(block.results[0].events, "cancel_proposal") == [
        {"sender": chain.b32(proposer), "proposal_id": "1"}]
    assert proposal(chain, 1) is None
    fee = int(attrs(block.results[0].events, "tx")[0]["fee"][:-len("achain")])
    assert balance(chain, proposer) == before + 5 - fee


def refusal(chain, who, type_url, msg):
    view = chain.app.view()
    block = run(chain, [(who, [(type_url, msg)])])
    result = block.results[0]
    assert result.code != 0
    after = chain.app.view()
    keeper = chain.app.keepers["gov"]
    assert keeper.proposals(after) == keeper.proposals(view)
    return result.codespace, result.code, result.log.removeprefix("failed to execute message; message index: 0: ")


def test_refusals_carry_the_sdk_codes_and_change_nothing(chain):
    p = chain.prefix
    a1 = address(chain, 1)
    assert refusal(chain, 1, g.VOTE, g.vote(p, a1, 9, g.YES)) == ("gov", 3, "9: inactive proposal")
    assert refusal(chain, 1, g.DEPOSIT, g.deposit(p, a1, 9, 5)) == ("gov", 2, "9: unknown proposal")
    assert refusal(chain, 1, g.SUBMIT, g.submit(p, a1, [g.staking_params_msg(p)], title="")) == (
        "gov", 5, "proposal title cannot be empty: invalid proposal content")
    assert refusal(chain, 1, g.SUBMIT, g.submit(p, a1, [g.staking_params_msg(p, authority=chain.b32(a1))])) == (
        "gov", 13, f"{chain.b32(a1)}: expected gov account as only signer for proposal message")
    assert refusal(chain, 1, g.SUBMIT, g.submit(p, a1, [], metadata="")) == (
        "gov", 11, "either metadata or Msgs length must be non-nil: no messages proposed")
    assert refusal(chain, 1, g.SUBMIT, g.submit(p, a1, [g.staking_params_msg(p)], deposit=0)) == (
        "gov", 16, "received  but need at least one of the following: 0achain: minimum deposit is too small")
    ok(submit(chain, deposit=4))
    assert refusal(chain, 1, g.VOTE, g.vote(p, a1, 1, g.YES)) == ("gov", 3, "1: inactive proposal")
    assert refusal(chain, 1, g.VOTE, g.vote(p, a1, 1, 7))[:2] == ("gov", 7)
    assert refusal(chain, 1, g.WEIGHTED, g.weighted(p, a1, 1, (g.YES, "0.5"), (g.NO, "0.4"))) == (
        "gov", 7, "total weight lower than 1.00: invalid vote option")
    assert refusal(chain, 2, g.CANCEL, g.cancel(p, address(chain, 2), 1)) == (
        "gov", 18, f"invalid proposer {chain.b32(address(chain, 2))}: invalid proposer")
    assert refusal(chain, 1, g.DEPOSIT, g.deposit(p, a1, 1, 0)) == ("sdk", 10, ": invalid coins")
    # Params refused by the keeper's authority check when a plain account sends them.
    result = run(chain, [(1, [(g.STAKING_PARAMS, _unpack_params(g.staking_params_msg(p, authority=chain.b32(a1))))])])
    assert (result.results[0].codespace, result.results[0].code) == ("gov", 13)


def _unpack_params(any_msg):
    return staking_tx.MsgUpdateParams.FromString(any_msg.value)


def test_deposit_period_end_drops_the_proposal_and_refunds(chain):
    ok(submit(chain, deposit=4))
    block = run(chain, [], after_s=172801)
    assert attrs(block.events, "inactive_proposal") == [{"proposal_id": "1", "proposal_result": "proposal_dropped"}]
    assert proposal(chain, 1) is None and balance(chain, GOV) == 0


def test_replay_from_genesis_reproduces_every_app_hash(tmp_path):
    chain = make_chain(tmp_path)
    ok(submit(chain))
    ok(run(chain, [(0, [(g.VOTE, g.vote(chain.prefix, address(chain, 0), 1, g.YES))])]))
    ok(submit(chain, who=2, messages=[g.staking_params_msg(chain.prefix, unbonding_s=0)]))
    ok(run(chain, [(0, [(g.VOTE, g.vote(chain.prefix, address(chain, 0), 2, g.YES))]),
                   (1, [(g.CANCEL, g.cancel(chain.prefix, address(chain, 1), 1))])]))
    ok(submit(chain, who=3))
    run(chain, [], after_s=25)
    assert proposal(chain, 2).status == gov_pb2.PROPOSAL_STATUS_FAILED
    report = replay_chain(chain.app, tmp_path / "replayed.db", chain.app.options.vote_key,
                          chain.app.options.validator_address)
    assert report.ok and report.last_height == chain.app.height
    chain.close()


def test_erc20_conversions_toggle_through_a_proposal(chain):
    toggle = erc20_tx.MsgToggleConversion(authority=chain.b32(GOV), token="stake")
    messages = [any_pb2.Any(type_url="/evmos.erc20.v1.MsgToggleConversion", value=toggle.SerializeToString())]
    ok(submit(chain, messages=messages))
    ok(run(chain, [(0, [(g.VOTE, g.vote(chain.prefix, address(chain, 0), 1, g.YES))])]))
    block = run(chain, [], after_s=20)
    assert attrs(block.events, "toggle_token_conversion") == [
        {"cosmos_coin": "stake", "erc20_token": "0xe141e8c6980EF5aF5f7da847B7f802702239f36C"}]
    assert chain.app.keepers["erc20"].pair_of(chain.app.view(), "stake").enabled is False


def test_a_v1beta1_text_proposal_passes_and_reads_through_both_queries(chain):
    text = gov_v1beta1.TextProposal(title="Hello", description="A text proposal")
    submit_msg = tx_v1beta1.MsgSubmitProposal(
        content=any_pb2.Any(type_url="/cosmos.gov.v1beta1.TextProposal", value=text.SerializeToString()),
        initial_deposit=g.coins(10), proposer=chain.b32(address(chain, 1)))
    block = ok(run(chain, [(1, [("/cosmos.gov.v1beta1.MsgSubmitProposal", submit_msg)])]))
    assert attrs(block.results[0].events, "submit_proposal")[0]["proposal_messages"] == \
        "/cosmos.gov.v1.MsgExecLegacyContent"
    vote = tx_v1beta1.MsgVote(proposal_id=1, voter=chain.b32(address(chain, 0)), option=g.YES)
    ok(run(chain, [(0, [("/cosmos.gov.v1beta1.MsgVote", vote)])]))
    view = chain.app.view()
    legacy = GovQueryV1Beta1(chain.app)
    shown = legacy.Vote.__wrapped__(legacy, q_v1beta1.QueryVoteRequest(proposal_id=1, voter=vote.voter), view).vote
    assert shown.option == g.YES and shown.options[0].weight == str(10**18)
    run(chain, [], after_s=20)
    view = chain.app.view()
    p = legacy.Proposal.__wrapped__(legacy, q_v1beta1.QueryProposalRequest(proposal_id=1), view).proposal
    assert p.status == gov_pb2.PROPOSAL_STATUS_PASSED
    assert p.content.type_url == "/cosmos.gov.v1beta1.TextProposal"
    assert gov_v1beta1.TextProposal.FromString(p.content.value).title == "Hello"
    stored = chain.app.keepers["gov"].proposal(view, 1)
    assert p.final_tally_result.yes == stored.final_tally_result.yes_count
    assert stored.title == "Hello" and stored.summary == "A text proposal"


def test_votes_and_deposits_sign_in_amino_json_as_keplr_does(chain):
    encoder = amino.Encoder.of_modules(MODULES)
    voter = chain.b32(address(chain, 0))
    assert encoder.named(tx_v1beta1.MsgVote(proposal_id=1, voter=voter, option=g.YES)) == {
        "type": "cosmos-sdk/MsgVote", "value": {"option": 1, "proposal_id": "1", "voter": voter}}
    weighted = tx_v1beta1.MsgVoteWeighted(proposal_id=1, voter=voter, options=[
        gov_v1beta1.WeightedVoteOption(option=g.YES, weight=str(6 * 10**17)),
        gov_v1beta1.WeightedVoteOption(option=g.NO, weight=str(4 * 10**17))])
    assert encoder.named(weighted)["value"]["options"] == [
        {"option": 1, "weight": "0.600000000000000000"}, {"option": 3, "weight": "0.400000000000000000"}]
    assert encoder.named(g.vote(chain.prefix, address(chain, 0), 2, g.NO))["type"] == "cosmos-sdk/v1/MsgVote"
    assert encoder.named(g.deposit(chain.prefix, address(chain, 0), 2, 5))["value"]["amount"] == [
        {"amount": "5", "denom": "achain"}]
    # A v1beta1 vote signed in amino JSON is accepted and counted.
    ok(submit(chain))
    vote = tx_v1beta1.MsgVote(proposal_id=1, voter=voter, option=g.YES)
    raw = chain.native(chain.keys[0], [("/cosmos.gov.v1beta1.MsgVote", vote)], gas=400000, amino_encoder=encoder)
    chain.clock += S
    block, puts = chain.app.finalize_block([raw], chain.clock, PROPOSER)
    chain.app.commit(block, puts)
    ok(block)
    assert chain.app.keepers["gov"].vote(chain.app.view(), 1, address(chain, 0)).options[0].option == g.YES
