"""`chaind export` as an operator runs it: a node with sends, a contract with storage and a delegation is stopped
and exported; `chaind init` with that genesis and the validator's key starts a new chain that holds the same
balances, code, storage and delegations, and makes blocks with the same validator."""

import json
import shutil

import attrs
import pytest
import pytest_twisted

import staking_msgs as m
from chain_driver import PROPOSER, Chain
from chaind.chain import genesis as genesis_mod
from chaind.crypto.addresses import to_bech32
from chaind.home import Home
from chaind.pb.cosmos.staking.v1beta1 import query_pb2 as staking_q
from chaind.pb.cosmos.staking.v1beta1 import query_pb2_grpc as staking_grpc
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_service
from chaind.pb.cosmos.tx.v1beta1 import service_pb2_grpc as tx_grpc
from cli_driver import cli, failed, ok
from contracts import INIT, RUNTIME
from evm_client import DEV0, OTHER, post, send, w3
from helpers import chaind_process, comet, in_thread, make_node, until_height
from native_client import broadcast, grpc_query, node_balances, signed_send, stub_call

RECIPIENT = bytes([0x33]) * 20
SLOT7 = "0x" + (7).to_bytes(32, "big").hex()


def _eth(node, method, *params):
    status, reply = post(node, {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)})
    assert status == 200 and "result" in reply, reply
    return reply["result"]


def _reads(node, contract, holders, delegator, operator, height):
    """What the test compares between the chains: balances (JSON-RPC and gRPC), code, storage, the delegation."""
    block = hex(height)
    prefix = node.genesis.bech32_prefix
    reply, error = grpc_query(node, staking_grpc.QueryStub, "Delegation", staking_q.QueryDelegationRequest(
        delegator_addr=to_bech32(prefix, delegator), validator_addr=to_bech32(prefix + "valoper", operator)),
        height=height)
    assert error is None, error
    return {"balances": [_eth(node, "eth_getBalance", h, block) for h in holders],
            "native": [node_balances(node, to_bech32(prefix, bytes.fromhex(h[2:]))) for h in holders],
            "code": _eth(node, "eth_getCode", contract, block),
            "storage": _eth(node, "eth_getStorageAt", contract, "0x0", block),
            "delegation": (reply.delegation_response.delegation.shares, reply.delegation_response.balance.amount)}


def _send_native(node, raw):
    reply = stub_call(node, tx_grpc.ServiceStub, "BroadcastTx",
                      tx_service.BroadcastTxRequest(tx_bytes=raw, mode=tx_service.BROADCAST_MODE_SYNC))
    assert reply.tx_response.code == 0, reply.tx_response.raw_log
    return reply.tx_response.txhash


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_a_chain_started_from_the_export_has_the_same_state_and_makes_blocks(tmp_path):
    node = make_node(tmp_path / "old")
    node.startService()
    try:
        web3 = w3(node)
        deployed = yield in_thread(send, web3, {"data": "0x" + INIT.hex(), "gas": 200000, "nonce": 0})
        contract = deployed.contractAddress
        yield in_thread(send, web3, {"to": contract, "data": SLOT7, "gas": 100000, "nonce": 1})
        yield in_thread(send, web3, {"to": OTHER, "value": 77, "nonce": 2})
        yield in_thread(_send_native, node, signed_send(node, 1, RECIPIENT, 10**15))
        delegator, operator = node.dev_keys[2].address, node.genesis.validators[0].operator
        yield in_thread(broadcast, node, 2, *m.delegate(node.genesis.bech32_prefix, delegator, operator, 5 * 10**18))
        height = node.app.height
        holders = [DEV0, OTHER, "0x" + RECIPIENT.hex(), "0x" + delegator.hex(), contract]
        before = yield in_thread(_reads, node, contract, holders, delegator, operator, height)
        validator_address = (yield in_thread(comet, node, "status"))["result"]["validator_info"]["address"]
    finally:
        yield node.stopService()
    assert before["storage"] == SLOT7 and before["code"] == "0x" + RUNTIME.hex()

    exported = tmp_path / "exported.json"
    result = yield in_thread(chaind_process, "export", "--home", tmp_path / "old", "--output-document", exported)
    assert result.returncode == 0, result.stderr
    doc = json.loads(exported.read_text())
    assert list(doc) == ["app_name", "app_version", "genesis_time", "chain_id", "initial_height", "app_hash",
                         "app_state", "consensus"]
    assert (doc["app_name"], doc["initial_height"], doc["app_hash"]) == ("chaind", height + 1, None)
    [validator] = doc["consensus"]["validators"]
    assert validator["address"] == validator_address and validator["name"] == "test"
    assert set(doc["consensus"]["params"]) >= {"block", "evidence", "validator"}
    # Without --output-document the same document goes to stdout.
    printed = yield in_thread(chaind_process, "export", "--home", tmp_path / "old")
    assert printed.returncode == 0 and json.loads(printed.stdout) == doc

    # An operator's upgrade by export: a new home, the exported genesis, the validator's key.
    result = yield in_thread(chaind_process, "init", "new", "--home", tmp_path / "new")
    assert result.returncode == 0, result.stderr
    new_home = Home(tmp_path / "new")
    shutil.copy(exported, new_home.genesis_file)
    shutil.copy(tmp_path / "old" / "config" / "priv_validator_key.json", new_home.config_dir)
    again = make_node(new_home.path, chain={"block_interval": 0.2, "empty_blocks": True})
    again.startService()
    try:
        yield until_height(again, height + 3)
        after = yield in_thread(_reads, again, contract, holders, delegator, operator, height)
        assert after == before
        status = (yield in_thread(comet, again, "status"))["result"]
        assert status["validator_info"]["address"] == validator_address
        assert status["node_info"]["moniker"] == "test"
        header = (yield in_thread(comet, again, "block", height=str(height + 2)))["result"]["block"]["header"]
        assert header["proposer_address"] == validator_address
        # The new chain takes txs on from the exported nonces.
        receipt = yield in_thread(send, w3(again), {"to": OTHER, "value": 1, "nonce": 3})
        assert receipt.status == 1 and receipt.blockNumber > height + 1
        exported_again = genesis_mod.export_document(again.app, height)
        assert exported_again["app_state"]["evm"] == genesis_mod.comet_document(doc)["app_state"]["evm"]
    finally:
        yield again.stopService()


