"""Replaying a committed block (what every trace does) gives back exactly what the block stored."""

import hashlib

from chain_driver import Chain
from chaind.chain.replay import replay_chain
from chaind.store import keys


def test_replay_reproduces_every_stored_result(tmp_path):
    chain = Chain(tmp_path, "chain.db")
    try:
        for step in range(8):
            chain.block(chain.workload(step))
        app = chain.app
        head, reads = app.head, [chain.reads(h) for h in range(1, app.height + 1)]
        for height in range(app.genesis.initial_height, app.height + 1):
            _, meta = app.block_at(height)
            replayed = app.replay_block(height, lambda ctx, index, tx: None)
            stored = [app.result_at(height, index) for index in range(meta.num_txs)]
            assert [r.to_record() for r in replayed] == [r.to_record() for r in stored], height
            assert any(r.receipt is None for r in stored) or height < 2   # native sends are replayed too
        # Nothing a replay did reached the disk.
        assert app.head == head and [chain.reads(h) for h in range(1, app.height + 1)] == reads
    finally:
        chain.close()


def test_a_chain_replayed_from_genesis_gives_the_same_block_and_app_hashes(tmp_path):
    chain = Chain(tmp_path, "chain.db")
    try:
        for step in range(8):
            chain.block(chain.workload(step))
        seen = []
        report = replay_chain(chain.app, tmp_path / "replayed.db", chain.app.options.vote_key,
                              chain.app.options.validator_address,
                              progress=lambda h, last: seen.append(h))
        assert report.ok and (report.first_height, report.last_height) == (1, chain.app.height)
        assert seen == list(range(1, chain.app.height + 1))
    finally:
        chain.close()


def test_a_replay_finds_the_first_block_that_differs(tmp_path):
    chain = Chain(tmp_path, "chain.db")
    try:
        for step in range(6):
            chain.block(chain.workload(step))
        # Another (valid) tx in place of block 4's first one: what a corrupted store would hold.
        chain.db.write({keys.tx_key(4, 0): chain.app.tx_at(5, 0)})
        report = replay_chain(chain.app, tmp_path / "replayed.db", chain.app.options.vote_key,
                              chain.app.options.validator_address)
        assert not report.ok and report.mismatch.height == 4 and report.mismatch.field == "block hash"
        assert str(report.mismatch).startswith("height 4: block hash differs: stored ")
    finally:
        chain.close()


def test_a_chain_made_with_an_empty_genesis_app_hash_replays_with_it(tmp_path):
    # Chains made before the genesis record held SHA-256 of nothing carry an empty app hash (and last results
    # hash) in their first header: a replay starts from the record the chain was made with.
    chain = Chain(tmp_path, "chain.db", genesis_app_hash=b"")
    try:
        for step in range(3):
            chain.block(chain.workload(step))
        first, _ = chain.app.block_at(1)
        assert first.app_hash == first.last_results_hash == b""
        report = replay_chain(chain.app, tmp_path / "replayed.db", chain.app.options.vote_key,
                              chain.app.options.validator_address)
        assert report.ok, str(report.mismatch)
    finally:
        chain.close()
    fresh = Chain(tmp_path, "fresh.db")
    try:
        fresh.block(fresh.workload(0))
        first, _ = fresh.app.block_at(1)
        assert first.app_hash == first.last_results_hash == hashlib.sha256(b"").digest()
    finally:
        fresh.close()
