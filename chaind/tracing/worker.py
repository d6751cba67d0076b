"""A trace process's side (tracing/processes.py): one JavaScript-traced job, run whole on an App whose store
is the parent's, read over the pipe; output, the tracer's deadlines and the outcome go back the same way.
"""

import importlib
import marshal
import os
import pickle
import threading

from chaind.chain.app import App
from chaind.chain.genesis import Genesis
from chaind.chain.options import AppOptions
from chaind.tracing.jobs import TraceError, TraceJob
from chaind.tracing.remote_db import RemoteDatabase

WRITE, DEADLINE, DONE, FAILED = b"w", b"d", b"k", b"x"     # message kinds, besides remote_db's reads


def main(conn):
    """The process's target: wait for one job on `conn`, run it, say how it ended, exit."""
    try:
        request = conn.recv_bytes()
    except (EOFError, OSError):     # the node stopped before it had a job
        os._exit(0)
    try:
        _run(conn, *pickle.loads(request))
        conn.send_bytes(DONE)
    except Exception as e:  # noqa: BLE001 (the job's error, of any kind, goes to the node)
        conn.send_bytes(FAILED + _pickled(e))
    conn.close()
    os._exit(0)


def _run(conn, setup, spec, options, js_memory_limit):
    path, document, app_options, module_paths = pickle.loads(setup)
    modules = [importlib.import_module(name).MODULE for name in module_paths]
    app = App(RemoteDatabase(conn, path), Genesis.from_document(document, modules), AppOptions(**app_options),
              modules)
    job = TraceJob(app, options, js_memory_limit, threading.Event(),
                   deadlines=lambda at: conn.send_bytes(DEADLINE + marshal.dumps(at)))
    spec.run(job, _Sink(conn))


class _Sink:
    def __init__(self, conn):
        self.conn = conn

    def write(self, data):
        self.conn.send_bytes(WRITE + bytes(data))


def _pickled(error):
    try:
        return pickle.dumps(error)
    except Exception:  # noqa: BLE001 (an exception that does not pickle goes as its text)
        return pickle.dumps(TraceError(f"tracing failed: {type(error).__name__}: {error}"))
