"""cosmos/evm's staking (0x800), distribution (0x801), bank (0x804) and gov (0x805) precompiles on a running node,
called with web3.py's typed contract calls from their ABI: what they do shows over gRPC and REST, their native
events land in the tx's FinalizeBlock events, a contract (tests/solidity/PrecompileCaller.sol) acts for itself,
a reverted frame undoes its native moves, and no one acts for another account."""

import base64
import json
import pathlib

import pytest_twisted
from eth_account import Account
from eth_utils import keccak, to_checksum_address
from google.protobuf import json_format
from web3 import Web3

from chain_driver import Chain
from chaind.chain.modules.bank import precompile as bank_precompile
from chaind.chain.modules.distribution import precompile as distribution_precompile
from chaind.chain.modules.gov import precompile as gov_precompile
from chaind.chain.modules.staking import precompile as staking_precompile
from chaind.chain.replay import replay_chain
from chaind.crypto.addresses import from_bech32, module_address, to_bech32
from chaind.pb.cosmos.bank.v1beta1 import query_pb2 as bq
from chaind.pb.cosmos.bank.v1beta1 import query_pb2_grpc as bq_grpc
from chaind.pb.cosmos.distribution.v1beta1 import query_pb2 as dq
from chaind.pb.cosmos.distribution.v1beta1 import query_pb2_grpc as dq_grpc
from chaind.pb.cosmos.gov.v1 import query_pb2 as gq
from chaind.pb.cosmos.gov.v1 import query_pb2_grpc as gq_grpc
from chaind.pb.cosmos.staking.v1beta1 import query_pb2 as sq
from chaind.pb.cosmos.staking.v1beta1 import query_pb2_grpc as sq_grpc
from chaind.pb.cosmos.staking.v1beta1 import tx_pb2 as staking_tx
from chaind.pb.evmos.erc20.v1 import query_pb2 as eq
from chaind.pb.evmos.erc20.v1 import query_pb2_grpc as eq_grpc
from cli_driver import CHAIN, STAKE_TOKEN, VALOPER, staking_node
from evm_client import DEV0, DEV0_KEY, OTHER, rpc, send, w3
from helpers import call, comet, in_thread, rest, until_height

CALLER = json.loads((pathlib.Path(__file__).parent / "solidity" / "PrecompileCaller.json").read_text())
BOB = Account.from_key(keccak(b"bob"))
ERROR = keccak(b"Error(string)")[:4]
GOV_ACCOUNT = "0x" + module_address("gov").hex()


def contract(web3, precompile):
    return web3.eth.contract(address=to_checksum_address(precompile.ADDRESS), abi=precompile.PRECOMPILE.abi())


def b32(address):
    return to_bech32("chain", bytes.fromhex(address[2:]))


def transact(web3, fn, key=DEV0_KEY, gas=1_000_000, value=0):
    """Sign and send a typed contract call; its receipt (blocking: call through in_thread)."""
    sender = Account.from_key(key).address
    tx = fn.build_transaction({"from": sender, "gas": gas, "value": value, "nonce": web3.eth.get_transaction_count(
        sender), "maxFeePerGas": 10**10, "maxPriorityFeePerGas": 10**9, "chainId": 9000})
    return send(web3, {k: tx[k] for k in ("to", "data", "gas", "value", "nonce")}, key)


def call_error(web3, fn, sender):
    """The JSON-RPC error of an eth_call of a typed call that must revert."""
    tx = fn.build_transaction({"from": sender, "gas": 1_000_000, "maxFeePerGas": 0, "maxPriorityFeePerGas": 0})
    return web3.provider.make_request("eth_call", [{"from": sender, "to": tx["to"], "data": tx["data"]},
                                                   "latest"])["error"]


def native_events(node, height, evm_hash):
    """The FinalizeBlock events of the EVM tx `evm_hash` in block `height`."""
    results = comet(node, "block_results", height=str(height))["result"]["txs_results"]
    for result in results:
        for e in result["events"]:
            if e["type"] == "ethereum_tx" and any(a["value"] == evm_hash for a in e["attributes"]):
                return result["events"]
    raise AssertionError(f"no tx {evm_hash} in block {height}")


def attributes(events, type_):
    return [{a["key"]: a["value"] for a in e["attributes"]} for e in events if e["type"] == type_]


@pytest_twisted.inlineCallbacks
def delegation(node, delegator):
    found, _ = yield call(node, sq_grpc.QueryStub, "Delegation", sq.QueryDelegationRequest(
        delegator_addr=b32(delegator), validator_addr=VALOPER))
    return int(found.delegation_response.balance.amount)


