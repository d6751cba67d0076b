"""`chaind rollback [--hard]` as the SDK's: the store after a rollback is the store as the height below left it
(but for content-addressed EVM trie nodes and preimages), the block kept unless --hard; the kept block executed
again gives the same block and app hash and the same store; a pruned height and a running node are refused."""

import shutil

import pytest
import pytest_twisted
from eth_account import Account

import staking_msgs as m
from abci_driver import Driver, Replica
from chain_driver import PROPOSER, RECIPIENTS, Chain, contract_address
from chaind.chain import txs
from chaind.chain.rollback import replay_kept_block
from chaind.store import keys
from chaind.store.db import Database
from cli_driver import cli, failed, ok
from contracts import INIT
from evm_client import OTHER, send, w3
from helpers import in_thread, make_node

S = 10**9
# Content-addressed: what a later height wrote of them may stay (a pruning pass collects what no root reaches).
LEFT_BEHIND = (keys.EVM_NODE, keys.EVM_PREIMAGE)


def _block(chain, raws):
    chain.clock += S
    block, puts = chain.app.finalize_block(raws, chain.clock, PROPOSER)
    assert all(r.code == 0 for r in block.results), [r.log for r in block.results]
    chain.app.commit(block, puts)
    return block


def _evm(chain, who, **tx):
    nonce = chain.app.view().accounts.get_nonce(chain.keys[who].address)
    return chain.evm(who, nonce, **tx)


def _contents(path):
    db = Database(path)
    try:
        return {k: v for k, v in db.iterate(b"") if not k.startswith(LEFT_BEHIND)}
    finally:
        db.close()


@pytest.fixture
def rolled(tmp_path):
    """A chain of four blocks with EVM, bank and staking txs (the last one's delegation changes the validator
    set), its store copied as block 3 and block 4 left it: (chain, store path, copy at 3, copy at 4, block 4)."""
    chain = Chain(tmp_path, "home/data/chain.db")
    chain.clock = chain.genesis.genesis_time_ns
    k = [key.address for key in chain.keys]
    prefix = chain.genesis.bech32_prefix
    contract = contract_address(k[1], chain.app.view().accounts.get_nonce(k[1]))
    _block(chain, [_evm(chain, 1, data=INIT), chain.native_send(2, k[3], 10**15)])
    _block(chain, [_evm(chain, 0, to=RECIPIENTS[0], value=5)])
    hash3 = _block(chain, []).meta.app_hash
    chain.close()
    at3 = tmp_path / "at3"
    shutil.copytree(chain.path, at3)
    chain.open()
    block4 = _block(chain, [_evm(chain, 1, to=contract, data=(7).to_bytes(32, "big")),
                            chain.native_send(3, RECIPIENTS[1], 10**15),
                            chain.native(chain.keys[4], [m.delegate(prefix, k[4], k[0], 5 * 10**18)], gas=400000)])
    assert chain.app.validator_set(6) != chain.app.validator_set(5)
    chain.close()
    at4 = tmp_path / "at4"
    shutil.copytree(chain.path, at4)
    return chain, chain.path, at3, at4, block4, hash3


def test_hard_rollback_leaves_the_store_as_the_height_below_left_it(rolled):
    chain, path, at3, _, _, hash3 = rolled
    out = ok(cli("rollback", "--hard", "--home", chain.home.path)).stdout
    assert out == f"Rolled back state to height 3 and hash {hash3.hex().upper()}\n"
    assert _contents(path) == _contents(at3)


def test_rollback_keeps_the_block_and_its_execution_makes_the_same_block_and_store(rolled):
    chain, path, at3, at4, block4, _ = rolled
    ok(cli("rollback", "--home", chain.home.path))
    kept = _contents(path)
    extra = set(kept) - set(_contents(at3))
    assert {k[:2] for k in extra} == {keys.BLOCK, keys.BLOCK_BY_HASH[:2], keys.TX}
    assert keys.block_key(4) in extra and len([k for k in extra if k.startswith(keys.TX)]) == 3
    # A second rollback while the block waits is CometBFT's: the state stays, --hard drops the block.
    assert ok(cli("rollback", "--home", chain.home.path)).stdout.startswith("Rolled back state to height 3 ")
    assert _contents(path) == kept
    chain.open()
    try:
        assert chain.app.height == 3
        replayed = replay_kept_block(chain.app)
        assert (replayed.hash, replayed.meta.app_hash) == (block4.hash, block4.meta.app_hash)
        assert replay_kept_block(chain.app) is None
    finally:
        chain.close()
    assert _contents(path) == _contents(at4)


