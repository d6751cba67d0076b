"""A restore streams the snapshot's state into the database a batch at a time ([state-sync] restore-batch-bytes),
not in memory: the head moves only once the app hash is checked at the end, and a restore refused there, abandoned
for another offer, or killed half way leaves the node's genesis state as it was."""

import pytest

import snapshot_pair
from chaind import config
from chaind.chain import snapshot
from chaind.store import keys
from snapshot_pair import BIG, SMALL, contents, snapshot_of

pair = snapshot_pair.pair   # the fixture: a source chain at height 2 and a fresh one

BATCH = 512     # bytes a batch here: the height-2 state is written in dozens of them


def _whole_restore(fresh, source, chunks, batch_bytes=BATCH):
    restore = snapshot.Restore(fresh.app, snapshot_of(chunks, 2), source.app.head[1].app_hash, BIG, batch_bytes)
    assert [restore.apply_chunk(c) for c in chunks][-1] is True
    return contents(fresh.db)


def test_the_state_is_written_as_chunks_come_and_the_head_moves_at_the_end(pair):
    source, fresh, items = pair
    chunks = list(snapshot.chunks(items, SMALL))
    before = contents(fresh.db)
    genesis_head = fresh.app.head
    one_batch = _whole_restore(fresh, source, chunks, batch_bytes=1 << 30)
    fresh.app.reset_to_genesis()
    assert contents(fresh.db) == before
    restore = snapshot.Restore(fresh.app, snapshot_of(chunks, 2), source.app.head[1].app_hash, BIG, BATCH)
    largest = max(len(k) + len(v) for k, v in one_batch.items())
    for c in chunks[:-1]:
        assert restore.apply_chunk(c) is False
        # Memory holds one batch: what is pending stays under the limit (plus the entry that tips it).
        assert restore._puts.pending_bytes < BATCH + largest
        # Nothing moved for readers: the head and its state are genesis's while the rest is written.
        assert fresh.app.head == genesis_head and fresh.db.get(keys.HEAD) == before[keys.HEAD]
    written = contents(fresh.db)
    assert keys.RESTORING in written and len(written) > len(before) + 50
    assert restore.apply_chunk(chunks[-1]) is True
    assert fresh.app.height == 2 and fresh.app.head[1].app_hash == source.app.head[1].app_hash
    # Batch by batch, the same database as one batch makes, the genesis state and the mark gone.
    assert contents(fresh.db) == one_batch and keys.RESTORING not in one_batch


def test_a_streamed_restore_whose_app_hash_is_not_the_trusted_one_wipes_what_it_wrote(pair):
    source, fresh, items = pair
    chunks = list(snapshot.chunks(items, SMALL))
    before = contents(fresh.db)
    restore = snapshot.Restore(fresh.app, snapshot_of(chunks, 2), b"\x01" * 32, BIG, BATCH)
    for c in chunks[:-1]:
        restore.apply_chunk(c)
    assert len(contents(fresh.db)) > len(before)
    with pytest.raises(snapshot.SnapshotError, match="at height 2 is not the trusted 0101"):
        restore.apply_chunk(chunks[-1])
    assert contents(fresh.db) == before
    assert fresh.app.height == 0
    with pytest.raises(snapshot.SnapshotError, match="the restore has ended"):
        restore.apply_chunk(chunks[-1])
    assert _whole_restore(fresh, source, chunks)[keys.HEAD] == keys.height_bytes(2)


def test_a_streamed_restore_killed_half_way_is_wiped_when_the_node_opens_again(pair):
    source, fresh, items = pair
    chunks = list(snapshot.chunks(items, SMALL))
    before = contents(fresh.db)
    half = snapshot.Restore(fresh.app, snapshot_of(chunks, 2), source.app.head[1].app_hash, BIG, BATCH)
    for c in chunks[:len(chunks) // 2]:
        half.apply_chunk(c)
    assert fresh.db.get(keys.RESTORING) == keys.height_bytes(2)
    fresh.reopen()      # the node killed and started again
    assert contents(fresh.db) == before
    assert fresh.app.height == 0
    assert _whole_restore(fresh, source, chunks)[keys.HEAD] == keys.height_bytes(2)


def test_an_offer_taking_over_from_a_streamed_restore_starts_from_genesis(pair):
    source, fresh, items = pair
    chunks = list(snapshot.chunks(items, SMALL))
    before = contents(fresh.db)
    half = snapshot.Restore(fresh.app, snapshot_of(chunks, 2), source.app.head[1].app_hash, BIG, BATCH)
    for c in chunks[:len(chunks) // 2]:
        half.apply_chunk(c)
    # CometBFT offers another snapshot (here the same again): the half-written one goes first.
    again = snapshot.Restore(fresh.app, snapshot_of(chunks, 2), source.app.head[1].app_hash, BIG, BATCH)
    assert contents(fresh.db) == before
    assert [again.apply_chunk(c) for c in chunks][-1] is True
    assert fresh.app.head[1].app_hash == source.app.head[1].app_hash


def test_restore_batch_bytes_setting():
    assert config.Settings().state_sync.restore_batch_bytes == 16 << 20
    assert config.load(text="[state-sync]\nrestore-batch-bytes = 65536\n").state_sync.restore_batch_bytes == 65536
    with pytest.raises(config.ConfigError, match="state-sync"):
        config.load(text="[state-sync]\nrestore-batch-bytes = 1000\n")
