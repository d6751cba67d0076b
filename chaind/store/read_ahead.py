"""A key prefix of the database read into memory in one sequential scan, up to a byte budget, for a walk that reads
its records in hash order (a snapshot's IAVL export, an EVM trie walk): LevelDB serves a scan of a prefix some ten
times faster than as many random reads, whose keys (hashes) have no locality.
"""

from chaind.store.db import prefix_end

ENTRY_OVERHEAD = 150    # bytes a kept record costs beyond its key and value (its dict slot, two bytes objects)


class ReadAhead:
    """`get` as the database's, for keys under `prefix`: served from the records the scan kept (all of them when
    they fit in `budget` bytes, else the first ones), from the database for the rest."""

    def __init__(self, db, prefix, budget):
        self._db = db
        kept, used = {}, 0
        self.whole = True
        if budget > 0:
            with db.cursor(prefix, prefix_end(prefix)) as it:
                for key, value in it:
                    used += len(key) + len(value) + ENTRY_OVERHEAD
                    if used > budget:
                        self.whole = False
                        break
                    kept[key] = value
        else:
            self.whole = False
        self.kept = len(kept)
        self._kept = kept
        self._prefix = prefix

    def get(self, key):
        found = self._kept.get(key)
        if found is None and not (self.whole and key.startswith(self._prefix)):
            return self._db.get(key)
        return found
