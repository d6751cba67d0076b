"""A snapshot restored chunk by chunk into a fresh App (chain/snapshot.py's Restore): items cut anywhere across
chunks come back whole; a reordered, forged, truncated or extended stream is refused and leaves the fresh state
as it was; a restore abandoned half way (the node killed) leaves nothing, and the next one starts cleanly."""

import zlib

import pytest

import snapshot_pair
from chain_driver import Chain, contract_address
from chaind.chain import snapshot
from chaind.pb.cosmos.store.snapshots.v1 import snapshot_pb2 as spb
from chaind.store import keys
from chaind.store.iavl.node import uvarint
from snapshot_pair import BIG, SMALL, contents, snapshot_of

pair = snapshot_pair.pair     # the fixture


def test_small_chunks_restore_to_the_same_head_and_state(pair):
    source, fresh, items = pair
    chunks = list(snapshot.chunks(items, SMALL))
    assert len(chunks) > 5
    restore = snapshot.Restore(fresh.app, snapshot_of(chunks, 2), source.app.head[1].app_hash, BIG)
    assert [restore.apply_chunk(c) for c in chunks] == [False] * (len(chunks) - 1) + [True]
    assert fresh.app.height == 2 and fresh.app.head[1].app_hash == source.app.head[1].app_hash
    assert fresh.app.view(2).accounts.get_storage(contract_address(source.keys[1].address, 0), 0) == 3


def test_reordered_chunks_are_refused_and_the_right_one_then_taken(pair):
    source, fresh, items = pair
    chunks = list(snapshot.chunks(items, SMALL))
    before = contents(fresh.db)
    restore = snapshot.Restore(fresh.app, snapshot_of(chunks, 2), source.app.head[1].app_hash, BIG)
    with pytest.raises(snapshot.ChunkHashMismatch, match="chunk hash verification failed"):
        restore.apply_chunk(chunks[1])
    assert contents(fresh.db) == before
    assert [restore.apply_chunk(c) for c in chunks][-1] is True


@pytest.mark.parametrize("change, error", [
    # The last chunk left out (and its hash): the stream does not end.
    (lambda chunks: chunks[:-1], "does not end with its last chunk"),
    # Bytes after the zlib stream.
    (lambda chunks: chunks + [b"more"], "does not end with its last chunk"),
    # Not zlib at all.
    (lambda chunks: [b"\x00" * 40], "zlib failure"),
])
def test_a_truncated_or_extended_stream_changes_nothing(pair, change, error):
    source, fresh, items = pair
    chunks = change(list(snapshot.chunks(items, SMALL)))
    before = contents(fresh.db)
    restore = snapshot.Restore(fresh.app, snapshot_of(chunks, 2), source.app.head[1].app_hash, BIG)
    with pytest.raises(snapshot.SnapshotError, match=error):
        for c in chunks:
            restore.apply_chunk(c)
    assert contents(fresh.db) == before and fresh.app.height == 0


def _forged_payload(items):
    out = list(items)
    at = next(i for i, item in enumerate(out) if item.WhichOneof("item") == "extension_payload")
    out.insert(at, spb.SnapshotItem(extension_payload=spb.SnapshotExtensionPayload(
        payload=snapshot._pair(keys.HEAD, keys.height_bytes(99)))))
    return out


def _forged_value(items):
    out = list(items)
    at = next(i for i, item in enumerate(out) if item.WhichOneof("item") == "iavl" and item.iavl.height == 0)
    item = spb.SnapshotItem()
    item.CopyFrom(out[at])
    item.iavl.value = b"forged"
    out[at] = item
    return out


@pytest.mark.parametrize("forge, error", [
    (_forged_payload, "an extension payload for key"),
    (_forged_value, "the restored stores hash to"),
    (lambda items: [i for i in items if i.WhichOneof("item") != "extension"], "a payload item before"),
    (lambda items: [spb.SnapshotItem(iavl=items[1].iavl)] + items, "received IAVL node item before store item"),
])
def test_a_forged_stream_is_refused_and_changes_nothing(pair, forge, error):
    source, fresh, items = pair
    chunks = list(snapshot.chunks(forge(items), SMALL))
    before = contents(fresh.db)
    restore = snapshot.Restore(fresh.app, snapshot_of(chunks, 2), b"", BIG)
    with pytest.raises(snapshot.SnapshotError, match=error):
        for c in chunks:
            restore.apply_chunk(c)
    assert contents(fresh.db) == before


