"""What makes a snapshot fast, held to what it replaced: a store read ahead in one scan ([state-sync]
snapshot-read-ahead-bytes) serves the same records as the database; SnapshotItems serialized without messages are
protobuf's bytes; the trie walk's RLP decoder reads every node as pyrlp does. And a restore checks each EVM node it
was given against its hash."""

import pytest
import rlp

import snapshot_pair
from chaind import config
from chaind.chain import snapshot
from chaind.pb.cosmos.store.snapshots.v1 import snapshot_pb2 as spb
from chaind.store import keys, pruning
from chaind.store.read_ahead import ENTRY_OVERHEAD, ReadAhead
from snapshot_pair import BIG, SMALL, contents, snapshot_of

pair = snapshot_pair.pair   # the fixture: a source chain at height 2 and a fresh one


def test_a_read_ahead_serves_what_the_database_does_whole_partly_or_not_at_all(pair):
    source, _, _ = pair
    db = source.db
    records = dict(db.iterate(keys.EVM_NODE))
    whole_size = sum(len(k) + len(v) + ENTRY_OVERHEAD for k, v in records.items())
    outside = keys.HEAD
    for budget, whole in ((whole_size, True), (whole_size // 2, False), (0, False)):
        reader = ReadAhead(db, keys.EVM_NODE, budget)
        assert reader.whole is whole
        if whole:
            assert reader.kept == len(records)
        elif budget:
            assert 0 < reader.kept < len(records)
        else:
            assert reader.kept == 0
        assert all(reader.get(k) == v for k, v in records.items())
        assert reader.get(keys.EVM_NODE + b"\x00" * 32) is None
        assert reader.get(outside) == db.get(outside)


def test_item_bytes_are_protobufs_serialization_and_any_read_ahead_gives_the_same_snapshot(pair):
    source, _, _ = pair
    view = source.db.frozen()
    try:
        bodies = list(snapshot.item_bytes(source.app, view, 2))
        partly = list(snapshot.item_bytes(source.app, view, 2, read_ahead=4096))
        none = list(snapshot.item_bytes(source.app, view, 2, read_ahead=0))
    finally:
        view.release()
    kinds = {spb.SnapshotItem.FromString(b).WhichOneof("item") for b in bodies}
    assert kinds == {"store", "iavl", "extension", "extension_payload"}
    assert [spb.SnapshotItem.FromString(b).SerializeToString() for b in bodies] == bodies
    assert partly == bodies and none == bodies
    # chunks() takes the bytes or the messages alike.
    messages = [spb.SnapshotItem.FromString(b) for b in bodies]
    assert list(snapshot.chunks(bodies, SMALL)) == list(snapshot.chunks(messages, SMALL))


def test_the_walks_rlp_decoder_reads_every_trie_node_as_pyrlp_and_refuses_what_is_not_rlp(pair):
    source, _, _ = pair
    nodes = [raw for _, raw in source.db.iterate(keys.EVM_NODE)]
    decoded = 0
    for raw in nodes:
        try:
            expected = rlp.decode(raw)
        except rlp.DecodingError:
            continue        # contract code shares the prefix
        assert pruning._decode(raw) == expected
        decoded += 1
    assert decoded > 10
    for bad in (b"", b"\xc3\x01\x02", b"\x82\x01", b"\xc1\x01\x02", b"\xf9\x01"):
        with pytest.raises((ValueError, IndexError)):
            pruning._decode(bad)


def _swapped_evm_node(items):
    """Items whose first EVM trie node payload carries another node's bytes (whose children are all there)."""
    out = list(items)
    found = [(i, snapshot._unpair(item.extension_payload.payload)) for i, item in enumerate(out)
             if item.WhichOneof("item") == "extension_payload"
             and snapshot._unpair(item.extension_payload.payload)[0].startswith(keys.EVM_NODE)]
    (at, (key, _)), (_, (_, other)) = found[0], found[-1]
    out[at] = spb.SnapshotItem(extension_payload=spb.SnapshotExtensionPayload(payload=snapshot._pair(key, other)))
    return out


def test_a_restore_refuses_an_evm_node_whose_bytes_are_not_its_hashs(pair):
    source, fresh, items = pair
    chunks = list(snapshot.chunks(_swapped_evm_node(items), SMALL))
    before = contents(fresh.db)
    restore = snapshot.Restore(fresh.app, snapshot_of(chunks, 2), source.app.head[1].app_hash, BIG)
    with pytest.raises(snapshot.SnapshotError, match="the snapshot's EVM state is not whole: state node 0x"
                                                     "[0-9a-f]+ holds bytes of another hash"):
        for c in chunks:
            restore.apply_chunk(c)
    assert contents(fresh.db) == before and fresh.app.height == 0


def test_snapshot_read_ahead_bytes_setting():
    assert config.Settings().state_sync.snapshot_read_ahead_bytes == 256 << 20
    loaded = config.load(text="[state-sync]\nsnapshot-read-ahead-bytes = 0\n")
    assert loaded.state_sync.snapshot_read_ahead_bytes == 0
    with pytest.raises(config.ConfigError, match="state-sync"):
        config.load(text="[state-sync]\nsnapshot-read-ahead-bytes = -1\n")
