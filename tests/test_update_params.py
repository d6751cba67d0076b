"""MsgUpdateParams of bank, distribution and inflation through gov proposals (the gov module account is their
authority): the params change and the modules obey them; refusals carry the SDK's and Evmos' codes and texts; and
end to end on a node, a distribution proposal submitted through the CLI changes community_tax over gRPC and REST."""

import json

import pytest
import pytest_twisted
from google.protobuf import any_pb2

import gov_msgs as g
from chaind.chain import legacy_dec, txs
from chaind.chain.modules.distribution.params import params as distribution_params
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.bank.v1beta1 import bank_pb2
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.distribution.v1beta1 import distribution_pb2
from chaind.pb.cosmos.distribution.v1beta1 import query_pb2 as dq
from chaind.pb.cosmos.distribution.v1beta1 import query_pb2_grpc as dq_grpc
from chaind.pb.cosmos.distribution.v1beta1 import tx_pb2 as distribution_tx
from chaind.pb.cosmos.gov.v1 import gov_pb2
from chaind.pb.evmos.inflation.v1 import genesis_pb2 as inflation_genesis
from chaind.pb.evmos.inflation.v1 import inflation_pb2
from chaind.pb.evmos.inflation.v1 import tx_pb2 as inflation_tx
from cli_driver import node_flag, ok, run, send_tx
from gov_driver import (
    address,
    make_chain,  # noqa: F401 (conftest's `chain` fixture makes this module's chain with it)
    through_gov,
)
from gov_driver import run as block
from gov_proposals import gov_home, until_ended
from helpers import call, rest


def wrap(type_url, msg):
    return any_pb2.Any(type_url=type_url, value=msg.SerializeToString())


def send(chain, who, amount=1):
    msg = bank_tx.MsgSend(from_address=chain.b32(address(chain, who)), to_address=chain.b32(b"\x55" * 20),
                          amount=[coin_pb2.Coin(denom="achain", amount=str(amount))])
    return block(chain, [(who, [(txs.MSG_SEND, msg)])]).results[0]


def test_bank_default_send_enabled(chain):
    assert send(chain, 2).code == 0
    off = bank_tx.MsgUpdateParams(authority=chain.b32(g.GOV), params=bank_pb2.Params(default_send_enabled=False))
    assert through_gov(chain, wrap("/cosmos.bank.v1beta1.MsgUpdateParams", off))["proposal_result"] == \
        "proposal_passed"
    assert chain.app.keepers["bank"].default_send_enabled(chain.app.view()) is False
    refused = send(chain, 2)
    assert (refused.codespace, refused.code) == ("bank", 5)
    assert refused.log.endswith("achain transfers are currently disabled: send transactions are disabled")
    # The deprecated per-denom list is refused, and the proposal fails with the text.
    listed = bank_tx.MsgUpdateParams(authority=chain.b32(g.GOV), params=bank_pb2.Params(
        send_enabled=[bank_pb2.SendEnabled(denom="achain", enabled=True)], default_send_enabled=True))
    ended = through_gov(chain, wrap("/cosmos.bank.v1beta1.MsgUpdateParams", listed))
    assert ended["proposal_log"].endswith("use of send_enabled in params is no longer supported")
    assert chain.app.keepers["bank"].default_send_enabled(chain.app.view()) is False


def test_distribution_community_tax(chain):
    new = distribution_pb2.Params(community_tax=legacy_dec.wire_of_text("0.1"), withdraw_addr_enabled=False)
    msg = distribution_tx.MsgUpdateParams(authority=chain.b32(g.GOV), params=new)
    assert through_gov(chain, wrap("/cosmos.distribution.v1beta1.MsgUpdateParams", msg))["proposal_result"] == \
        "proposal_passed"
    p = distribution_params(chain.app.view())
    assert (p.community_tax, p.withdraw_addr_enabled) == (legacy_dec.parse("0.1"), False)
    # Not the authority: gov's ErrInvalidSigner; deprecated rewards and a tax above 1 fail the proposal.
    direct = distribution_tx.MsgUpdateParams(authority=chain.b32(address(chain, 1)), params=new)
    result = block(chain, [(1, [("/cosmos.distribution.v1beta1.MsgUpdateParams", direct)])]).results[0]
    assert (result.codespace, result.code) == ("gov", 13)
    assert "invalid authority; expected " in result.log
    bonus = distribution_pb2.Params(community_tax="0", bonus_proposer_reward=legacy_dec.wire_of_text("0.01"))
    ended = through_gov(chain, wrap("/cosmos.distribution.v1beta1.MsgUpdateParams", distribution_tx.MsgUpdateParams(
        authority=chain.b32(g.GOV), params=bonus)))
    assert ended["proposal_log"].endswith("cannot update base or bonus proposer reward because these are deprecated "
                                          "fields: invalid request")
    high = distribution_pb2.Params(community_tax=legacy_dec.wire_of_text("1.5"))
    ended = through_gov(chain, wrap("/cosmos.distribution.v1beta1.MsgUpdateParams", distribution_tx.MsgUpdateParams(
        authority=chain.b32(g.GOV), params=high)))
    assert ended["proposal_log"].endswith("community tax should be non-negative and less than one: "
                                          "1.500000000000000000")
    assert distribution_params(chain.app.view()).community_tax == legacy_dec.parse("0.1")


