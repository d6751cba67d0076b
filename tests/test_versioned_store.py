"""The versioned native store: reads and prefix scans at any height give the state as of that height."""

import random

from chaind.store.db import Database
from chaind.store.head_cache import MISS, HeadCache
from chaind.store.keys import compose
from chaind.store.versioned import VersionedReader, VersionedWriter


def test_scans_at_every_height_match_a_model(tmp_path):
    rng = random.Random(11)
    db = Database(tmp_path / "db")
    try:
        # Module keys are composed of length-prefixed parts, so no key is a prefix of another.
        names = [compose("p", n) for n in (b"a", b"ab", b"b", b"b\x00", b"b\xff", b"c")]
        outside = [compose("q", n) for n in (b"a", b"b")]
        state, history = {}, {0: {}}
        for height in range(1, 40):
            writer = VersionedWriter(db, height)
            for _ in range(rng.randint(0, 4)):
                key = rng.choice(names)
                if rng.random() < 0.3:
                    writer.delete(key)
                    state.pop(key, None)
                else:
                    value = rng.randbytes(rng.randint(0, 3))
                    writer.set(key, value)
                    state[key] = value
            # Keys outside the prefix must never show up in its scans.
            writer.set(rng.choice(outside), b"x")
            db.write(writer.batch_puts())
            history[height] = dict(state)
        for height, expected in history.items():
            reader = VersionedReader(db, height)
            assert list(reader.iterate(compose("p"))) == sorted(expected.items()), height
            for key in names:
                assert reader.get(key) == expected.get(key), (height, key)
            after = sorted(expected)[len(expected) // 2] if expected else None
            if after is not None:
                assert list(reader.iterate(compose("p"), start_after=after)) == \
                    [(k, v) for k, v in sorted(expected.items()) if k > after], height
    finally:
        db.close()


def test_a_writers_scans_see_its_own_writes_through_reverts_and_replaced_write_sets(tmp_path):
    """Scans of the block being built, against a model, while a failed message puts back a copy of the write
    set (as the app does) and a reverted EVM frame pops keys or restores values in place (the ERC-20 journal)."""
    rng = random.Random(5)
    db = Database(tmp_path / "db")
    try:
        names = [compose("p", bytes([a, b])) for a in range(6) for b in range(16)]
        committed = VersionedWriter(db, 1)
        for key in names[::3]:
            committed.set(key, b"old")
        db.write(committed.batch_puts())
        writer = VersionedWriter(db, 2)
        model = {key: b"old" for key in names[::3]}
        for step in range(600):
            roll = rng.random()
            key = rng.choice(names)
            if roll < 0.35:
                value = rng.randbytes(2)
                writer.set(key, value)
                model[key] = value
            elif roll < 0.45:
                writer.delete(key)
                model.pop(key, None)
            elif roll < 0.47:
                # Many keys written between two scans (they join the sorted list at once).
                for other in rng.sample(names, 70):
                    writer.set(other, b"burst")
                    model[other] = b"burst"
            elif roll < 0.5:
                # A message that fails: the write set goes back to a copy taken before it.
                snapshot, saved = dict(writer.changes), dict(model)
                for _ in range(rng.randint(1, 5)):
                    other = rng.choice(names)
                    writer.set(other, b"doomed")
                writer.changes, model = snapshot, saved
            elif roll < 0.52:
                # A write set made elsewhere put in place (the writer never saw its keys written).
                writer.changes = {compose("p", bytes([rng.randrange(6), 0, step % 256])): b"fresh" for _ in range(3)}
                model = dict(VersionedReader(db, 1).iterate(compose("p")))
                model.update(writer.changes)
            elif roll < 0.57 and writer.changes:
                # A reverted frame: a key it wrote is popped, or a value it overwrote put back in place.
                popped = rng.choice(sorted(writer.changes))
                before = writer.changes.pop(popped)
                if before is None or rng.random() < 0.5:
                    model = dict(VersionedReader(db, 1).iterate(compose("p")))
                    model.update({k: v for k, v in writer.changes.items() if v is not None})
                    for k, v in writer.changes.items():
                        if v is None:
                            model.pop(k, None)
                else:
                    writer.changes[popped] = before
            # The keys whose first byte is one value, or all of them.
            prefix = compose("p") + bytes([2, rng.randrange(6)]) if rng.random() < 0.5 else compose("p")
            expected = sorted((k, v) for k, v in model.items() if k.startswith(prefix))
            assert list(writer.iterate(prefix)) == expected, step
            if expected:
                after = expected[len(expected) // 2][0]
                assert list(writer.iterate(prefix, start_after=after)) == [(k, v) for k, v in expected if k > after]
    finally:
        db.close()


def test_a_writers_scans_through_the_head_cache_match_the_store(tmp_path):
    """Block after block, a writer's scans (kept in the head cache when whole and at the head, as a reader's)
    give what an uncached reader of the parent plus the block's own writes gives, before and after it writes."""
    rng = random.Random(7)
    db = Database(tmp_path / "db")
    try:
        groups = [compose("p", bytes([g])) for g in range(4)]
        cache = HeadCache(capacity=1000)
        cache.clear(0)
        state, hits = {}, 0
        for height in range(1, 60):
            hits += sum(cache.scan(cache.stamp(height - 1), prefix) is not MISS for prefix in groups)
            writer = VersionedWriter(db, height, cache)
            model = dict(state)
            for _ in range(3):
                for prefix in groups + [compose("p")]:
                    expected = sorted((k, v) for k, v in model.items() if k.startswith(prefix))
                    assert list(writer.iterate(prefix)) == expected, (height, prefix)
                # Most blocks write under one group or none, as most blocks leave the per-block prefixes alone.
                group = rng.choice(groups + [None] * 4)
                for _ in range(rng.randint(0, 3) if group is not None else 0):
                    key = group + compose(bytes([rng.randrange(5)]))
                    if rng.random() < 0.3:
                        writer.delete(key)
                        model.pop(key, None)
                    else:
                        writer.set(key, rng.randbytes(2))
                        model[key] = writer.changes[key]
            db.write(writer.batch_puts())
            state = model
            if rng.random() < 0.1:
                cache.clear(height)         # a reloaded head (a dev revert) starts it empty
            else:
                cache.advance(height, writer.changes)
            reader = VersionedReader(db, height)
            assert list(reader.iterate(compose("p"))) == sorted(state.items())
        assert hits > 60        # most blocks found scans the ones before kept
    finally:
        db.close()