@pytest.fixture
def stopped(tmp_path):
    """A dev home whose chain made six blocks, keeping the last three heights (the node stopped)."""
    chain = Chain(tmp_path, "home/data/chain.db", pruning=3, prune_interval=1)
    for i in range(6):
        block, puts = chain.app.finalize_block([], chain.genesis.genesis_time_ns + (i + 1) * 10**9, PROPOSER)
        chain.app.commit(block, puts)
    chain.close()
    return chain


def test_export_refuses_what_it_cannot_export_and_writes_nothing(stopped, tmp_path):
    home, out = stopped.home.path, tmp_path / "out.json"
    failed(cli("export", "--home", home, "--height", 1, "--output-document", out),
           "error exporting state: state at height 1 is pruned")
    failed(cli("export", "--home", home, "--height", 7), "error exporting state: height 7 is not committed yet")
    failed(cli("export", "--home", home, "--height", -2), "error exporting state: height -2 is negative")
    failed(cli("export", "--home", home, "--modules-to-export", "bank,nope"),
           "error exporting state: module nope does not exist")
    failed(cli("export", "--home", tmp_path / "none"), "no chain at")
    assert not out.exists()
    stopped.open()          # the node running: LevelDB admits one process
    try:
        failed(cli("export", "--home", home), "is the node still running?")
    finally:
        stopped.close()


def test_export_at_a_kept_height_of_some_modules(stopped):
    doc = json.loads(ok(cli("export", "--home", stopped.home.path, "--height", 4,
                            "--modules-to-export", "bank, evm")).stdout)
    assert doc["initial_height"] == 5 and sorted(doc["app_state"]) == ["bank", "evm"]
    # "ibc" names the IBC modules' section, as the SDK's one ibc module.
    doc = json.loads(ok(cli("export", "--home", stopped.home.path, "--modules-to-export", "ibc")).stdout)
    assert list(doc["app_state"]) == ["ibc"] and "client_genesis" in doc["app_state"]["ibc"]
    assert doc["consensus"]["params"]["block"]["max_gas"]


def test_the_chain_reads_an_app_genesis_as_the_cometbft_document_it_stands_for(stopped):
    doc = json.loads(stopped.home.genesis_file.read_text())
    shaped = genesis_mod.app_genesis(doc, "chaind", "1")
    read, direct = genesis_mod.Genesis.from_document(shaped), genesis_mod.Genesis.from_document(doc)
    assert attrs.evolve(read, document=None) == attrs.evolve(direct, document=None)
    assert read.document == {**direct.document, "initial_height": "1", "validators": [], "app_hash": ""}
    assert genesis_mod.comet_document({**shaped, "app_hash": "q80="})["app_hash"] == "ABCD"
    with pytest.raises(genesis_mod.GenesisError, match="app_hash 'nope!' is not base64"):
        genesis_mod.Genesis.from_document({**shaped, "app_hash": "nope!"})
    with pytest.raises(genesis_mod.GenesisError, match="consensus.params: missing"):
        genesis_mod.Genesis.from_document({**shaped, "consensus": {"validators": []}})
    assert genesis_mod.Genesis.from_document({**shaped, "initial_height": 0}).initial_height == 1


def test_an_export_whose_last_powers_name_an_unknown_validator_is_refused(stopped):
    doc = json.loads(ok(cli("export", "--home", stopped.home.path)).stdout)
    assert genesis_mod.Genesis.from_document(doc).validators[0].moniker == "test"
    doc["app_state"]["staking"]["last_validator_powers"][0]["address"] = to_bech32("chainvaloper", bytes(20))
    with pytest.raises(genesis_mod.GenesisError, match=r"app_state\.staking: last_validator_powers\[0\]: "
                                                       r"validator chainvaloper1q+\w+ is not in the genesis"):
        genesis_mod.Genesis.from_document(doc)