def inflation_msg(chain, enable=False, staking="0.6", community="0.4"):
    d = lambda text: legacy_dec.wire_of_text(text)  # noqa: E731
    params = inflation_genesis.Params(
        mint_denom="achain", enable_inflation=enable,
        exponential_calculation=inflation_pb2.ExponentialCalculation(a=d("300000000"), r=d("0.5"), c=d("9375000"),
                                                                     bonding_target=d("0.66"), max_variance=d("0")),
        inflation_distribution=inflation_pb2.InflationDistribution(staking_rewards=d(staking), usage_incentives="0",
                                                                   community_pool=d(community)))
    return inflation_tx.MsgUpdateParams(authority=chain.b32(g.GOV), params=params)


def test_inflation_params_and_its_checks(chain):
    ended = through_gov(chain, wrap("/evmos.inflation.v1.MsgUpdateParams", inflation_msg(chain)))
    assert ended["proposal_result"] == "proposal_passed"
    p = chain.app.keepers["inflation"].params(chain.app.view())
    assert (p.enable_inflation, p.staking_rewards, p.community_pool) == (False, 6 * 10**17, 4 * 10**17)
    # Inflation is off: a later epoch end mints nothing.
    supply = chain.app.keepers["bank"].supply(chain.app.view(), "achain")
    block(chain, [], after_s=30)
    assert chain.app.keepers["bank"].supply(chain.app.view(), "achain") == supply
    # ValidateBasic (Params.Validate): refused before any state is read, as a plain error.
    bad = inflation_msg(chain, staking="0.7")
    bad.authority = chain.b32(address(chain, 1))
    result = block(chain, [(1, [("/evmos.inflation.v1.MsgUpdateParams", bad)])]).results[0]
    assert (result.codespace, result.code) == ("undefined", 1)
    assert result.log.endswith("total distributions ratio should be 1")


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_a_distribution_proposal_through_the_cli_changes_community_tax(node_factory, tmp_path):
    gov_home(tmp_path)
    node = node_factory(chain={"block_interval": 0.05, "empty_blocks": True})
    n = node_flag(node)
    keys = ("--home", tmp_path / "cli", "--keyring-backend", "test")
    for i in (0, 1):
        ok((yield run("keys", "import-hex", f"dev{i}", node.dev_keys[i].private_key.hex(), *keys)))
    proposal = tmp_path / "tax.json"
    proposal.write_text(json.dumps({
        "messages": [{"@type": "/cosmos.distribution.v1beta1.MsgUpdateParams",
                      "authority": to_bech32(node.genesis.bech32_prefix, g.GOV),
                      "params": {"community_tax": "0.050000000000000000", "base_proposer_reward": "0",
                                 "bonus_proposer_reward": "0", "withdraw_addr_enabled": True}}],
        "deposit": "10achain", "title": "Tax", "summary": "Five percent"}))
    yield send_tx(n, keys, "gov", "submit-proposal", proposal, "--from", "dev1")
    yield send_tx(n, keys, "gov", "vote", "1", "yes", "--from", "dev0")
    ended = yield until_ended(node, 1)
    assert ended.status == gov_pb2.PROPOSAL_STATUS_PASSED, ended.failed_reason
    answer, _ = yield call(node, dq_grpc.QueryStub, "Params", dq.QueryParamsRequest())
    assert legacy_dec.format(int(answer.params.community_tax)) == "0.050000000000000000"
    status, _, body = yield rest(node, "/cosmos/distribution/v1beta1/params")
    assert status == 200 and body["params"]["community_tax"] == "0.050000000000000000"
