"""A trace process's side (tracing/processes.py): one JavaScript-traced job, run whole on an App whose store
is the parent's, read over the pipe; output, the tracer's deadlines and the outcome go back the same way.
"""

import ctypes
import importlib
import marshal
import os
import pickle
import signal
import threading
from multiprocessing import forkserver

from chaind.chain.app import App
from chaind.chain.genesis import Genesis
from chaind.chain.options import AppOptions
from chaind.tracing.jobs import TraceError, TraceJob
from chaind.tracing.js.tracer import JsTracer
from chaind.tracing.remote_db import RemoteDatabase

_PR_SET_PDEATHSIG = 1
READY, WRITE, DEADLINE, DONE, FAILED = b"r", b"w", b"d", b"k", b"x"     # message kinds, besides remote_db's reads


def main(conn):
    """The process's target: take the node's setup on `conn` and get ready while no job is due (what a first
    use costs: the genesis decoded, the engine and the tracer code's parser loaded), say so, then wait for one
    job, run it, say how it ended, exit."""
    _die_with_parent()
    try:
        setup = _Setup(*pickle.loads(conn.recv_bytes()))
        _warm_up()
        conn.send_bytes(READY)
        request = conn.recv_bytes()
    except (EOFError, OSError):     # the node stopped before it had a job
        os._exit(0)
    try:
        _run(conn, setup, *pickle.loads(request))
        conn.send_bytes(DONE)
    except Exception as e:  # noqa: BLE001 (the job's error, of any kind, goes to the node)
        conn.send_bytes(FAILED + _pickled(e))
    conn.close()
    os._exit(0)


def _die_with_parent():
    """Be killed when the fork server ends (it ends with the node), even inside a native call: a node killed
    outright leaves no tracer running (Linux's PR_SET_PDEATHSIG; elsewhere the pipe's end stops a waiting one)."""
    # multiprocessing hands each child the fork server's keep-alive pipe, for children that start processes
    # themselves; held here it would keep the server, and so this process, alive after the node.
    server = getattr(forkserver, "_forkserver", None)
    if getattr(server, "_forkserver_alive_fd", None) is not None:
        os.close(server._forkserver_alive_fd)
        server._forkserver_alive_fd = None
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass
    # Had the server ended before the call, the node has too: the pipe ends before any tracer code runs.


class _Setup:
    """What the App is built from: the store's path, the genesis document, the App's options, the modules."""

    def __init__(self, path, document, options, module_paths):
        self.path = path
        self.modules = [importlib.import_module(name).MODULE for name in module_paths]
        self.genesis = Genesis.from_document(document, self.modules)
        self.options = AppOptions(**options)


def _warm_up():
    tracer = JsTracer("{step: function(log) { log.op.toString(); }, fault: function() {}, "
                      "result: function() { return [1]; }}")
    tracer.result()


def _run(conn, setup, spec, options, js_memory_limit):
    app = App(RemoteDatabase(conn, setup.path), setup.genesis, setup.options, setup.modules)
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
