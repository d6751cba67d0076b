"""Pruning: reads below the kept heights are clear errors, kept heights read right, disk use stays bounded."""

import pytest
import pytest_twisted

from chain_driver import Chain
from chaind import config
from chaind.chain.app import PrunedError
from chaind.store import keys, pruning
from chaind.store.db import Database
from chaind.store.versioned import VersionedReader, VersionedWriter
from contracts import INIT
from evm_client import OTHER, post, send, w3
from helpers import in_thread


def count(db, prefix):
    return sum(1 for _ in db.keys(prefix))


# -- native versions --------------------------------------------------------------------------------

def test_stale_versions_keep_the_floor_and_drop_dead_tombstones(tmp_path):
    db = Database(tmp_path / "db")
    history = {1: {b"a": b"a1"}, 2: {b"b": b"b2"}, 3: {b"a": b"a3"}, 4: {b"b": None},
               5: {b"a": None}, 6: {b"c": b"c6"}}
    for height, changes in history.items():
        writer = VersionedWriter(db, height)
        for key, value in changes.items():
            writer.set(key, value) if value is not None else writer.delete(key)
        db.write(writer.batch_puts())
    before = {h: [VersionedReader(db, h).get(k) for k in (b"a", b"b", b"c")] for h in range(4, 7)}
    stats = pruning.collect_garbage(db, 4, set())
    # a@1 is shadowed by a@3 (the floor at 4); b's floor is a tombstone, so b@4 and b@2 go too.
    assert stats.versions_deleted == 3
    left = {(k[2:-8], keys.height_of(bytes(a ^ 0xFF for a in k[-8:]))) for k in db.keys(keys.VERSIONED)}
    assert left == {(b"a", 5), (b"a", 3), (b"c", 6)}
    assert {h: [VersionedReader(db, h).get(k) for k in (b"a", b"b", b"c")] for h in range(4, 7)} == before
    assert db.get(keys.PRUNED_BELOW) == keys.height_bytes(4)
    db.close()


@pytest.mark.slow
def test_pruning_bounds_disk_and_keeps_every_kept_height_right(tmp_path):
    archive = Chain(tmp_path, "archive")
    pruned = Chain(tmp_path, "pruned", pruning=5, prune_interval=3)
    counts = {"archive": [], "pruned": []}
    for step in range(60):
        a, p = archive.block(archive.workload(step)), pruned.block(pruned.workload(step))
        # Pruning changes nothing a block commits to.
        assert a.meta.app_hash == p.meta.app_hash
        for name, chain in (("archive", archive), ("pruned", pruned)):
            counts[name].append(count(chain.db, keys.VERSIONED) + count(chain.db, keys.EVM_NODE))
    head = pruned.app.height
    oldest = pruned.app.oldest_state_height()
    assert oldest == head - 4
    for height in range(oldest, head + 1):
        assert pruned.reads(height) == archive.reads(height)
    with pytest.raises(PrunedError, match=f"state at height {oldest - 1} is pruned"):
        pruned.app.view(oldest - 1)
    # Archive keeps growing; pruning reaches a steady state and stays there.
    assert counts["archive"][-1] > counts["archive"][30] > counts["archive"][10]
    assert max(counts["pruned"][30:]) <= max(counts["pruned"][10:30])
    assert counts["pruned"][-1] < counts["archive"][-1] / 3
    # History stays: blocks and tx results below the pruned heights are all still there.
    assert pruned.app.block_at(1)[1].hash == archive.app.block_at(1)[1].hash
    assert pruned.app.result_at(1, 0) == archive.app.result_at(1, 0)
    # Every node an archive stores is reached from some height's root: the mark walk misses no kind of node.
    roots = {archive.app.block_at(h)[1].evm_state_root for h in range(0, archive.app.height + 1)}
    live = pruning.live_nodes(archive.db, roots)
    assert {k[2:] for k in archive.db.keys(keys.EVM_NODE)} == live
    archive.close()
    pruned.close()


