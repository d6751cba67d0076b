"""cosmos/evm's ICS02 precompile (0x...0807) on a running node (chain A) with a client of a second running node
(chain B, its own chain id) made from B's signed headers as /commit and /validators serve them: web3.py's typed calls
and a Solidity contract (tests/solidity/ICS02Caller.sol) read the client and check membership and non-membership
proofs of B's ibc store from B's abci_query, a tampered proof is refused with the reason cosmos/evm gives,
updateClient moves the client to a newer header of B, and a conflicting header freezes a client (Misbehaviour)."""

import json
import pathlib
import time

import pytest_twisted
from eth_utils import to_checksum_address
from google.protobuf import any_pb2

import ibc_chains as ic
import ibc_client_msgs as m
from chaind.chain.modules.ibc_client import precompile as ics02
from chaind.chain.modules.staking.params import params as staking_params
from chaind.home import Home
from chaind.pb.ibc.lightclients.tendermint.v1 import tendermint_pb2 as tm
from evm_client import DEV0, DEV0_KEY, send, w3
from helpers import b32, comet, in_thread, until_height
from ibc_node import node_proof
from ibc_node import send as send_on
from light_headers import SECOND, key, signed_header, validator_set

CALLER = json.loads((pathlib.Path(__file__).parent / "solidity" / "ICS02Caller.json").read_text())
CLIENT = "07-tendermint-0"
B_CHAIN_ID = "chainb_9001-1"
STORED = "clients/07-tendermint-0/clientState"          # what B holds: its own client of a third chain
ABSENT = "clients/07-tendermint-9/clientState"
THIRD = validator_set([key(i) for i in range(4)])


def ics02_contract(web3):
    return web3.eth.contract(address=to_checksum_address(ics02.ADDRESS), abi=ics02.PRECOMPILE.abi())


def transact(web3, fn, gas=1_000_000):
    tx = fn.build_transaction({"from": DEV0, "gas": gas, "nonce": web3.eth.get_transaction_count(DEV0),
                               "maxFeePerGas": 10**10, "maxPriorityFeePerGas": 10**9, "chainId": 9000})
    return send(web3, {k: tx[k] for k in ("to", "data", "gas", "value", "nonce")}, DEV0_KEY)


def reverted(web3, fn):
    """The error message of an eth_call of `fn`, which must revert."""
    tx = fn.build_transaction({"from": DEV0, "gas": 1_000_000, "maxFeePerGas": 0, "maxPriorityFeePerGas": 0})
    reply = web3.provider.make_request("eth_call", [{"from": DEV0, "to": tx["to"], "data": tx["data"]}, "latest"])
    return reply["error"]["message"]


def tx_events(node, height, evm_hash):
    for result in comet(node, "block_results", height=str(height))["result"]["txs_results"]:
        if any(a["value"] == evm_hash for e in result["events"] if e["type"] == "ethereum_tx"
               for a in e["attributes"]):
            return result["events"]
    raise AssertionError(f"no tx {evm_hash} in block {height}")


def start_b(node_factory, tmp_path):
    """Chain B: a node of its own, its own chain id."""
    Home(tmp_path / "b").init("test", chain_id=B_CHAIN_ID, dev=True)
    return node_factory("b")


@pytest_twisted.inlineCallbacks
def b_header(b, height, trusted):
    """B's block `height` as a 07-tendermint Header trusting `trusted`, once B has made the block after it."""
    while b.app.height <= height:
        following = b.app.height + 1
        yield in_thread(ic.mine, b)
        yield until_height(b, following)
    return (yield in_thread(ic.node_header, b, height, trusted))


