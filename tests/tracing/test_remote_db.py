"""A trace process's store: each read of the node's LevelDB crosses the pipe to the node and answers what the
node's own Database answers (gets, prefix scans either way, key scans, a cursor that seeks); a write is refused."""

import multiprocessing
import threading

import pytest

from chaind.store.db import Database
from chaind.tracing.remote_db import DbServer, ReadOnlyError, RemoteDatabase


@pytest.fixture
def dbs(tmp_path):
    db = Database(tmp_path / "chain.db")
    db.write({b"a" + bytes([i]) + b"k" * (i % 3): bytes([i]) * i for i in range(200)} | {b"b": b"x", b"c": b""})
    theirs, ours = multiprocessing.Pipe()
    server = DbServer(db)

    def serve():
        while True:
            try:
                message = ours.recv_bytes()
            except EOFError:
                return
            server.handle(ours, message[:1], message[1:])

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield db, RemoteDatabase(theirs, db.path)
    theirs.close()
    thread.join(5)
    server.close()
    db.close()


def test_reads_answer_as_the_nodes_database(dbs):
    db, remote = dbs
    for key in (b"a\x05kk", b"b", b"c", b"nope", b""):
        assert remote.get(key) == db.get(key)
    for kwargs in ({}, {"reverse": True}, {"start": b"a\x50"}, {"start": b"a\x50", "reverse": True}):
        assert list(remote.iterate(b"a", **kwargs)) == list(db.iterate(b"a", **kwargs))
    assert list(remote.keys(b"a")) == list(db.keys(b"a"))
    assert list(remote.keys_between(b"a\x10", b"a\x90")) == list(db.keys_between(b"a\x10", b"a\x90"))
    assert remote.seek_first(b"a\x07", b"b") == db.seek_first(b"a\x07", b"b")
    assert remote.seek_first(b"d", b"e") is None


def test_a_cursor_seeks_as_plyvels(dbs):
    db, remote = dbs
    seen = {}
    for name, source in (("local", db), ("remote", remote)):
        steps = []
        with source.cursor(b"a", b"b") as it:
            for key, _ in it:
                steps.append(key)
                if len(steps) > 40:
                    break
                it.seek(bytes([key[0], key[1] + 7]))    # skip ahead, as a versioned scan does
        seen[name] = steps
    assert seen["remote"] == seen["local"] and len(seen["local"]) > 20


def test_a_trace_process_never_writes(dbs):
    _, remote = dbs
    with pytest.raises(ReadOnlyError):
        remote.write({b"z": b"1"})
