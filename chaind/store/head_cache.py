"""The native store's values at the head height, kept in memory: a block's reads of what the last one wrote
(or read) cost a dict lookup instead of a LevelDB seek; a query's scan of a prefix read before costs one too.

The writer advances it with each committed block's changes (which also drop every scan whose prefix holds a
changed key); loading the head, or anything that rewrites it (a dev revert, a state load), starts it empty.
Any thread may read it. Readers name what they read by a stamp, the height and the cache's generation when
they began (clear() starts a new one): a value or scan read from LevelDB is kept only while the head is still
what the stamp names, so no reader stores what a newer block, or a rewritten chain, has replaced. Values and
scanned entries share the capacity.
"""

import bisect
import itertools
import threading

MISS = object()


class HeadCache:
    def __init__(self, capacity):
        self.capacity = capacity
        self.head = None            # the stamp of the head whose state this holds
        self._generation = 0
        self._values = {}
        self._scans = {}            # prefix -> ((key, value), ...) of its live keys, in key order
        self._scanned = 0           # entries held in scans, each scan counting one more for itself
        self._prefix_lengths = set()
        self._lock = threading.Lock()

    def stamp(self, height):
        """What a reader of the state at `height` beginning now names its reads by."""
        return height, self._generation

    def get(self, stamp, key):
        """The value (None for an absent key) of `key` at `stamp`, or MISS when not known."""
        if stamp != self.head:
            return MISS
        with self._lock:
            return self._values.get(key, MISS) if stamp == self.head else MISS

    def put(self, stamp, key, value):
        with self._lock:
            if stamp == self.head and len(self._values) + self._scanned < self.capacity:
                self._values[key] = value

    def scan(self, stamp, prefix):
        """The (key, value) pairs of the live keys under `prefix` at `stamp`, in key order, or MISS."""
        if stamp != self.head:
            return MISS
        with self._lock:
            return self._scans.get(prefix, MISS) if stamp == self.head else MISS

    def put_scan(self, stamp, prefix, items):
        """Keep a whole scan of `prefix` (a tuple of pairs) read at `stamp`, when it fits."""
        with self._lock:
            if (stamp == self.head and prefix not in self._scans
                    and len(self._values) + self._scanned + len(items) < self.capacity):
                self._scans[prefix] = items
                self._scanned += len(items) + 1
                self._prefix_lengths.add(len(prefix))

    def advance(self, height, changes):
        """Block `height` is committed with `changes` (key -> value or None): its values become the head's."""
        with self._lock:
            follows = self.head == (height - 1, self._generation)
            if follows and len(self._values) + self._scanned + len(changes) <= self.capacity:
                self._values.update(changes)
                if self._scans:
                    self._drop_scans_under(changes)
            else:
                # Not the block after the one cached, or full: start again from what fits of this block's.
                self._values.clear()
                self._clear_scans()
                for key, value in itertools.islice(changes.items(), self.capacity):
                    self._values[key] = value
            self.head = (height, self._generation)

    def _drop_scans_under(self, changed):
        scans = self._scans
        if len(scans) < len(self._prefix_lengths) * len(changed):
            # Few scans (a block's own, a quiet node's): each scan's prefix looked up among the sorted keys.
            ordered = sorted(changed)
            written = [prefix for prefix in scans if _written_under(ordered, prefix)]
        else:
            written = {key[:length] for length in self._prefix_lengths for key in changed}
        for prefix in written:
            dropped = scans.pop(prefix, None)
            if dropped is not None:
                self._scanned -= len(dropped) + 1

    def _clear_scans(self):
        self._scans.clear()
        self._scanned = 0
        self._prefix_lengths.clear()

    def clear(self, height=None):
        """Forget everything, and every reader begun before; `height`: the head now, kept from empty."""
        with self._lock:
            self._values.clear()
            self._clear_scans()
            self._generation += 1
            self.head = None if height is None else (height, self._generation)

    def __len__(self):
        return len(self._values) + self._scanned


def _written_under(ordered, prefix):
    """Whether a key of the sorted list `ordered` starts with `prefix`."""
    at = bisect.bisect_left(ordered, prefix)
    return at < len(ordered) and ordered[at].startswith(prefix)