def test_a_restore_abandoned_half_way_leaves_nothing_and_the_next_starts_cleanly(pair):
    source, fresh, items = pair
    chunks = list(snapshot.chunks(items, SMALL))
    before = contents(fresh.db)
    half = snapshot.Restore(fresh.app, snapshot_of(chunks, 2), source.app.head[1].app_hash, BIG)
    for c in chunks[:len(chunks) // 2]:
        half.apply_chunk(c)
    fresh.reopen()      # the node killed and started again
    assert contents(fresh.db) == before
    again = snapshot.Restore(fresh.app, snapshot_of(chunks, 2), source.app.head[1].app_hash, BIG)
    assert [again.apply_chunk(c) for c in chunks][-1] is True
    assert fresh.app.head[1].app_hash == source.app.head[1].app_hash


def test_offers_the_node_cannot_take(pair):
    source, fresh, items = pair
    chunks = list(snapshot.chunks(items, SMALL))
    good = snapshot_of(chunks, 2)
    with pytest.raises(snapshot.UnknownFormat, match="unknown snapshot format 1"):
        snapshot.Restore(fresh.app, snapshot.Snapshot(2, 1, good.chunks, good.hash, good.chunk_hashes), b"", BIG)
    with pytest.raises(snapshot.InvalidMetadata, match="no chunks"):
        snapshot.Restore(fresh.app, snapshot.Snapshot(2, 3, 0, good.hash, ()), b"", BIG)
    with pytest.raises(snapshot.InvalidMetadata, match="chunk hashes, but"):
        snapshot.Restore(fresh.app, snapshot.Snapshot(2, 3, good.chunks, good.hash, good.chunk_hashes[1:]), b"", BIG)
    with pytest.raises(snapshot.SnapshotError, match="into a node with blocks"):
        snapshot.Restore(source.app, good, b"", BIG)


def test_another_chains_snapshot_is_refused(pair, tmp_path):
    from chaind.home import Home

    source, _, items = pair
    Home(tmp_path / "other" / "home").init("test", chain_id="other_9001-1", dev=True)
    other = Chain(tmp_path / "other", "home/data/chain.db")
    try:
        chunks = list(snapshot.chunks(items, SMALL))
        restore = snapshot.Restore(other.app, snapshot_of(chunks, 2), b"", BIG)
        with pytest.raises(snapshot.SnapshotError, match="of chain 'chain_9000-1', not block 2 of this chain"):
            for c in chunks:
                restore.apply_chunk(c)
        assert other.app.height == 0
    finally:
        other.close()


def test_a_snapshot_inflating_past_max_restore_bytes_is_refused_and_changes_nothing(pair):
    source, fresh, items = pair
    chunks = list(snapshot.chunks(items, SMALL))
    inflated = len(zlib.decompress(b"".join(chunks)))
    before = contents(fresh.db)
    restore = snapshot.Restore(fresh.app, snapshot_of(chunks, 2), source.app.head[1].app_hash, inflated - 1)
    with pytest.raises(snapshot.SnapshotError, match=f"inflates to more than {inflated - 1} bytes"):
        for c in chunks:
            restore.apply_chunk(c)
    assert contents(fresh.db) == before
    # A bomb: one item of 60 MB in a 60 kB chunk is refused once the limit is inflated, not after.
    bomb = [zlib.compress(uvarint(60 << 20) + bytes(60 << 20), 9)]
    restore = snapshot.Restore(fresh.app, snapshot_of(bomb, 2), b"", 1 << 20)
    with pytest.raises(snapshot.SnapshotError, match="inflates to more than 1048576 bytes"):
        restore.apply_chunk(bomb[0])
    assert restore.inflated <= (1 << 20) + (1 << 20)
    restore = snapshot.Restore(fresh.app, snapshot_of(chunks, 2), source.app.head[1].app_hash, inflated)
    assert [restore.apply_chunk(c) for c in chunks][-1] is True