def test_restart_with_pruning_keeps_working(tmp_path):
    chain = Chain(tmp_path, "chain", pruning=4, prune_interval=2)
    for step in range(20):
        chain.block(chain.workload(step))
    expected = {h: chain.reads(h) for h in range(chain.app.oldest_state_height(), chain.app.height + 1)}
    head, app_hash = chain.app.height, chain.app.head[1].app_hash
    chain.close()
    chain.open()
    assert chain.app.height == head and chain.app.head[1].app_hash == app_hash
    assert {h: chain.reads(h) for h in expected} == expected
    for step in range(20, 30):
        chain.block(chain.workload(step))
    assert chain.app.oldest_state_height() == chain.app.height - 3
    chain.reads(chain.app.oldest_state_height())
    pruned_below = keys.height_of(chain.db.get(keys.PRUNED_BELOW))
    chain.close()
    # Back to archive: what was deleted stays an error, not a wrong answer.
    chain.open(pruning=0)
    assert chain.app.oldest_state_height() == pruned_below
    chain.reads(pruned_below)
    with pytest.raises(PrunedError, match=f"state at height {pruned_below - 1} is pruned"):
        chain.app.view(pruned_below - 1)
    chain.block(chain.workload(30))
    chain.close()


def test_a_missing_node_stops_the_pass_before_any_delete(tmp_path):
    chain = Chain(tmp_path, "chain", pruning=3, prune_interval=4)
    for step in range(10):
        chain.block(chain.workload(step))
    root = chain.app.head[1].evm_state_root
    chain.db.write({}, [keys.EVM_NODE + root])
    before = count(chain.db, keys.EVM_NODE) + count(chain.db, keys.VERSIONED)
    with pytest.raises(pruning.PruneError, match=root.hex()):
        chain.app.prune()
    assert count(chain.db, keys.EVM_NODE) + count(chain.db, keys.VERSIONED) == before
    chain.close()


# -- over JSON-RPC ---------------------------------------------------------------------------------

@pytest_twisted.inlineCallbacks
def test_pruned_height_is_a_clear_jsonrpc_error(node_factory):
    node = node_factory(storage={"pruning": 4, "prune_interval": 2})
    web3 = w3(node)
    deploy = yield in_thread(send, web3, {"data": "0x" + INIT.hex(), "gas": 200000, "nonce": 0})
    contract = deploy.contractAddress
    expected = {}
    for i in range(1, 13):
        receipt = yield in_thread(send, web3, {"to": OTHER, "value": i, "nonce": 2 * i - 1})
        stored = yield in_thread(send, web3, {"to": contract, "data": "0x" + i.to_bytes(32, "big").hex(),
                                              "gas": 100000, "nonce": 2 * i})
        expected[receipt.blockNumber] = (i * (i - 1) // 2 + i, i - 1)
        expected[stored.blockNumber] = (i * (i + 1) // 2, i)
    head = node.app.height
    for height in range(head - 3, head + 1):
        balance = yield in_thread(web3.eth.get_balance, OTHER, height)
        slot = yield in_thread(web3.eth.get_storage_at, contract, 0, height)
        assert (balance, int.from_bytes(slot, "big")) == expected[height]
    for tag in (hex(head - 4), hex(1), "earliest"):
        _, reply = yield in_thread(post, node, {"jsonrpc": "2.0", "id": 1, "method": "eth_getBalance",
                                                "params": [OTHER, tag]})
        height = 0 if tag == "earliest" else int(tag, 16)
        assert reply["error"]["code"] == -32000
        assert reply["error"]["message"].startswith(f"state at height {height} is pruned")
        assert reply["error"]["message"].endswith(f"keeps the last 4 heights, oldest available {head - 3}")
    # History below the kept heights is still served.
    old = yield in_thread(web3.eth.get_transaction_receipt, deploy.transactionHash)
    assert old.contractAddress == contract
    assert (yield in_thread(web3.eth.get_block, deploy.blockNumber)).hash == deploy.blockHash


@pytest.mark.parametrize("text, message", [
    ("[storage]\nprune-interval = 0\n", "[storage] prune-interval must be at least 1, got 0"),
    ("[storage]\npruning = -1\n", "[storage] pruning must be at least 0, got -1"),
])
def test_bad_pruning_settings_are_clear_errors(text, message):
    with pytest.raises(config.ConfigError) as e:
        config.load(text=text)
    assert str(e.value) == message
