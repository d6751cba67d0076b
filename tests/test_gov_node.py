"""Governance on a running node through the CLI, gRPC and REST: a staking MsgUpdateParams proposal is
submitted, voted and executed and max_validators changes; a failing one records why and changes nothing."""

import base64
import json

import pytest
import pytest_twisted

from chaind.chain.authority import GOV
from chaind.crypto.addresses import to_bech32
from chaind.home import Home
from chaind.pb.cosmos.gov.v1 import gov_pb2
from chaind.pb.cosmos.gov.v1 import query_pb2 as gq
from chaind.pb.cosmos.staking.v1beta1 import query_pb2 as sq
from chaind.pb.cosmos.staking.v1beta1 import query_pb2_grpc as sq_grpc
from cli_driver import committed, js, node_flag, ok, run, send_tx
from gov_proposals import until_ended
from helpers import call, comet, in_thread, rest


def gov_node(node_factory, tmp_path):
    """A dev node whose proposals vote for 3 s (2 s expedited), with blocks coming all the time."""
    home = Home(tmp_path / "home")
    home.init("test", dev=True)
    doc = json.loads(home.genesis_file.read_text())
    doc["app_state"]["gov"]["params"].update(voting_period="3s", expedited_voting_period="2s")
    home.genesis_file.write_text(json.dumps(doc))
    return node_factory(chain={"block_interval": 0.05, "empty_blocks": True})


def proposal_file(tmp_path, name, node, **params):
    prefix = node.genesis.bech32_prefix
    values = {"unbonding_time": "1814400s", "max_validators": 7, "max_entries": 7, "historical_entries": 10000,
              "bond_denom": "achain", "min_commission_rate": "0.000000000000000000", **params}
    path = tmp_path / name
    path.write_text(json.dumps({
        "messages": [{"@type": "/cosmos.staking.v1beta1.MsgUpdateParams", "authority": to_bech32(prefix, GOV),
                      "params": values}],
        "metadata": "", "deposit": "10achain", "title": "Seven validators", "summary": "Fewer, stronger"}))
    return path


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_a_proposal_changes_max_validators_and_a_failing_one_changes_nothing(node_factory, tmp_path):
    node = gov_node(node_factory, tmp_path)
    n = node_flag(node)
    keys = ("--home", tmp_path / "cli", "--keyring-backend", "test")
    for i in (0, 1):
        ok((yield run("keys", "import-hex", f"dev{i}", node.dev_keys[i].private_key.hex(), *keys)))
    draft = tmp_path / "draft.json"
    ok((yield run("tx", "gov", "draft-proposal", "--skip-metadata", "--title", "t", "--deposit", "10achain",
                  "--output", draft, stdin="text\ns\n")))
    assert json.loads(draft.read_text())["deposit"] == "10achain"

    submitted = yield send_tx(n, keys, "gov", "submit-proposal", proposal_file(tmp_path, "p1.json", node),
                              "--from", "dev1")
    assert submitted["tx"]["body"]["messages"][0]["messages"][0]["params"]["max_validators"] == 7
    shown = js((yield run("q", "gov", "proposal", "1", n, "-o", "json")))["proposal"]
    assert shown["status"] == "PROPOSAL_STATUS_VOTING_PERIOD" and shown["title"] == "Seven validators"
    assert shown["messages"][0]["@type"] == "/cosmos.staking.v1beta1.MsgUpdateParams"
    yield send_tx(n, keys, "gov", "vote", "1", "yes", "--from", "dev0")
    vote = js((yield run("q", "gov", "vote", "1", "0x" + node.dev_keys[0].address.hex(), n, "-o", "json")))
    assert vote["vote"]["options"] == [{"option": "VOTE_OPTION_YES", "weight": "1.000000000000000000"}]
    status, _, tally = yield rest(node, "/cosmos/gov/v1/proposals/1/tally")
    assert status == 200, tally
    assert int(tally["tally"]["yes_count"]) > 0

    p = yield until_ended(node, 1)
    assert p.status == gov_pb2.PROPOSAL_STATUS_PASSED and p.final_tally_result.yes_count == tally["tally"]["yes_count"]
    params, _ = yield call(node, sq_grpc.QueryStub, "Params", sq.QueryParamsRequest())
    assert params.params.max_validators == 7
    assert js((yield run("q", "staking", "params", n, "-o", "json")))["params"]["max_validators"] == 7
    _, _, listed = yield rest(node, "/cosmos/gov/v1/proposals?proposal_status=PROPOSAL_STATUS_PASSED")
    assert [x["id"] for x in listed["proposals"]] == ["1"]

    # A proposal whose message fails: recorded on the proposal, params as they were.
    yield send_tx(n, keys, "gov", "submit-proposal", proposal_file(tmp_path, "p2.json", node, max_validators=5,
                                                                  unbonding_time="0s"), "--from", "dev1")
    yield send_tx(n, keys, "gov", "weighted-vote", "2", "yes=0.9,abstain=0.1", "--from", "dev0")
    p = yield until_ended(node, 2)
    assert p.status == gov_pb2.PROPOSAL_STATUS_FAILED and p.failed_reason == "unbonding time must be positive: 0"
    params, _ = yield call(node, sq_grpc.QueryStub, "Params", sq.QueryParamsRequest())
    assert params.params.max_validators == 7

    # A vote on an ended proposal: the committed tx carries gov's code.
    sent = js((yield run("tx", "gov", "vote", "1", "no", "--from", "dev0", "--fees=200000000000000000achain",
                         "--gas", "400000", "-y", "-o", "json", n, *keys)))
    found = yield committed(n, sent["txhash"])
    assert (found["codespace"], found["code"]) == ("gov", 3) and found["raw_log"].endswith("1: inactive proposal")
    gov_params = js((yield run("q", "gov", "params", n, "-o", "json")))["params"]
    assert gov_params["voting_period"] == "3s" and gov_params["min_deposit"] == [{"denom": "achain", "amount": "10"}]


def test_the_banner_names_the_gov_authority_and_the_dev_extra(node):
    gov = to_bech32(node.genesis.bech32_prefix, GOV)
    assert (f"authority: the gov module account {gov}; dev account (0) may also register erc20 pairs and change "
            "erc20 params (a dev genesis says so)\n") in node.out.getvalue()


@pytest_twisted.inlineCallbacks
def test_params_over_rest_v1_and_v1beta1(node):
    status, _, v1 = yield rest(node, "/cosmos/gov/v1/params/voting")
    assert status == 200, v1
    assert v1["params"]["voting_period"] == "20s" and v1["params"]["expedited_voting_period"] == "10s"
    assert v1["voting_params"] == {"voting_period": "20s"} and v1["params"]["quorum"] == "0.334000000000000000"
    status, _, legacy = yield rest(node, "/cosmos/gov/v1beta1/params/tallying")
    assert status == 200, legacy
    assert legacy["tally_params"] == {"quorum": "0.334000000000000000", "threshold": "0.500000000000000000",
                                      "veto_threshold": "0.334000000000000000"}
    status, _, missing = yield rest(node, "/cosmos/gov/v1/proposals/7")
    assert status == 404 and "proposal 7 doesn't exist" in missing["message"], missing
    request = gq.QueryParamsRequest(params_type="deposit").SerializeToString().hex()
    abci = yield in_thread(comet, node, "abci_query", path="/cosmos.gov.v1.Query/Params", data=request)
    answer = gq.QueryParamsResponse.FromString(base64.b64decode(abci["result"]["response"]["value"]))
    assert answer.deposit_params.min_deposit[0].amount == "10" and answer.params.expedited_min_deposit[0].amount == "50"