@pytest_twisted.inlineCallbacks
def test_the_abi_is_cosmos_evm_s_and_no_address_has_code(node):
    web3 = w3(node)
    # Selectors of cosmos/evm's abi.json (StakingI, DistributionI, IBank, IGov).
    selectors = {m.selector.hex() for p in (staking_precompile, distribution_precompile, bank_precompile,
                                            gov_precompile) for m in p.PRECOMPILE.methods.values()}
    assert {"53266bbb", "3edab33c", "54b826f5", "12d58dfe", "f7cd5516", "a50f05ac", "241774e6", "223b3b7a",
            "186b2167", "10a2851c", "7d9f939c", "a03ffee1"} <= selectors
    for p in (staking_precompile, distribution_precompile, bank_precompile, gov_precompile):
        code = yield in_thread(web3.eth.get_code, to_checksum_address(p.ADDRESS))
        assert code == b""      # as cosmos/evm's node answers: its precompiles hold no code


@pytest_twisted.inlineCallbacks
def test_delegate_through_0x800_shows_over_grpc_rest_and_events(node_factory):
    node = staking_node(node_factory)
    yield until_height(node, 1)
    web3 = w3(node)
    staking = contract(web3, staking_precompile)
    before = yield delegation(node, DEV0)
    receipt = yield in_thread(transact, web3, staking.functions.delegate(DEV0, VALOPER, 5 * CHAIN))
    assert receipt.status == 1
    (log,) = staking.events.Delegate().process_receipt(receipt)
    assert log.args.delegatorAddress == DEV0 and log.args.amount == 5 * CHAIN
    assert log.args.validatorAddress == to_checksum_address(bytes.fromhex("f39Fd6e51aad88F6F4ce6aB8827279cffFb92266"))
    assert (yield delegation(node, DEV0)) == before + 5 * CHAIN
    status, _, body = yield rest(node, f"/cosmos/staking/v1beta1/validators/{VALOPER}/delegations/{b32(DEV0)}")
    assert status == 200 and int(body["delegation_response"]["balance"]["amount"]) == before + 5 * CHAIN
    # The typed query agrees, and the module's own events are the tx's.
    shares, balance = yield in_thread(staking.functions.delegation(DEV0, VALOPER).call)
    assert balance == ("achain", before + 5 * CHAIN) and shares == log.args.newShares + before * 10**18
    events = yield in_thread(native_events, node, receipt.blockNumber, receipt.transactionHash.to_0x_hex())
    (delegate,) = attributes(events, "delegate")
    assert delegate["validator"] == VALOPER and delegate["amount"] == f"{5 * CHAIN}achain"
    assert any(a["spender"] == b32(DEV0) for a in attributes(events, "coin_spent"))
    # Gas: RequiredGas (2,000 + 30 a byte of input) plus the store's KV gas, on top of the tx's 21,000.
    assert receipt.gasUsed > 21_000 + 2_000 + 30 * 4 + 20_000

    # Undelegate answers the completion time, which the unbonding query shows.
    receipt = yield in_thread(transact, web3, staking.functions.undelegate(DEV0, VALOPER, CHAIN))
    (unbond,) = staking.events.Unbond().process_receipt(receipt)
    _, _, entries = yield in_thread(staking.functions.unbondingDelegation(DEV0, VALOPER).call)
    assert entries[0][1] == unbond.args.completionTime and entries[0][3] == CHAIN
    validator = yield in_thread(staking.functions.validator(DEV0).call)
    assert validator[0] == DEV0 and validator[3] == 3 and validator[6][0]
    validators, page = yield in_thread(staking.functions.validators("BOND_STATUS_BONDED", (b"", 0, 10, True,
                                                                                           False)).call)
    assert [v[0] for v in validators] == [DEV0] and page[1] == 1