def test_a_second_hard_rollback_drops_the_kept_block(rolled):
    chain, path, at3, _, _, _ = rolled
    ok(cli("rollback", "--home", chain.home.path))
    ok(cli("rollback", "--hard", "--home", chain.home.path))
    assert _contents(path) == _contents(at3)


def test_rollback_refuses_a_pruned_height_a_genesis_and_a_running_node(tmp_path):
    chain = Chain(tmp_path, "home/data/chain.db", pruning=1, prune_interval=1)
    chain.clock = chain.genesis.genesis_time_ns
    failed(cli("rollback", "--home", chain.home.path), "is the node still running?")
    chain.close()
    failed(cli("rollback", "--home", chain.home.path),
           "failed to rollback CometBFT state: no block to roll back: the chain is at its genesis height 0")
    chain.open()
    for _ in range(5):
        _block(chain, [])
    chain.close()
    # Pruning trails the head by its interval: the height below the head is kept, the one below that is not.
    ok(cli("rollback", "--hard", "--home", chain.home.path))
    before = _contents(chain.path)
    failed(cli("rollback", "--home", chain.home.path),
           "failed to rollback to version: version 3 is pruned (the oldest state kept is at height 4)")
    assert _contents(chain.path) == before


@pytest_twisted.inlineCallbacks
def test_a_node_restarted_after_a_rollback_executes_the_kept_block_again(tmp_path):
    node = make_node(tmp_path / "home")
    node.startService()
    try:
        web3 = w3(node)
        yield in_thread(send, web3, {"data": "0x" + INIT.hex(), "gas": 200000, "nonce": 0})
        receipt = yield in_thread(send, web3, {"to": OTHER, "value": 77, "nonce": 1})
        height = node.app.height
        header, meta = node.app.block_at(height)
    finally:
        yield node.stopService()
    assert receipt.blockNumber == height
    result = ok(cli("rollback", "--home", tmp_path / "home"))
    assert result.stdout.startswith(f"Rolled back state to height {height - 1} ")
    again = make_node(tmp_path / "home")
    again.startService()
    try:
        assert again.app.height == height
        assert again.app.block_at(height)[1].hash == meta.hash and again.app.block_at(height)[1].app_hash == \
            meta.app_hash
        web3 = w3(again)
        assert (yield in_thread(web3.eth.get_balance, OTHER)) == 77
        found = yield in_thread(web3.eth.get_transaction_receipt, receipt.transactionHash)
        assert found.blockNumber == height and found.status == 1
        later = yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": 2})
        assert later.blockNumber == height + 1
    finally:
        yield again.stopService()


def _drive(port, driver, raws_by_height, genesis_time_ns):
    """The driver's handshake with the app at `port`, then one block of each raws list; the replica closed."""
    replica = Replica(port)
    try:
        driver.handshake(replica)
        for i, raws in enumerate(raws_by_height):
            driver.run_block([replica], driver.decide(raws, genesis_time_ns + (i + 1) * S))
    finally:
        replica.close()


def _handshake(port, driver):
    replica = Replica(port)
    try:
        return driver.handshake(replica)        # the replayed blocks' app hashes checked against the store's
    finally:
        replica.close()


@pytest_twisted.inlineCallbacks
def test_in_socket_mode_the_handshake_replays_the_rolled_back_height_with_the_same_app_hash(tmp_path):
    socket_mode = {"abci": {"mode": "socket", "address": "127.0.0.1:0"}}
    node = make_node(tmp_path / "home", **socket_mode)
    node.startService()
    driver = Driver(node.genesis.document)
    try:
        key, denom = node.dev_keys[0], node.genesis.base_denom
        raws = [[txs.wrap_evm(Account.sign_transaction(
            {"chainId": 9000, "gas": 21000, "maxFeePerGas": 10**10, "maxPriorityFeePerGas": 1, "nonce": i,
             "to": "0x" + "33" * 20, "value": 100 + i}, key.private_key).raw_transaction, 9000, denom).raw]
            for i in range(3)]
        yield in_thread(_drive, node.port_of("abci"), driver, raws, node.genesis.genesis_time_ns)
        assert node.app.height == 3
    finally:
        yield node.stopService()
    assert ok(cli("rollback", "--home", tmp_path / "home")).stdout == \
        f"Rolled back state to height 2 and hash {driver.blocks[2].app_hash.hex().upper()}\n"
    again = make_node(tmp_path / "home", **socket_mode)
    again.startService()
    try:
        assert again.app.height == 2            # CometBFT replays the height, not the node
        assert (yield in_thread(_handshake, again.port_of("abci"), driver)) == 2
        assert again.app.height == 3 and again.app.head[1].app_hash == driver.blocks[3].app_hash
    finally:
        yield again.stopService()
