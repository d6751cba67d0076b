"""The node's LevelDB read from a trace process over its pipe: the child's Database sends each read to the
parent, which answers from its own handle (LevelDB allows one process per database: never open it twice).

A scan keeps its plyvel iterator in the parent and comes back in batches, one item after a seek and more the
longer it runs without one (a versioned scan seeks at every key). Messages are marshal'ed tuples; the trace
process's own messages (output, deadlines, its end) share the pipe, each kind named by its first byte.
"""

import marshal

from chaind.store.db import Database

GET, OPEN, NEXT, CLOSE = b"g", b"o", b"n", b"c"
MAX_BATCH = 256


class ReadOnlyError(RuntimeError):
    """A trace process tried to write to the node's store."""


class RemoteDatabase(Database):
    """A Database whose plyvel handle is the parent's, across `conn` (a multiprocessing Connection)."""

    def __init__(self, conn, path):
        self.path = path
        self._db = _RemoteHandle(conn)


class _RemoteHandle:
    """What Database calls on a plyvel.DB: get and iterator; a write is refused."""

    closed = False

    def __init__(self, conn):
        self._conn = conn
        self._next_id = 0

    def ask(self, kind, *args):
        self._conn.send_bytes(kind + marshal.dumps(args))
        return marshal.loads(self._conn.recv_bytes())

    def tell(self, kind, *args):
        self._conn.send_bytes(kind + marshal.dumps(args))

    def get(self, key):
        return self.ask(GET, key)

    def iterator(self, **kwargs):
        self._next_id += 1
        return _RemoteIterator(self, self._next_id, kwargs)

    def write_batch(self, **kwargs):
        raise ReadOnlyError("a trace process reads the node's store, it never writes")

    def close(self):
        pass


class _RemoteIterator:
    """A plyvel iterator held in the parent: iteration, seek, close, and use as a context manager."""

    def __init__(self, handle, cursor, kwargs):
        self._handle = handle
        self._id = cursor
        self._buffer = []
        self._seek = None
        self._batch = 1
        self._done = False
        handle.tell(OPEN, cursor, kwargs)

    def __iter__(self):
        return self

    def __next__(self):
        if not self._buffer:
            if self._done:
                raise StopIteration
            asked = self._batch
            items = self._handle.ask(NEXT, self._id, self._seek, asked)
            self._seek = None
            self._batch = min(asked * 2, MAX_BATCH)
            self._done = len(items) < asked
            self._buffer = items[::-1]
            if not items:
                raise StopIteration
        return self._buffer.pop()

    def seek(self, key):
        self._buffer = []
        self._seek = key
        self._batch = 1
        self._done = False

    def close(self):
        if self._id is not None:
            self._handle.tell(CLOSE, self._id)
            self._id = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class DbServer:
    """The parent's side for one trace process: answers its reads from `db` (a Database)."""

    KINDS = frozenset((GET, OPEN, NEXT, CLOSE))

    def __init__(self, db):
        self.db = db
        self.iterators = {}

    def handle(self, conn, kind, payload):
        """Answer one read message (kind in KINDS) on `conn`."""
        args = marshal.loads(payload)
        if kind == GET:
            conn.send_bytes(marshal.dumps(self.db.get(args[0])))
        elif kind == NEXT:
            cursor, seek, n = args
            it = self.iterators[cursor]
            if seek is not None:
                it.seek(seek)
            items = []
            for item in it:
                items.append(item)
                if len(items) >= n:
                    break
            conn.send_bytes(marshal.dumps(items))
        elif kind == OPEN:
            cursor, kwargs = args
            self.iterators[cursor] = self.db.iterator(**kwargs)
        elif kind == CLOSE:
            self.iterators.pop(args[0]).close()

    def close(self):
        for it in self.iterators.values():
            it.close()
        self.iterators.clear()
