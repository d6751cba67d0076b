"""The versioned native store: reads and prefix scans at any height give the state as of that height."""

import random

from chaind.store.db import Database
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