@pytest_twisted.inlineCallbacks
def test_no_one_acts_for_another_and_reverts_change_nothing(node):
    web3 = w3(node)
    staking = contract(web3, staking_precompile)
    error = yield in_thread(call_error, web3, staking.functions.delegate(OTHER, VALOPER, CHAIN), DEV0)
    assert error["message"] == (f"execution reverted: msg.sender address {DEV0} does not match the requester "
                                f"address {to_checksum_address(OTHER)}")
    assert error["data"].startswith("0x" + ERROR.hex())
    before = yield delegation(node, DEV0)
    balance = yield in_thread(web3.eth.get_balance, DEV0)
    # More than dev account 0 holds: the bank's reason, and nothing moves but the gas.
    fn = staking.functions.delegate(DEV0, VALOPER, balance * 2)
    receipt = yield in_thread(transact, web3, fn)
    assert receipt.status == 0
    # A failed call costs cosmos/evm's RequiredGas alone (2,000 + 30 a byte of input), its KV gas is not charged.
    data = bytes.fromhex(fn._encode_transaction_data()[2:])
    intrinsic = 21_000 + sum(16 if b else 4 for b in data)
    assert receipt.gasUsed == intrinsic + 2_000 + 30 * len(data)
    assert (yield delegation(node, DEV0)) == before
    fee = receipt.gasUsed * receipt.effectiveGasPrice
    assert (yield in_thread(web3.eth.get_balance, DEV0)) == balance - fee
    error = yield in_thread(call_error, web3, staking.functions.delegate(DEV0, VALOPER, balance * 2), DEV0)
    assert "insufficient funds" in error["message"]
    # Bad ABI data, an unknown method, a write in a static call.
    _, reply = yield rpc(node, "eth_call", {"from": DEV0, "to": "0x" + "00" * 18 + "0800",
                                            "data": "0x53266bbb" + "00" * 10}, "latest")
    assert reply["error"]["message"].startswith("execution reverted: invalid arguments for delegate")
    _, reply = yield rpc(node, "eth_call", {"from": DEV0, "to": "0x" + "00" * 18 + "0801", "data": "0x12345678"},
                         "latest")
    assert reply["error"]["message"] == "execution reverted: no method with id: 0x12345678"


@pytest_twisted.inlineCallbacks
def test_a_contract_acts_for_itself_and_a_reverted_frame_undoes_native_moves(node):
    web3 = w3(node)
    receipt = yield in_thread(send, web3, {"data": "0x" + CALLER["bytecode"], "gas": 2_000_000, "nonce": (
        yield in_thread(web3.eth.get_transaction_count, DEV0))})
    address = receipt.contractAddress
    caller = web3.eth.contract(address=address, abi=CALLER["abi"])
    receipt = yield in_thread(send, web3, {"to": address, "value": 10 * CHAIN, "nonce": (
        yield in_thread(web3.eth.get_transaction_count, DEV0)), "gas": 100_000})
    assert receipt.status == 1

    receipt = yield in_thread(transact, web3, caller.functions.delegateOwn(VALOPER, 3 * CHAIN))
    assert receipt.status == 1
    assert (yield delegation(node, address)) == 3 * CHAIN
    assert (yield in_thread(web3.eth.get_balance, address)) == 7 * CHAIN

    # The inner frame delegates then reverts; the outer one succeeds: no delegation, no coins moved, no events.
    receipt = yield in_thread(transact, web3, caller.functions.delegateInFailedFrame(VALOPER, 2 * CHAIN))
    assert receipt.status == 1
    assert (yield delegation(node, address)) == 3 * CHAIN
    assert (yield in_thread(web3.eth.get_balance, address)) == 7 * CHAIN
    events = yield in_thread(native_events, node, receipt.blockNumber, receipt.transactionHash.to_0x_hex())
    assert not attributes(events, "delegate") and not receipt.logs
    receipt = yield in_thread(transact, web3, caller.functions.delegateThenRevert(VALOPER, 2 * CHAIN))
    assert receipt.status == 0
    assert (yield delegation(node, address)) == 3 * CHAIN

    # The contract may not delegate its caller's coins.
    error = yield in_thread(call_error, web3, caller.functions.delegateForCaller(VALOPER, CHAIN), DEV0)
    assert "does not match the requester address" in error["message"]
    receipt = yield in_thread(transact, web3, caller.functions.claimOwn())
    assert receipt.status == 1


