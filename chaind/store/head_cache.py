"""The native store's values at the head height, kept in memory: a block's reads of what the last one wrote
(or read) cost a dict lookup instead of a LevelDB seek.

The writer advances it with each committed block's changes; anything else that rewrites the head (a dev
revert, a state load) clears it. Any thread may read it; a value read from LevelDB is kept only while the
head is still the height it was read at, so a reader never stores a value a newer block has replaced.
"""

import itertools
import threading

MISS = object()


class HeadCache:
    def __init__(self, capacity):
        self.capacity = capacity
        self.height = None
        self._values = {}
        self._lock = threading.Lock()

    def get(self, height, key):
        """The value (None for an absent key) of `key` at `height`, or MISS when not known."""
        if height != self.height:
            return MISS
        with self._lock:
            return self._values.get(key, MISS) if height == self.height else MISS

    def put(self, height, key, value):
        with self._lock:
            if height == self.height and len(self._values) < self.capacity:
                self._values[key] = value

    def advance(self, height, changes):
        """Block `height` is committed with `changes` (key -> value or None): its values become the head's."""
        with self._lock:
            if self.height == height - 1 and len(self._values) + len(changes) <= self.capacity:
                self._values.update(changes)
            else:
                # Not the block after the one cached, or full: start again from what fits of this block's.
                self._values.clear()
                for key, value in itertools.islice(changes.items(), self.capacity):
                    self._values[key] = value
            self.height = height

    def clear(self):
        with self._lock:
            self._values.clear()
            self.height = None

    def __len__(self):
        return len(self._values)
