"""Staking against a running node: native txs broadcast over 26657 and gRPC change the validator set,
seen in `validators`, header hashes, block_results, /websocket ValidatorSetUpdates, commits, and the
staking queries over gRPC, REST and abci_query."""

import base64
import hashlib
import json

import grpc
import pytest_twisted
from websockets.sync.client import connect

import staking_msgs as m
from chaind.chain import txs
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.base.query.v1beta1 import pagination_pb2
from chaind.pb.cosmos.base.tendermint.v1beta1 import query_pb2 as cmt_query
from chaind.pb.cosmos.base.tendermint.v1beta1 import query_pb2_grpc as cmt_grpc
from chaind.pb.cosmos.staking.v1beta1 import query_pb2 as sq
from chaind.pb.cosmos.staking.v1beta1 import query_pb2_grpc as sq_grpc
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_service
from chaind.pb.cosmos.tx.v1beta1 import service_pb2_grpc as tx_grpc
from chaind.pb.ethermint.evm.v1 import query_pb2 as evm_q
from chaind.pb.ethermint.evm.v1 import query_pb2_grpc as evm_grpc
from helpers import call as grpc_call
from helpers import comet, in_thread, on_reactor, rest_sync, until_block, until_height
from native_txs import build_native
from staking_msgs import CHAIN


def start(node_factory):
    # Empty blocks keep coming, so heights H+1 and H+2 follow a change at H without more txs.
    node = node_factory(chain={"block_interval": 0.05, "empty_blocks": True})
    return node


def signed(node, who, messages, gas=400000):
    key, view = node.dev_keys[who], node.app.view()
    number, _ = node.app.keepers["auth"].account(view, key.address)
    return build_native(messages, key, node.genesis.chain_id, number, view.accounts.get_nonce(key.address),
                        [(node.genesis.base_denom, 2 * node.app.next_base_fee() * gas)], gas)


def commit_tx(node, raw):
    result = comet(node, "broadcast_tx_commit", tx=base64.b64encode(raw).decode())["result"]
    assert result["check_tx"]["code"] == 0 and result["tx_result"]["code"] == 0, result
    return int(result["height"])


@pytest_twisted.inlineCallbacks
def test_a_delegation_changes_the_set_two_blocks_later_everywhere(node_factory):
    node = start(node_factory)
    yield until_height(node, 1)
    prefix, operator = node.genesis.bech32_prefix, node.genesis.validators[0].operator
    delegator = node.dev_keys[1].address
    pubkey = node.genesis.validators[0].consensus_pubkey
    address = hashlib.sha256(pubkey).digest()[:20].hex().upper()

    def scenario():
        with connect(f"ws://127.0.0.1:{node.port_of('cometbft')}/websocket") as ws:
            ws.send(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "subscribe",
                                "params": {"query": "tm.event='ValidatorSetUpdates'"}}))
            assert json.loads(ws.recv(timeout=5))["result"] == {}
            height = commit_tx(node, signed(node, 1, [m.delegate(prefix, delegator, operator, 500 * CHAIN)]))
            update = json.loads(ws.recv(timeout=10))
        on_reactor(until_height, node, height + 2)
        vals = {h: comet(node, "validators", height=str(h))["result"] for h in (height + 1, height + 2)}
        headers = {h: comet(node, "header", height=str(h))["result"]["header"] for h in range(height, height + 3)}
        results = comet(node, "block_results", height=str(height))["result"]
        return height, update, vals, headers, results, comet(node, "status")["result"]

    height, update, vals, headers, results, status = yield in_thread(scenario)
    assert update["id"] == 3 and update["result"]["query"] == "tm.event='ValidatorSetUpdates'"
    assert update["result"]["events"] == {"tm.event": ["ValidatorSetUpdates"]}
    assert update["result"]["data"] == {"type": "tendermint/event/ValidatorSetUpdates", "value": {
        "validator_updates": [{"address": address, "pub_key": {"type": "tendermint/PubKeyEd25519",
                                                               "value": base64.b64encode(pubkey).decode()},
                               "voting_power": "1500", "proposer_priority": "0"}]}}
    assert vals[height + 1]["validators"][0]["voting_power"] == "1000"
    assert vals[height + 2]["validators"][0]["voting_power"] == "1500"
    assert vals[height + 2]["validators"][0]["address"] == address and vals[height + 2]["block_height"] == \
        str(height + 2)
    assert headers[height]["validators_hash"] == headers[height]["next_validators_hash"]
    assert headers[height + 1]["validators_hash"] == headers[height]["validators_hash"]
    assert headers[height + 1]["next_validators_hash"] != headers[height + 1]["validators_hash"]
    assert headers[height + 2]["validators_hash"] == headers[height + 1]["next_validators_hash"]
    assert results["validator_updates"] == [{"pub_key": {"Sum": {
        "type": "tendermint.crypto.PublicKey_Ed25519", "value": {"ed25519": base64.b64encode(pubkey).decode()}}},
        "power": "1500"}]
    assert status["validator_info"]["voting_power"] == "1500"