@pytest_twisted.inlineCallbacks
def b_with_a_client_of_it_on_a(a, b):
    """(B's height the client is at, the stored value, its proof, a proof of ABSENT): B holds STORED after block
    height - 1 (a client of a third chain), as its abci_query proves; A's CLIENT is a client of B at `height`, whose
    app hash commits to that state."""
    yield until_height(b, b.app.genesis.initial_height)
    third = signed_header(10, time.time_ns() - 100 * SECOND, THIRD, THIRD, None)
    proven = yield send_on(b, m.create(b32(b, b.dev_keys[1].address), m.client_state(10), m.consensus_state(third)))
    value, proof = yield node_proof(b, STORED, proven)
    _, absence = yield node_proof(b, ABSENT, proven)
    header = yield b_header(b, proven + 1, proven)
    unbonding = staking_params(b.app.view()).unbonding_time_ns
    cs = m.client_state(proven + 1, chain_id=B_CHAIN_ID, trusting=unbonding * 2 // 3, unbonding=unbonding)
    yield send_on(a, m.create(b32(a, a.dev_keys[1].address), cs, m.consensus_state(header.signed_header)))
    return proven + 1, value, proof, absence


@pytest_twisted.inlineCallbacks
def test_web3_reads_the_client_and_verifies_proofs_of_the_counterparty(node, node_factory, tmp_path):
    b = start_b(node_factory, tmp_path)
    height, value, proof, absence = yield b_with_a_client_of_it_on_a(node, b)
    web3 = w3(node)
    fns = ics02_contract(web3).functions
    found = yield in_thread(fns.getClientState(CLIENT).call)
    assert tm.ClientState.FromString(found) == node.app.keepers["ibc_client"].client_state(node.app.view(), CLIENT)
    assert tm.ClientState.FromString(found).chain_id == "chainb_9001-1"

    b_time = b.app.block_at(height)[0].time_ns // 10**9       # B's header time at the proof height
    path = [b"ibc", STORED.encode()]
    assert (yield in_thread(fns.verifyMembership(CLIENT, proof, (1, height), path, value).call)) == b_time
    absent = [b"ibc", ABSENT.encode()]
    assert (yield in_thread(fns.verifyNonMembership(CLIENT, absence, (1, height), absent).call)) == b_time

    # A value the proof does not show, a proof of presence offered for an absence and one of absence for a
    # key that is there, a height the client lacks: cosmos/evm's texts (ibc-go v11's, with ics23's reason).
    tampered = value[:-1] + bytes([value[-1] ^ 1])
    message = yield in_thread(reverted, web3, fns.verifyMembership(CLIENT, proof, (1, height), path, tampered))
    assert message == ("execution reverted: failed to verify membership proof at index 0: provided value doesn't "
                       "match proof: invalid proof")
    message = yield in_thread(reverted, web3, fns.verifyNonMembership(CLIENT, proof, (1, height), path))
    assert message == ("execution reverted: commitment proof must be non-existence proof for verifying "
                       "non-membership. got: *ics23.CommitmentProof: invalid proof")
    message = yield in_thread(reverted, web3, fns.verifyNonMembership(CLIENT, absence, (1, height), path))
    assert message == (f"execution reverted: failed to verify non-membership proof with key {STORED}: key is not "
                       "right of left proof: invalid proof")
    message = yield in_thread(reverted, web3, fns.verifyMembership(CLIENT, proof, (1, height + 5), path, value))
    assert message == (f"execution reverted: client state height < proof height ({{1 {height}}} < "
                       f"{{1 {height + 5}}}), please ensure the client has been updated: invalid height")
    message = yield in_thread(reverted, web3, fns.verifyMembership("bad", proof, (1, height), path, value))
    assert message == "execution reverted: invalid client ID: bad: light client is invalid"
    message = yield in_thread(reverted, web3, fns.verifyMembership("07-tendermint-7", proof, (1, height), path,
                                                                   value))
    assert message == ("execution reverted: cannot call verify membership on client (07-tendermint-7) with "
                       "status Unknown: client state is not active")
    message = yield in_thread(reverted, web3, fns.getClientState("07-tendermint-7"))
    assert message == "execution reverted: client state not found for client ID 07-tendermint-7"

    # Listed and answered where the other modules' precompiles are.
    active = node.app.keepers["evm"].params(node.app.view()).active_static_precompiles
    assert "0x0000000000000000000000000000000000000807" in active
    assert (yield in_thread(web3.eth.get_code, to_checksum_address(ics02.ADDRESS))) == b""


@pytest_twisted.inlineCallbacks
def test_a_contract_accepts_only_proven_state_and_update_client_moves_the_client(node, node_factory, tmp_path):
    b = start_b(node_factory, tmp_path)
    height, value, proof, absence = yield b_with_a_client_of_it_on_a(node, b)
    web3 = w3(node)
    receipt = yield in_thread(send, web3, {"data": "0x" + CALLER["bytecode"], "gas": 2_000_000, "nonce": (
        yield in_thread(web3.eth.get_transaction_count, DEV0))})
    caller = web3.eth.contract(address=receipt.contractAddress, abi=CALLER["abi"])
    b_time = b.app.block_at(height)[0].time_ns // 10**9       # B's header time at the proof height

    receipt = yield in_thread(transact, web3, caller.functions.acceptValue(
        CLIENT, proof, (1, height), b"ibc", STORED.encode(), value))
    assert receipt.status == 1
    (log,) = caller.events.Proven().process_receipt(receipt)
    assert (log.args.key, log.args.value, log.args.timestamp) == (STORED.encode(), value, b_time)
    assert (yield in_thread(caller.functions.provenAt(height).call)) == b_time
    receipt = yield in_thread(transact, web3, caller.functions.acceptAbsence(
        CLIENT, absence, (1, height), b"ibc", ABSENT.encode()))
    assert receipt.status == 1 and caller.events.Absent().process_receipt(receipt)[0].args.timestamp == b_time
    # The precompile's reason reaches the contract's caller; the tx reverts.
    tampered = value[:-1] + bytes([value[-1] ^ 1])
    message = yield in_thread(reverted, web3, caller.functions.acceptValue(
        CLIENT, proof, (1, height), b"ibc", STORED.encode(), tampered))
    assert message == ("execution reverted: failed to verify membership proof at index 0: provided value doesn't "
                       "match proof: invalid proof")
    receipt = yield in_thread(transact, web3, caller.functions.acceptValue(
        CLIENT, proof, (1, height), b"ibc", STORED.encode(), tampered))
    assert receipt.status == 0
    assert (yield in_thread(caller.functions.clientState(CLIENT).call)) == (
        yield in_thread(ics02_contract(web3).functions.getClientState(CLIENT).call))

    # updateClient with a newer header of B, signed by B's validators: the client moves to its height.
    newer = b.app.height + 1
    header = yield b_header(b, newer, height)
    update = any_pb2.Any(type_url="/ibc.lightclients.tendermint.v1.Header", value=header.SerializeToString())
    fns = ics02_contract(web3).functions
    assert (yield in_thread(fns.updateClient(CLIENT, update.SerializeToString()).call)) == ics02.UPDATE
    receipt = yield in_thread(transact, web3, fns.updateClient(CLIENT, update.SerializeToString()),
                              gas=3_000_000)
    assert receipt.status == 1
    found = tm.ClientState.FromString((yield in_thread(fns.getClientState(CLIENT).call)))
    assert (found.latest_height.revision_number, found.latest_height.revision_height) == (1, newer)
    events = yield in_thread(tx_events, node, receipt.blockNumber, receipt.transactionHash.to_0x_hex())
    (updated,) = [{a["key"]: a["value"] for a in e["attributes"]} for e in events if e["type"] == "update_client"]
    assert updated["client_id"] == CLIENT and updated["consensus_height"] == f"1-{newer}"
    # What is not a client message, and a client that is not there, are refused with their reasons.
    message = yield in_thread(reverted, web3, fns.updateClient(CLIENT, b"\x0a\x03abc"))
    assert message == ("execution reverted: no concrete type registered for type URL abc against interface "
                       "*exported.ClientMessage")
    message = yield in_thread(reverted, web3, fns.updateClient("07-tendermint-7", update.SerializeToString()))
    assert message == ("execution reverted: cannot update client (07-tendermint-7) with status Unknown: client "
                       "state is not active")


@pytest_twisted.inlineCallbacks
def test_update_client_with_a_conflicting_header_answers_misbehaviour_and_freezes_the_client(node):
    """A second header at a height the client holds, with another app hash, signed by the same validators."""
    web3 = w3(node)
    fns = ics02_contract(web3).functions
    t0 = time.time_ns() - 100 * SECOND
    yield send_on(node, m.create(b32(node, node.dev_keys[1].address), m.client_state(10),
                                 m.consensus_state(signed_header(10, t0, THIRD, THIRD, None))))

    def update(app_hash):
        header = m.header(signed_header(11, t0 + 5 * SECOND, THIRD, THIRD, None, app_hash=app_hash), THIRD, 10, THIRD)
        return fns.updateClient(CLIENT, any_pb2.Any(type_url="/ibc.lightclients.tendermint.v1.Header",
                                                    value=header.SerializeToString()).SerializeToString())

    receipt = yield in_thread(transact, web3, update(b"\x11" * 32), gas=3_000_000)
    assert receipt.status == 1
    assert (yield in_thread(update(b"\x12" * 32).call)) == ics02.MISBEHAVIOUR
    receipt = yield in_thread(transact, web3, update(b"\x12" * 32), gas=3_000_000)
    assert receipt.status == 1
    found = node.app.keepers["ibc_client"].client_state(node.app.view(), CLIENT)
    assert (found.frozen_height.revision_number, found.frozen_height.revision_height) == (0, 1)
    events = yield in_thread(tx_events, node, receipt.blockNumber, receipt.transactionHash.to_0x_hex())
    assert [e["type"] for e in events if e["type"] in ("client_misbehaviour", "update_client")] == [
        "client_misbehaviour"]
    message = yield in_thread(reverted, web3, update(b"\x13" * 32))
    assert message == ("execution reverted: cannot update client (07-tendermint-0) with status Frozen: client state "
                       "is not active")
