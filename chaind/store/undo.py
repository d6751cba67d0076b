"""Undo data for dev snapshots: what each write batch overwrote, kept only while a snapshot is open.

LevelDB has no rollback. While marks exist, every batch records the prior value (or absence) of each
key it touches; rolling back to a mark writes those prior values back in one atomic batch. Trie nodes
are keyed by their hash and never change, so they are not recorded: a node written after the mark is
left behind, unreachable from the restored roots (a pruning pass collects it).
"""

from chaind.store import keys


class UndoLog:
    def __init__(self, db):
        self._db = db
        self._segments = []     # one {key: prior value or None} per open mark, oldest first

    @property
    def active(self):
        return bool(self._segments)

    def mark(self):
        """Open a mark; returns its index for rollback()."""
        self._segments.append({})
        return len(self._segments) - 1

    def record(self, puts, deletes=()):
        """Before `puts`/`deletes` are written: remember what they replace (no-op without marks)."""
        if not self._segments:
            return
        segment = self._segments[-1]
        get = self._db.get
        for key in (*puts, *deletes):
            if key not in segment and not key.startswith(keys.EVM_NODE):
                segment[key] = get(key)

    def rollback(self, mark):
        """Restore every key written since `mark` as it was then, atomically; closes that mark and
        every later one."""
        restore = {}
        # Newest first, so that the oldest prior value of a key is the one kept.
        for segment in reversed(self._segments[mark:]):
            restore.update(segment)
        del self._segments[mark:]
        puts = {k: v for k, v in restore.items() if v is not None}
        self._db.write(puts, [k for k, v in restore.items() if v is None])

    def clear(self):
        """Forget every mark (the chain they undo to is gone: a reset or a loaded state)."""
        self._segments.clear()