@pytest_twisted.inlineCallbacks
def test_a_second_validator_is_absent_in_commits_and_staking_queries_answer(node_factory):
    node = start(node_factory)
    yield until_height(node, 1)
    prefix = node.genesis.bech32_prefix
    first = node.genesis.validators[0].operator
    second, delegator = node.dev_keys[2].address, node.dev_keys[1].address
    _, new_key = m.new_consensus_key()
    channel = grpc.insecure_channel(f"127.0.0.1:{node.port_of('grpc')}")
    staking_q, cmt_q = sq_grpc.QueryStub(channel), cmt_grpc.ServiceStub(channel)

    def scenario():
        raw = signed(node, 2, [m.create(prefix, second, new_key, 300 * CHAIN)])
        reply = tx_grpc.ServiceStub(channel).BroadcastTx(tx_service.BroadcastTxRequest(
            tx_bytes=raw, mode=tx_service.BROADCAST_MODE_SYNC), timeout=10)
        assert reply.tx_response.code == 0, reply.tx_response.raw_log
        on_reactor(until_block, node, lambda: node.app.tx_position(txs.native_hash(raw)) is not None,
                   "the create-validator tx committed")
        height = node.app.tx_position(txs.native_hash(raw))[0]
        # Block H+2 is the first the new set signs; block H+3 carries that commit.
        on_reactor(until_height, node, height + 3)
        block = comet(node, "block", height=str(height + 3))["result"]["block"]
        commit = comet(node, "commit", height=str(height + 2))["result"]["signed_header"]["commit"]
        by_height = cmt_q.GetValidatorSetByHeight(cmt_query.GetValidatorSetByHeightRequest(height=height + 2),
                                                  timeout=10)
        before = cmt_q.GetValidatorSetByHeight(cmt_query.GetValidatorSetByHeightRequest(height=height + 1),
                                               timeout=10)
        # Delegate, undelegate and redelegate in one tx from dev 1.
        commit_tx(node, signed(node, 1, [m.delegate(prefix, delegator, first, 100 * CHAIN),
                                         m.undelegate(prefix, delegator, first, 10 * CHAIN),
                                         m.redelegate(prefix, delegator, first, second, 20 * CHAIN)]))
        return block, commit, by_height, before

    block, commit, by_height, before = yield in_thread(scenario)
    ours = hashlib.sha256(node.genesis.validators[0].consensus_pubkey).digest()[:20].hex().upper()
    sigs = block["last_commit"]["signatures"]
    assert [s["block_id_flag"] for s in sigs] == [2, 1]
    assert sigs[0]["validator_address"] == ours and sigs[0]["signature"]
    assert sigs[1] == {"block_id_flag": 1, "validator_address": "", "timestamp": "0001-01-01T00:00:00Z",
                       "signature": None}
    assert commit["signatures"] == sigs
    assert [(v.voting_power, v.address.startswith(prefix + "valcons1")) for v in by_height.validators] == \
        [(1000, True), (300, True)]
    assert by_height.pagination.total == 2 and len(before.validators) == 1

    missing = m.valoper(prefix, b"\x09" * 20)
    history_height = node.app.height

    def queries():
        valoper = m.valoper(prefix, second)
        out = {
            "all": staking_q.Validators(sq.QueryValidatorsRequest(), timeout=10),
            "unbonded": staking_q.Validators(sq.QueryValidatorsRequest(status="BOND_STATUS_UNBONDED"), timeout=10),
            "paged": staking_q.Validators(sq.QueryValidatorsRequest(
                pagination=pagination_pb2.PageRequest(limit=1, count_total=True)), timeout=10),
            "one": staking_q.Validator(sq.QueryValidatorRequest(validator_addr=valoper), timeout=10),
            "delegation": staking_q.Delegation(sq.QueryDelegationRequest(
                delegator_addr=to_bech32(prefix, delegator), validator_addr=m.valoper(prefix, first)), timeout=10),
            "delegations": staking_q.DelegatorDelegations(sq.QueryDelegatorDelegationsRequest(
                delegator_addr=to_bech32(prefix, delegator)), timeout=10),
            "of_validator": staking_q.ValidatorDelegations(sq.QueryValidatorDelegationsRequest(
                validator_addr=valoper), timeout=10),
            "unbonding": staking_q.UnbondingDelegation(sq.QueryUnbondingDelegationRequest(
                delegator_addr=to_bech32(prefix, delegator), validator_addr=m.valoper(prefix, first)), timeout=10),
            "redelegations": staking_q.Redelegations(sq.QueryRedelegationsRequest(
                delegator_addr=to_bech32(prefix, delegator)), timeout=10),
            "delegator_validators": staking_q.DelegatorValidators(sq.QueryDelegatorValidatorsRequest(
                delegator_addr=to_bech32(prefix, delegator)), timeout=10),
            "pool": staking_q.Pool(sq.QueryPoolRequest(), timeout=10),
            "params": staking_q.Params(sq.QueryParamsRequest(), timeout=10),
            "history": staking_q.HistoricalInfo(sq.QueryHistoricalInfoRequest(height=history_height), timeout=10),
        }
        errors = {}
        for name, call in {
                "missing": lambda: staking_q.Validator(sq.QueryValidatorRequest(
                    validator_addr=missing), timeout=10),
                "empty": lambda: staking_q.Validator(sq.QueryValidatorRequest(), timeout=10),
                "wrong_prefix": lambda: staking_q.Validator(sq.QueryValidatorRequest(
                    validator_addr=to_bech32(prefix, second)), timeout=10),
                "status": lambda: staking_q.Validators(sq.QueryValidatorsRequest(status="BONDED"), timeout=10),
                "no_delegation": lambda: staking_q.Delegation(sq.QueryDelegationRequest(
                    delegator_addr=to_bech32(prefix, b"\x09" * 20), validator_addr=valoper), timeout=10)}.items():
            try:
                call()
                errors[name] = None
            except grpc.RpcError as e:
                errors[name] = (e.code(), e.details())
        rests = {path: rest_sync(node, path) for path in (
            "/cosmos/staking/v1beta1/validators?status=BOND_STATUS_BONDED",
            f"/cosmos/staking/v1beta1/validators/{valoper}",
            "/cosmos/staking/v1beta1/pool", "/cosmos/staking/v1beta1/params",
            f"/cosmos/staking/v1beta1/validators/{missing}",
            f"/cosmos/staking/v1beta1/delegations/{to_bech32(prefix, delegator)}")}
        abci = comet(node, "abci_query", path="/cosmos.staking.v1beta1.Query/Pool", data="")["result"]["response"]
        return out, errors, rests, abci

    out, errors, rests, abci = yield in_thread(queries)
    channel.close()
    # In the SDK's store order: by operator address bytes.
    expected = [m.valoper(prefix, a) for a in sorted([first, second])]
    assert [v.operator_address for v in out["all"].validators] == expected
    assert {v.status for v in out["all"].validators} == {3}
    assert out["all"].pagination.total == 2 and not out["unbonded"].validators
    assert len(out["paged"].validators) == 1 and out["paged"].pagination.next_key
    v = out["one"].validator
    assert v.consensus_pubkey.type_url == "/cosmos.crypto.ed25519.PubKey" and v.tokens == str(320 * CHAIN)
    assert v.delegator_shares == str(320 * CHAIN * 10**18)      # LegacyDec atomics on the wire
    assert v.commission.commission_rates.rate == str(10**17) and v.min_self_delegation == "1"
    d = out["delegation"].delegation_response
    assert d.balance.amount == str(70 * CHAIN) and d.balance.denom == "achain"
    assert sorted(r.balance.amount for r in out["delegations"].delegation_responses) == [str(20 * CHAIN),
                                                                                          str(70 * CHAIN)]
    assert len(out["of_validator"].delegation_responses) == 2
    assert out["unbonding"].unbond.entries[0].balance == str(10 * CHAIN)
    [red] = out["redelegations"].redelegation_responses
    assert red.entries[0].balance == str(20 * CHAIN) and red.redelegation.validator_dst_address == m.valoper(
        prefix, second)
    assert len(out["delegator_validators"].validators) == 2
    assert out["pool"].pool.bonded_tokens == str((1000 + 300 + 90) * CHAIN)
    assert out["pool"].pool.not_bonded_tokens == str(10 * CHAIN)
    p = out["params"].params
    assert (p.bond_denom, p.max_validators, p.unbonding_time.seconds) == ("achain", 100, 1814400)
    # The set a block began with: both validators by then (the second joined three blocks earlier).
    assert out["history"].hist.header.height == history_height and len(out["history"].hist.valset) == 2
    assert [v.tokens for v in out["history"].hist.valset] == [str(1000 * CHAIN), str(300 * CHAIN)]
    assert errors["missing"] == (grpc.StatusCode.NOT_FOUND, f"validator {missing} not found")
    assert errors["empty"] == (grpc.StatusCode.INVALID_ARGUMENT, "validator address cannot be empty")
    assert errors["wrong_prefix"][0] == grpc.StatusCode.UNKNOWN and "hrp does not match" in errors["wrong_prefix"][1]
    assert errors["status"] == (grpc.StatusCode.INVALID_ARGUMENT, "invalid validator status BONDED")
    assert errors["no_delegation"][0] == grpc.StatusCode.NOT_FOUND
    paths = list(rests)
    status, _, body = rests[paths[0]]
    assert status == 200 and len(body["validators"]) == 2 and body["pagination"]["total"] == "2"
    assert rests[paths[1]][0] == 200 and rests[paths[1]][2]["validator"]["status"] == "BOND_STATUS_BONDED"
    assert rests[paths[2]][2]["pool"]["not_bonded_tokens"] == str(10 * CHAIN)
    assert rests[paths[3]][2]["params"]["unbonding_time"] == "1814400s"
    assert rests[paths[4]][0] == 404 and rests[paths[4]][2]["code"] == 5
    assert len(rests[paths[5]][2]["delegation_responses"]) == 2
    assert abci["code"] == 0 and sq.QueryPoolResponse.FromString(base64.b64decode(abci["value"])).pool.bonded_tokens \
        == str(1390 * CHAIN)


@pytest_twisted.inlineCallbacks
def test_validator_account_knows_a_validator_created_after_genesis(node_factory):
    node = start(node_factory)
    yield until_height(node, 1)
    prefix, operator = node.genesis.bech32_prefix, node.dev_keys[3].address
    _, new_key = m.new_consensus_key()
    valcons = to_bech32(prefix + "valcons", hashlib.sha256(new_key).digest()[:20])
    request = evm_q.QueryValidatorAccountRequest(cons_address=valcons)
    before, status = yield grpc_call(node, evm_grpc.QueryStub, "ValidatorAccount", request)
    assert before is None and f"validator not found for {valcons}" in status[1]
    height = yield in_thread(commit_tx, node, signed(node, 3, [m.create(prefix, operator, new_key, 10 * CHAIN)]))
    found, _ = yield grpc_call(node, evm_grpc.QueryStub, "ValidatorAccount", request, height=height)
    assert found.account_address == to_bech32(prefix, operator)