@pytest_twisted.inlineCallbacks
def test_rewards_agree_with_grpc_and_claim_raises_the_balance_exactly(node_factory):
    node = staking_node(node_factory)
    yield until_height(node, 1)
    web3 = w3(node)
    staking, distribution = contract(web3, staking_precompile), contract(web3, distribution_precompile)
    receipt = yield in_thread(send, web3, {"to": BOB.address, "value": 100 * CHAIN, "nonce": (
        yield in_thread(web3.eth.get_transaction_count, DEV0))})
    receipt = yield in_thread(transact, web3, staking.functions.delegate(BOB.address, VALOPER, 10 * CHAIN), BOB.key)
    assert receipt.status == 1
    # Fees to share out: each tx pays into the fee collector, the next block hands it out.
    for _ in range(3):
        yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": (
            yield in_thread(web3.eth.get_transaction_count, DEV0))})
    height = node.app.height
    yield until_height(node, height + 1)
    grpc_rewards, _ = yield call(node, dq_grpc.QueryStub, "DelegationRewards", dq.QueryDelegationRewardsRequest(
        delegator_address=b32(BOB.address), validator_address=VALOPER), height=height)
    atomics = int(next(c.amount for c in grpc_rewards.rewards if c.denom == "achain"))
    assert atomics > 0
    rewards = yield in_thread(distribution.functions.delegationRewards(BOB.address, VALOPER).call,
                              block_identifier=height)
    assert rewards == [("achain", atomics // 10**18, 18)]
    total, _ = yield in_thread(distribution.functions.delegationTotalRewards(BOB.address).call,
                               block_identifier=height)
    assert total == [(VALOPER, [("achain", atomics // 10**18, 18)])]
    validators = yield in_thread(distribution.functions.delegatorValidators(BOB.address).call)
    assert validators == [VALOPER]

    before = yield in_thread(web3.eth.get_balance, BOB.address)
    receipt = yield in_thread(transact, web3, distribution.functions.claimRewards(BOB.address, 10), BOB.key)
    assert receipt.status == 1
    (claimed,) = distribution.events.ClaimRewards().process_receipt(receipt)
    promised, _ = yield call(node, dq_grpc.QueryStub, "DelegationRewards", dq.QueryDelegationRewardsRequest(
        delegator_address=b32(BOB.address), validator_address=VALOPER), height=receipt.blockNumber - 1)
    assert claimed.args.amount >= int(promised.rewards[0].amount) // 10**18 > 0
    fee = receipt.gasUsed * receipt.effectiveGasPrice
    assert (yield in_thread(web3.eth.get_balance, BOB.address)) == before + claimed.args.amount - fee
    events = yield in_thread(native_events, node, receipt.blockNumber, receipt.transactionHash.to_0x_hex())
    (withdrawn,) = attributes(events, "withdraw_rewards")
    assert withdrawn["amount"] == f"{claimed.args.amount}achain" and withdrawn["delegator"] == b32(BOB.address)

    # The other queries answer as gRPC does.
    pool = yield in_thread(distribution.functions.communityPool().call, block_identifier=receipt.blockNumber)
    grpc_pool, _ = yield call(node, dq_grpc.QueryStub, "CommunityPool", dq.QueryCommunityPoolRequest(),
                              height=receipt.blockNumber)
    assert pool == [(c.denom, int(c.amount) // 10**18, 18) for c in grpc_pool.pool]
    withdraw_address = yield in_thread(distribution.functions.delegatorWithdrawAddress(BOB.address).call)
    assert withdraw_address == b32(BOB.address)
    error = yield in_thread(call_error, web3, distribution.functions.claimRewards(DEV0, 10), BOB.address)
    assert "does not match the requester address" in error["message"]


@pytest_twisted.inlineCallbacks
def test_bank_0x804_answers_balances_and_supply(node):
    web3 = w3(node)
    bank = contract(web3, bank_precompile)
    balances = yield in_thread(bank.functions.balances(DEV0).call)
    pairs, _ = yield call(node, eq_grpc.QueryStub, "TokenPairs", eq.QueryTokenPairsRequest())
    contracts = {p.denom: p.erc20_address for p in pairs.token_pairs}
    found, _ = yield call(node, bq_grpc.QueryStub, "AllBalances", bq.QueryAllBalancesRequest(address=b32(DEV0)))
    # Every coin held that has a token pair, in the bank's denom order: achain's is its WERC20, first (cosmos/evm's
    # bank suite expects it there).
    assert balances == [(contracts[c.denom], int(c.amount)) for c in found.balances if c.denom in contracts]
    assert balances[0][0] == "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE" and STAKE_TOKEN in dict(balances)
    supply, _ = yield call(node, bq_grpc.QueryStub, "SupplyOf", bq.QuerySupplyOfRequest(denom="stake"))
    assert (yield in_thread(bank.functions.supplyOf(STAKE_TOKEN).call)) == int(supply.amount.amount)
    total = yield in_thread(bank.functions.totalSupply().call)
    assert (STAKE_TOKEN, int(supply.amount.amount)) in total
    for token, amount in total:
        assert (yield in_thread(bank.functions.supplyOf(token).call)) == amount
    assert (yield in_thread(bank.functions.supplyOf(OTHER).call)) == 0


@pytest_twisted.inlineCallbacks
def test_gov_0x805_submit_deposit_vote_round_trip(node):
    web3 = w3(node)
    gov = contract(web3, gov_precompile)
    proposal = json.dumps({"messages": [], "metadata": "ipfs://precompile", "title": "From the EVM",
                           "summary": "A proposal submitted through 0x805"}).encode()
    receipt = yield in_thread(transact, web3, gov.functions.submitProposal(DEV0, proposal, [("achain", 10 * CHAIN)]))
    assert receipt.status == 1
    (submitted,) = gov.events.SubmitProposal().process_receipt(receipt)
    pid = submitted.args.proposalId
    found, _ = yield call(node, gq_grpc.QueryStub, "Proposal", gq.QueryProposalRequest(proposal_id=pid))
    assert found.proposal.title == "From the EVM" and found.proposal.proposer == b32(DEV0)
    receipt = yield in_thread(transact, web3, gov.functions.deposit(DEV0, pid, [("achain", CHAIN)]))
    assert receipt.status == 1
    receipt = yield in_thread(transact, web3, gov.functions.vote(DEV0, pid, 1, "yes from the EVM"))
    assert receipt.status == 1
    (voted,) = gov.events.Vote().process_receipt(receipt)
    assert voted.args.voter == DEV0 and voted.args.option == 1
    events = yield in_thread(native_events, node, receipt.blockNumber, receipt.transactionHash.to_0x_hex())
    assert attributes(events, "proposal_vote")[0]["proposal_id"] == str(pid)
    vote, _ = yield call(node, gq_grpc.QueryStub, "Vote", gq.QueryVoteRequest(proposal_id=pid, voter=b32(DEV0)))
    assert vote.vote.options[0].option == 1
    typed = yield in_thread(gov.functions.getVote(pid, DEV0).call)
    assert typed == (pid, DEV0, [(1, "1.000000000000000000")], "yes from the EVM")
    got = yield in_thread(gov.functions.getProposal(pid).call)
    assert got[0] == pid and got[2] == 2 and got[6] == [("achain", 11 * CHAIN)] and got[12] == DEV0
    deposits, page = yield in_thread(gov.functions.getDeposits(pid, (b"", 0, 10, True, False)).call)
    assert deposits == [(pid, DEV0, [("achain", 11 * CHAIN)])] and page[1] == 1
    params = yield in_thread(gov.functions.getParams().call)
    assert params[0] == 20 * 10**9 and params[1] == [("achain", 10)]  # the dev chain: 20 s, 10achain
    error = yield in_thread(call_error, web3, gov.functions.vote(OTHER, pid, 1, ""), DEV0)
    assert "does not match the requester address" in error["message"]


@pytest_twisted.inlineCallbacks
def test_create_edit_redelegate_cancel_through_0x800(node_factory):
    node = staking_node(node_factory)
    yield until_height(node, 1)
    web3 = w3(node)
    staking = contract(web3, staking_precompile)
    yield in_thread(send, web3, {"to": BOB.address, "value": 100 * CHAIN, "nonce": (
        yield in_thread(web3.eth.get_transaction_count, DEV0))})
    pubkey = base64.b64encode(keccak(b"bob's consensus key")).decode()
    rates = (10**17, 2 * 10**17, 10**16)
    receipt = yield in_thread(transact, web3, staking.functions.createValidator(
        ("bob", "", "", "", ""), rates, 1, BOB.address, pubkey, 5 * CHAIN), BOB.key)
    assert receipt.status == 1
    (created,) = staking.events.CreateValidator().process_receipt(receipt)
    assert created.args.validatorAddress == BOB.address and created.args.value == 5 * CHAIN
    bob_valoper = to_bech32("chainvaloper", bytes.fromhex(BOB.address[2:]))
    found, _ = yield call(node, sq_grpc.QueryStub, "Validator", sq.QueryValidatorRequest(validator_addr=bob_valoper))
    assert found.validator.description.moniker == "bob" and found.validator.commission.commission_rates.rate == \
        str(10**17)
    typed = yield in_thread(staking.functions.validator(BOB.address).call)
    assert typed[0] == BOB.address and typed[1] == pubkey and typed[9] == 10**17 and typed[4] == 5 * CHAIN
    # Another account may not create or edit a validator for bob.
    error = yield in_thread(call_error, web3, staking.functions.editValidator(
        ("x", "", "", "", ""), BOB.address, -1, -1), DEV0)
    assert "does not match the requester address" in error["message"]
    receipt = yield in_thread(transact, web3, staking.functions.editValidator(
        ("bob2", "[do-not-modify]", "[do-not-modify]", "[do-not-modify]", "[do-not-modify]"), BOB.address, -1, -1),
        BOB.key)
    assert receipt.status == 1
    (edited,) = staking.events.EditValidator().process_receipt(receipt)
    assert edited.args.commissionRate == -1 and edited.args.minSelfDelegation == -1
    assert (yield in_thread(staking.functions.validator(BOB.address).call))[6][0] == "bob2"

    # Redelegate from the genesis validator to bob's, and see it in both queries.
    receipt = yield in_thread(transact, web3, staking.functions.redelegate(DEV0, VALOPER, bob_valoper, 2 * CHAIN))
    assert receipt.status == 1
    (moved,) = staking.events.Redelegate().process_receipt(receipt)
    red = yield in_thread(staking.functions.redelegation(DEV0, VALOPER, bob_valoper).call)
    assert red[:3] == (b32(DEV0), VALOPER, bob_valoper)
    assert red[3][0][1] == moved.args.completionTime and red[3][0][2] == 2 * CHAIN
    responses, _ = yield in_thread(staking.functions.redelegations(DEV0, "", "", (b"", 0, 10, True, False)).call)
    assert responses[0][0][:3] == red[:3] and responses[0][1][0][1] == 2 * CHAIN
    error = yield in_thread(call_error, web3, staking.functions.redelegations(
        "0x" + "00" * 20, "", bob_valoper, (b"", 0, 10, False, False)), DEV0)
    assert "Need to specify at least a source validator address or delegator address" in error["message"]

    # Undelegate, then take it back by its creation height.
    before = yield delegation(node, DEV0)
    receipt = yield in_thread(transact, web3, staking.functions.undelegate(DEV0, VALOPER, CHAIN))
    _, _, entries = yield in_thread(staking.functions.unbondingDelegation(DEV0, VALOPER).call)
    height = entries[-1][0]
    assert height == receipt.blockNumber
    receipt = yield in_thread(transact, web3, staking.functions.cancelUnbondingDelegation(DEV0, VALOPER, CHAIN,
                                                                                          height))
    assert receipt.status == 1
    (cancelled,) = staking.events.CancelUnbondingDelegation().process_receipt(receipt)
    assert cancelled.args.creationHeight == height and cancelled.args.amount == CHAIN
    assert (yield delegation(node, DEV0)) == before


@pytest_twisted.inlineCallbacks
def test_distribution_messages_and_queries_through_0x801(node_factory):
    node = staking_node(node_factory)
    yield until_height(node, 1)
    web3 = w3(node)
    distribution = contract(web3, distribution_precompile)
    for _ in range(2):      # fees for the validator's commission
        yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": (
            yield in_thread(web3.eth.get_transaction_count, DEV0))})
    height = node.app.height
    yield until_height(node, height + 1)
    for method, request, typed in (
            ("ValidatorOutstandingRewards", dq.QueryValidatorOutstandingRewardsRequest(validator_address=VALOPER),
             distribution.functions.validatorOutstandingRewards(VALOPER)),
            ("ValidatorCommission", dq.QueryValidatorCommissionRequest(validator_address=VALOPER),
             distribution.functions.validatorCommission(VALOPER))):
        found, _ = yield call(node, dq_grpc.QueryStub, method, request, height=height)
        coins = found.rewards.rewards if method == "ValidatorOutstandingRewards" else found.commission.commission
        answer = yield in_thread(typed.call, block_identifier=height)
        assert answer == [(c.denom, int(c.amount) // 10**18, 18) for c in coins] and answer[0][1] > 0
    info = yield in_thread(distribution.functions.validatorDistributionInfo(VALOPER).call)
    # The operator's account address, as the SDK's ValidatorDistributionInfo answers it, on every face.
    operator_account = to_bech32("chain", from_bech32(VALOPER))
    assert info[0] == operator_account and info[2][0][0] == "achain"
    found, _ = yield call(node, dq_grpc.QueryStub, "ValidatorDistributionInfo",
                          dq.QueryValidatorDistributionInfoRequest(validator_address=VALOPER))
    assert found.operator_address == operator_account
    _, _, body = yield rest(node, f"/cosmos/distribution/v1beta1/validators/{VALOPER}")
    assert body["operator_address"] == operator_account
    slashes, page = yield in_thread(distribution.functions.validatorSlashes(VALOPER, 1, height,
                                                                            (b"", 0, 10, True, False)).call)
    assert slashes == [] and page == (b"", 0)

    balance = yield in_thread(web3.eth.get_balance, DEV0)
    receipt = yield in_thread(transact, web3, distribution.functions.withdrawValidatorCommission(VALOPER))
    assert receipt.status == 1
    (withdrawn,) = distribution.events.WithdrawValidatorCommission().process_receipt(receipt)
    assert withdrawn.args.validatorAddress == keccak(VALOPER.encode()) and withdrawn.args.commission > 0
    fee = receipt.gasUsed * receipt.effectiveGasPrice
    assert (yield in_thread(web3.eth.get_balance, DEV0)) == balance + withdrawn.args.commission - fee

    receipt = yield in_thread(transact, web3, distribution.functions.setWithdrawAddress(DEV0, OTHER))
    assert receipt.status == 1
    assert (yield in_thread(distribution.functions.delegatorWithdrawAddress(DEV0).call)) == b32(OTHER)
    other = yield in_thread(web3.eth.get_balance, to_checksum_address(OTHER))
    receipt = yield in_thread(transact, web3, distribution.functions.withdrawDelegatorRewards(DEV0, VALOPER))
    (paid,) = distribution.events.WithdrawDelegatorReward().process_receipt(receipt)
    assert (yield in_thread(web3.eth.get_balance, to_checksum_address(OTHER))) == other + paid.args.amount

    receipt = yield in_thread(transact, web3, distribution.functions.fundCommunityPool(DEV0, [("achain", 1000)]))
    (funded,) = distribution.events.FundCommunityPool().process_receipt(receipt)
    assert (funded.args.denom, funded.args.amount) == ("achain", 1000)
    events = yield in_thread(native_events, node, receipt.blockNumber, receipt.transactionHash.to_0x_hex())
    assert any(a["amount"] == "1000achain" for a in attributes(events, "coin_spent"))
    receipt = yield in_thread(transact, web3, distribution.functions.depositValidatorRewardsPool(
        DEV0, VALOPER, [("achain", 1000)]))
    (deposited,) = distribution.events.DepositValidatorRewardsPool().process_receipt(receipt)
    assert deposited.args.amount == 1000 and deposited.args.depositor == DEV0
    error = yield in_thread(call_error, web3, distribution.functions.fundCommunityPool(
        DEV0, [("achain", 10**40)]), DEV0)
    assert "insufficient funds" in error["message"]


@pytest_twisted.inlineCallbacks
def test_gov_0x805_weighted_votes_cancel_and_queries(node):
    web3 = w3(node)
    gov = contract(web3, gov_precompile)
    message = {"@type": "/cosmos.gov.v1.MsgUpdateParams", "authority": b32(GOV_ACCOUNT), "params": None}
    bad = json.dumps({"messages": [{"@type": "/nothing.Here"}], "title": "t", "summary": "s"}).encode()
    error = yield in_thread(call_error, web3, gov.functions.submitProposal(DEV0, bad, [("achain", 10)]), DEV0)
    assert "unable to resolve type URL /nothing.Here" in error["message"]
    error = yield in_thread(call_error, web3, gov.functions.submitProposal(DEV0, b"{", [("achain", 10)]), DEV0)
    assert "invalid proposal JSON" in error["message"]
    # A real message, in the SDK's JSON: the proposal holds it.
    params, _ = yield call(node, gq_grpc.QueryStub, "Params", gq.QueryParamsRequest())
    message["params"] = json.loads(json_format.MessageToJson(params.params, preserving_proto_field_name=True))
    proposal = json.dumps({"messages": [message], "title": "Same params", "summary": "no change",
                           "metadata": ""}).encode()
    receipt = yield in_thread(transact, web3, gov.functions.submitProposal(DEV0, proposal, [("achain", 10)]))
    assert receipt.status == 1
    (submitted,) = gov.events.SubmitProposal().process_receipt(receipt)
    pid = submitted.args.proposalId
    got = yield in_thread(gov.functions.getProposal(pid).call)
    assert got[1] == ["/cosmos.gov.v1.MsgUpdateParams"] and got[2] == 2
    options = [(1, "0.700000000000000000"), (3, "0.300000000000000000")]
    receipt = yield in_thread(transact, web3, gov.functions.voteWeighted(DEV0, pid, options, ""))
    assert receipt.status == 1
    (voted,) = gov.events.VoteWeighted().process_receipt(receipt)
    assert [(o["option"], o["weight"]) for o in voted.args.options] == options
    votes, page = yield in_thread(gov.functions.getVotes(pid, (b"", 0, 10, True, False)).call)
    assert votes == [(pid, DEV0, options, "")] and page[1] == 1
    tally = yield in_thread(gov.functions.getTallyResult(pid).call)
    grpc_tally, _ = yield call(node, gq_grpc.QueryStub, "TallyResult", gq.QueryTallyResultRequest(proposal_id=pid))
    assert tally == (grpc_tally.tally.yes_count, grpc_tally.tally.abstain_count, grpc_tally.tally.no_count,
                     grpc_tally.tally.no_with_veto_count) and int(tally[0]) > 0
    deposit = yield in_thread(gov.functions.getDeposit(pid, DEV0).call)
    assert deposit == (pid, DEV0, [("achain", 10)])
    proposals, _ = yield in_thread(gov.functions.getProposals(2, DEV0, "0x" + "00" * 20,
                                                              (b"", 0, 10, True, False)).call)
    assert pid in [p[0] for p in proposals]
    constitution, _ = yield call(node, gq_grpc.QueryStub, "Constitution", gq.QueryConstitutionRequest())
    assert (yield in_thread(gov.functions.getConstitution().call)) == constitution.constitution
    receipt = yield in_thread(transact, web3, gov.functions.cancelProposal(DEV0, pid))
    assert receipt.status == 1
    (cancelled,) = gov.events.CancelProposal().process_receipt(receipt)
    assert cancelled.args.proposalId == pid
    error = yield in_thread(call_error, web3, gov.functions.getProposal(pid), DEV0)
    assert "doesn't exist" in error["message"] or "not found" in error["message"]


@pytest_twisted.inlineCallbacks
def test_gov_0x805_proposal_messages_take_the_sdk_s_json(node):
    """LegacyDec fields in the SDK's JSON are decimals; the proposal's message holds their atomics."""
    web3 = w3(node)
    gov = contract(web3, gov_precompile)
    message = {"@type": "/cosmos.staking.v1beta1.MsgUpdateParams", "authority": b32(GOV_ACCOUNT),
               "params": {"unbonding_time": "1814400s", "max_validators": 50, "max_entries": 7,
                          "historical_entries": 10000, "bond_denom": "achain", "min_commission_rate": "0.05"}}
    proposal = json.dumps({"messages": [message], "title": "Commission floor", "summary": "5%"}).encode()
    receipt = yield in_thread(transact, web3, gov.functions.submitProposal(DEV0, proposal, [("achain", 10)]))
    (submitted,) = gov.events.SubmitProposal().process_receipt(receipt)
    found, _ = yield call(node, gq_grpc.QueryStub, "Proposal",
                          gq.QueryProposalRequest(proposal_id=submitted.args.proposalId))
    inner = staking_tx.MsgUpdateParams.FromString(found.proposal.messages[0].value)
    assert inner.params.min_commission_rate == str(5 * 10**16) and inner.params.max_validators == 50


def test_blocks_with_precompile_calls_replay_to_the_same_results_and_app_hashes(tmp_path):
    chain = Chain(tmp_path, "chain.db")
    try:
        dev0 = to_checksum_address(chain.keys[0].address)
        web3 = Web3()
        staking, distribution = contract(web3, staking_precompile), contract(web3, distribution_precompile)
        gov = contract(web3, gov_precompile)
        proposal = json.dumps({"messages": [], "metadata": "m", "title": "t", "summary": "s"}).encode()
        calls = [staking.functions.delegate(dev0, VALOPER, CHAIN), staking.functions.undelegate(dev0, VALOPER, 1),
                 distribution.functions.claimRewards(dev0, 10), staking.functions.delegate(dev0, VALOPER, 10**40),
                 gov.functions.submitProposal(dev0, proposal, [("achain", 10)]),
                 distribution.functions.withdrawValidatorCommission(VALOPER)]
        for nonce, fn in enumerate(calls):
            chain.block([chain.evm(0, nonce, to=fn.address, data=fn._encode_transaction_data(), gas=1_000_000)])
        app = chain.app
        for height in range(app.genesis.initial_height, app.height + 1):
            replayed = app.replay_block(height, lambda ctx, index, tx: None)
            stored = [app.result_at(height, i) for i in range(len(replayed))]
            assert [r.to_record() for r in replayed] == [r.to_record() for r in stored], height
        statuses = [app.result_at(h, 0).receipt.status for h in range(1, app.height + 1)]
        assert statuses == [1, 1, 1, 0, 1, 1]
        assert replay_chain(app, tmp_path / "replayed.db", app.options.vote_key, app.options.validator_address).ok
    finally:
        chain.close()
