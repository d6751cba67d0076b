"""The LevelDB handle: reads, prefix scans and the one write batch per block."""

from collections.abc import Iterable, Iterator, Mapping

import plyvel


class Database:
    """A plyvel database opened under a node's data directory.

    Reads are thread-safe; the single writer thread commits through `write`.
    """

    def __init__(self, path, cache_bytes=None, sync=True, compression="snappy"):
        """`cache_bytes`: LevelDB's block cache of uncompressed blocks (None: LevelDB's own 8 MB).
        `sync`: each batch is fsync'd before `write` returns; without it the batch is in LevelDB's log in the
        OS's cache when `write` returns, so a killed process loses nothing written, only an OS crash could.
        `compression`: of the table files LevelDB writes from now on, "snappy" or "none" (it reads both)."""
        self.path = path
        self.sync = sync
        self.compression = compression
        self._db = plyvel.DB(str(path), create_if_missing=True, lru_cache_size=cache_bytes,
                             compression=None if compression == "none" else compression)

    def get(self, key: bytes) -> bytes | None:
        return self._db.get(key)

    def iterate(self, prefix: bytes, start: bytes | None = None,
                reverse: bool = False) -> Iterator[tuple[bytes, bytes]]:
        """Yield (key, value) under `prefix`, from `start` (a full key) when given."""
        if start is None:
            return self._db.iterator(prefix=prefix, reverse=reverse)
        if reverse:
            return self._db.iterator(start=prefix, stop=start, include_stop=True, reverse=True)
        return self._db.iterator(start=start, stop=prefix_end(prefix))

    def keys(self, prefix: bytes) -> Iterator[bytes]:
        """Yield the keys under `prefix` (no values read)."""
        with self._db.iterator(prefix=prefix, include_value=False) as it:
            yield from it

    def keys_between(self, start: bytes, stop: bytes) -> Iterator[bytes]:
        """Yield the keys with start <= key < stop (no values read)."""
        with self._db.iterator(start=start, stop=stop, include_value=False) as it:
            yield from it

    def cursor(self, start, stop):
        """A plyvel iterator over start <= key < stop (a context manager; `seek` moves it)."""
        return self._db.iterator(start=start, stop=stop)

    def iterator(self, **kwargs):
        """A plyvel iterator with plyvel's arguments (what a trace process reads through its parent)."""
        return self._db.iterator(**kwargs)

    def seek_first(self, start: bytes, stop: bytes) -> tuple[bytes, bytes] | None:
        """The first (key, value) with start <= key < stop, or None."""
        with self._db.iterator(start=start, stop=stop) as it:
            for item in it:
                return item
        return None

    def write(self, puts: Mapping[bytes, bytes], deletes: Iterable[bytes] = ()) -> None:
        """Commit `puts` (key -> value) and `deletes` atomically (and durably, with `sync`)."""
        with self._db.write_batch(sync=self.sync) as batch:
            for key, value in puts.items():
                batch.put(key, value)
            for key in deletes:
                batch.delete(key)

    def close(self) -> None:
        # The plyvel handle goes with the close: one left to the interpreter's last garbage collection
        # is cleared (its lock set to None) before its __dealloc__ closes it again, which then fails
        # and prints "Error in sys.excepthook" at exit.
        db, self._db = self._db, _CLOSED
        if not db.closed:
            db.close()

    @property
    def closed(self):
        return self._db.closed

    def frozen(self) -> "FrozenView":
        """A read-only view of the database as it is now (LevelDB's snapshot): later writes are not seen, so a
        reader on another thread sees one height whole while blocks go on (a state-sync snapshot). release() it."""
        return FrozenView(self.path, self._db.snapshot())


class FrozenView(Database):
    """Database's reads over a LevelDB snapshot; writing through it is an error."""

    def __init__(self, path, snapshot):
        self.path = path
        self._db = snapshot

    def write(self, puts, deletes=()):
        raise RuntimeError("a frozen view of the database is read-only")

    def release(self) -> None:
        self._db.release()


class _Closed:
    """What a closed Database reads through: plyvel's own error for a closed database, on any use."""

    closed = True

    def __getattr__(self, name):
        raise RuntimeError("Database is closed")


_CLOSED = _Closed()


def prefix_end(prefix):
    """The smallest key greater than every key starting with `prefix`."""
    stripped = prefix.rstrip(b"\xff")
    if not stripped:
        return None
    return stripped[:-1] + bytes([stripped[-1] + 1])
