"""Native module state kept by height: every write is a new version, old ones stay readable.

A value at height H is the newest version written at or below H; a deletion is a tombstone.
"""

import bisect
import itertools
from collections.abc import Iterator

from chaind.store import keys
from chaind.store.db import prefix_end
from chaind.store.head_cache import MISS

_LIVE = b"\x01"
_TOMBSTONE = b"\x00"
_PAST_VERSIONS = b"\xff" * 8 + b"\x00"
# Keys written since a writer's last scan that join its sorted list one by one; more, and it is sorted anew.
_INSERTS = 64


class VersionedReader:
    """Read-only view of native module state as of `height`; `cache`: the app's HeadCache, consulted
    and filled when `height` is the head."""

    def __init__(self, db, height, cache=None):
        self._db = db
        self.height = height
        self._floor = keys.inverted_height(height)
        self._cache = cache
        self._stamp = None if cache is None else cache.stamp(height)

    def get(self, key: bytes) -> bytes | None:
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

    def iterate(self, prefix: bytes, start_after: bytes | None = None) -> Iterator[tuple[bytes, bytes]]:
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
        cache = self._cache
        found: list | None = []
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
    """The writer's view for the block being built at `height`: reads see its own writes.

    `changes` (key -> value, None for a deletion) is the block's write set; a failed message or a reverted
    EVM frame may replace the dict or put back what it held. Scans find the changed keys under a prefix in a
    sorted list of them kept beside it (a message scanning the same records again and again would otherwise
    walk the whole write set each time): keys written since the last scan join it then, a replaced dict is
    sorted anew, and keys no longer in the dict are skipped.
    """

    def __init__(self, db, height, cache=None):
        # Reads see the parent's state (a replay of a committed block must not see its own writes).
        super().__init__(db, max(height - 1, 0), cache)
        self.height = height
        self.changes: dict[bytes, bytes | None] = {}
        self._sorted: list[bytes] = []
        self._sorted_of = self.changes
        self._added: list[bytes] = []

    def get(self, key):
        if key in self.changes:
            return self.changes[key]
        return super().get(key)

    def set(self, key: bytes, value: bytes) -> None:
        if key not in self.changes:
            self._added.append(key)
        self.changes[key] = bytes(value)

    def delete(self, key: bytes) -> None:
        if key not in self.changes:
            self._added.append(key)
        self.changes[key] = None

    def _changed_under(self, prefix, start_after):
        """The keys of `changes` under `prefix` (after `start_after`), in order."""
        changes = self.changes
        if self._sorted_of is not changes or len(self._added) > _INSERTS:
            self._sorted, self._sorted_of = sorted(changes), changes
        else:
            ordered = self._sorted
            for key in self._added:
                at = bisect.bisect_left(ordered, key)
                if at == len(ordered) or ordered[at] != key:
                    ordered.insert(at, key)
        self._added = []
        ordered = self._sorted
        if start_after is not None and start_after >= prefix:
            at = bisect.bisect_right(ordered, start_after)
        else:
            at = bisect.bisect_left(ordered, prefix)
        found = []
        for key in itertools.islice(ordered, at, None):
            if not key.startswith(prefix):
                break
            if key in changes:
                found.append(key)
        return found

    def iterate(self, prefix, start_after=None):
        changed = self._changed_under(prefix, start_after)
        # The committed keys read whole before any is yielded; through the head cache's scans, as a reader's:
        # the prefixes every block scans (queues, epochs, the validator set) are seldom written.
        read = tuple(super().iterate(prefix, start_after))
        if not changed:
            # Nothing under the prefix written in this block (the common case): the committed keys as they are.
            yield from read
            return
        committed: dict[bytes, bytes | None] = dict(read)
        changes = self.changes
        for key in changed:
            committed[key] = changes[key]
        for key in sorted(committed):
            if committed[key] is not None:
                yield key, committed[key]

    def batch_puts(self) -> dict[bytes, bytes]:
        """The write-batch entries for this block's changes, in key order."""
        suffix = keys.inverted_height(self.height)
        return {
            keys.VERSIONED + key + suffix: (_TOMBSTONE if value is None else _LIVE + value)
            for key, value in sorted(self.changes.items())
        }
