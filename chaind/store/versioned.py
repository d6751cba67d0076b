"""Native module state kept by height: every write is a new version, old ones stay readable.

A value at height H is the newest version written at or below H; a deletion is a tombstone.
"""

from chaind.store import keys
from chaind.store.db import prefix_end
from chaind.store.head_cache import MISS

_LIVE = b"\x01"
_TOMBSTONE = b"\x00"
_PAST_VERSIONS = b"\xff" * 8 + b"\x00"


class VersionedReader:
    """Read-only view of native module state as of `height`; `cache`: the app's HeadCache, consulted
    and filled when `height` is the head."""

    def __init__(self, db, height, cache=None):
        self._db = db
        self.height = height
        self._floor = keys.inverted_height(height)
        self._cache = cache
        self._stamp = None if cache is None else cache.stamp(height)

    def get(self, key):
        cache = self._cache
        if cache is not None:
            value = cache.get(self._stamp, key)
            if value is not MISS:
                return value
        base = keys.VERSIONED + key
        found = self._db.seek_first(base + self._floor, base + _PAST_VERSIONS)
        value = None if found is None or found[1][:1] == _TOMBSTONE else found[1][1:]
        if cache is not None:
            cache.put(self._stamp, key, value)
        return value

    def iterate(self, prefix, start_after=None):
        """An iterator of (key, value) of the live keys under `prefix` (after `start_after`), in key order.

        A whole scan at the head is kept in the head cache, for the next reader of the same prefix.
        """
        cache = self._cache
        if cache is None or start_after is not None:
            return self._scan(prefix, start_after)
        found = cache.scan(self._stamp, prefix)
        if found is not MISS:
            return iter(found)
        return self._scan_and_keep(prefix)

    def _scan_and_keep(self, prefix):
        cache, found = self._cache, []
        for item in self._scan(prefix):
            if found is not None:
                found.append(item)
                if len(found) >= cache.capacity:
                    found = None        # more than the cache could ever hold
            yield item
        if found is not None:
            cache.put_scan(self._stamp, prefix, tuple(found))

    def _scan(self, prefix, start_after=None):
        """One LevelDB iterator serves the whole scan: for each key it seeks that key's newest version
        at or below the height, then past all its versions (opening an iterator costs more than a read).
        """
        full = keys.VERSIONED + prefix
        start = full if start_after is None else keys.VERSIONED + start_after + _PAST_VERSIONS
        with self._db.cursor(start, prefix_end(full)) as it:
            for entry_key, _ in it:
                base = entry_key[:-8]
                it.seek(base + self._floor)
                found = next(it, None)
                if found is not None and found[0][:-8] == base and found[1][:1] == _LIVE:
                    yield base[len(keys.VERSIONED):], found[1][1:]
                it.seek(base + _PAST_VERSIONS)


class VersionedWriter(VersionedReader):
    """The writer's view for the block being built at `height`: reads see its own writes."""

    def __init__(self, db, height, cache=None):
        # Reads see the parent's state (a replay of a committed block must not see its own writes).
        super().__init__(db, max(height - 1, 0), cache)
        self.height = height
        self.changes = {}

    def get(self, key):
        if key in self.changes:
            return self.changes[key]
        return super().get(key)

    def set(self, key, value):
        self.changes[key] = bytes(value)

    def delete(self, key):
        self.changes[key] = None

    def iterate(self, prefix, start_after=None):
        # Not through the head cache's scans: a block's own scans would make every commit drop them.
        committed = dict(self._scan(prefix, start_after))
        for key, value in self.changes.items():
            if key.startswith(prefix) and (start_after is None or key > start_after):
                committed[key] = value
        for key in sorted(committed):
            if committed[key] is not None:
                yield key, committed[key]

    def batch_puts(self):
        """The write-batch entries for this block's changes, in key order."""
        suffix = keys.inverted_height(self.height)
        return {
            keys.VERSIONED + key + suffix: (_TOMBSTONE if value is None else _LIVE + value)
            for key, value in sorted(self.changes.items())
        }
