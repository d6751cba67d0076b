"""The node's LevelDB read from a trace process over its pipe: the child's Database sends each read to the
parent, which answers from its own handle (LevelDB allows one process per database: never open it twice).

Each round trip costs two context switches, so a read is one message: a scan's iterator opens with its first
batch and closes itself in the parent when it runs out; batches grow from one item after a seek (a versioned
scan seeks at every key) to MAX_BATCH. Messages are marshal'ed tuples; the trace process's own messages
(output, deadlines, its end) share the pipe, each kind named by its first byte.
"""

import marshal

from chaind.store.db import Database

GET, SEEK_FIRST, OPEN, NEXT, CLOSE = b"g", b"f", b"o", b"n", b"c"
MAX_BATCH = 256


class ReadOnlyError(RuntimeError):
    """A trace process tried to write to the node's store."""


class RemoteDatabase(Database):
    """A Database whose plyvel handle is the parent's, across `conn` (a multiprocessing Connection)."""

    def __init__(self, conn, path):
        self.path = path
        self.sync = False
        self._db = _RemoteHandle(conn)

    def write(self, puts, deletes=()):
        raise ReadOnlyError("a trace process reads the node's store, it never writes")

    def seek_first(self, start, stop):
        found = self._db.ask(SEEK_FIRST, start, stop)
        return None if found is None else tuple(found)


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

    def close(self):
        pass


class _RemoteIterator:
    """A plyvel iterator held in the parent: iteration, seek, close, and use as a context manager."""

    def __init__(self, handle, cursor, kwargs):
        self._handle = handle
        self._id = cursor
        self._kwargs = kwargs
        self._open = False          # the parent holds it (opened, not run out)
        self._buffer = []
        self._seek = None
        self._batch = 1
        self._done = False

    def __iter__(self):
        return self

    def __next__(self):
        if not self._buffer:
            if self._done:
                raise StopIteration
            asked = self._batch
            if self._open:
                items = self._handle.ask(NEXT, self._id, self._seek, asked)
            else:
                items = self._handle.ask(OPEN, self._id, self._kwargs, self._seek, asked)
            self._seek = None
            self._batch = min(asked * 2, MAX_BATCH)
            self._done = len(items) < asked
            self._open = not self._done     # run out: the parent closed it (a seek opens it again)
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
        if self._open:
            self._handle.tell(CLOSE, self._id)
            self._open = False
        self._done = True
        self._buffer = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class DbServer:
    """The parent's side for one trace process: answers its reads from `db` (a Database)."""

    KINDS = frozenset((GET, SEEK_FIRST, OPEN, NEXT, CLOSE))

    def __init__(self, db):
        self.db = db
        self.iterators = {}

    def handle(self, conn, kind, payload):
        """Answer one read message (kind in KINDS) on `conn`."""
        args = marshal.loads(payload)
        if kind == GET:
            conn.send_bytes(marshal.dumps(self.db.get(args[0])))
        elif kind == SEEK_FIRST:
            conn.send_bytes(marshal.dumps(self.db.seek_first(*args)))
        elif kind == OPEN:
            cursor, kwargs, seek, n = args
            self.iterators[cursor] = self.db.iterator(**kwargs)
            conn.send_bytes(marshal.dumps(self._batch(cursor, seek, n)))
        elif kind == NEXT:
            conn.send_bytes(marshal.dumps(self._batch(*args)))
        elif kind == CLOSE:
            self.iterators.pop(args[0]).close()

    def _batch(self, cursor, seek, n):
        it = self.iterators[cursor]
        if seek is not None:
            it.seek(seek)
        items = []
        for item in it:
            items.append(item)
            if len(items) >= n:
                return items
        del self.iterators[cursor]          # run out: the child knows it from the short batch
        it.close()
        return items

    def close(self):
        for it in self.iterators.values():
            it.close()
        self.iterators.clear()
