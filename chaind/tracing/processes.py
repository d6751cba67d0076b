"""Trace processes: a JavaScript-traced job runs whole (replay, EVM and tracer) in a child process that the
node kills past its deadline, so no native built-in can hold a core or the node. A few are kept started.

The child reads the node's store through its pipe (tracing/remote_db.py: LevelDB takes one process per
database) and sends back its output as it is made, the deadline of the tracer running, and its outcome. The
trace thread serving it kills it when that deadline and [tracing] js-kill-grace have passed, when the client
goes away or when the node stops, and answers geth's "execution timeout".
"""

import marshal
import multiprocessing
import pickle
import sys
import threading
import time

import attrs
from twisted.logger import Logger

from chaind import errors
from chaind.tracing import worker
from chaind.tracing.jobs import TraceError, timeout_message
from chaind.tracing.remote_db import DbServer
from chaind.tracing.tracer import TraceCancelled

log = Logger()
# Forked from a server process that imported the tracing code once (a fork of the node itself would copy its
# threads' locks): a new trace process is ready in milliseconds.
CONTEXT = multiprocessing.get_context("forkserver")
CONTEXT.set_forkserver_preload(["__main__", "chaind.tracing.worker", "chaind.api.debug"])
POLL = 0.25         # seconds between looks at the deadline, the client and the node while the child is silent
READY_WITHIN = 60   # seconds a new trace process may take to get ready (a loaded box; normally milliseconds)


class TraceProcesses:
    """app: the App whose store the children read; settings: [tracing] (js-processes kept ready,
    js-kill-grace). run() is called on trace threads; start() and stop() by the trace pool."""

    def __init__(self, app, settings):
        self.app = app
        self.warm = settings.js_processes
        self.grace = settings.js_kill_grace
        self.stopping = True
        self.started = 0            # processes started (metrics, tests)
        self._lock = threading.Lock()
        self._ready = []            # _Child started and waiting for a job
        self._live = set()          # every _Child not yet ended
        self._filling = False
        self._setup = None

    def start(self):
        """Start js-processes trace processes, off the reactor (the first also starts the server they fork from)."""
        self.stopping = False
        if self.warm:
            try:
                self._setup_bytes()
            except TraceError as e:     # each JavaScript trace says it
                log.warn("{error}", error=e)
                return
        self._fill()

    def pids(self):
        """The process ids of the trace processes not yet ended, ready or running."""
        with self._lock:
            return {child.process.pid for child in self._live}

    def ready(self):
        """How many trace processes are started and waiting for a job."""
        with self._lock:
            return len(self._ready)

    def stop(self):
        """Kill every trace process, ready or running (the threads serving them then end)."""
        self.stopping = True
        with self._lock:
            ready, self._ready = self._ready, []
            running = self._live.difference(ready)
        for child in ready:
            self._discard(child)
        for child in running:       # the thread serving it ends it (only that thread uses its pipe)
            child.kill()

    def run(self, job, spec, sink):
        """Run `job` on `spec` into `sink` in a trace process (on a trace thread); raise what the job raised."""
        child = self._take()
        done = False
        try:
            self._serve(child, pickle.dumps((spec, job.options, job.js_memory_limit)), job, sink)
            done = True
        finally:
            if done:
                # It ends by itself: reaped off the request's path (the fork server reports its end in its time).
                with self._lock:
                    self._live.discard(child)
                threading.Thread(target=child.end, name="chaind-trace-reap", daemon=True).start()
            else:               # past its deadline, its client gone, the node stopping, or broken
                self._discard(child)
            self._fill()

    # -- children ------------------------------------------------------------------------------------

    def _take(self):
        with self._lock:
            if self._ready:
                return self._ready.pop()
        return self._new()

    def _new(self):
        if self.stopping:
            raise errors.unavailable("the node is stopping")
        setup = self._setup_bytes()
        child = _Child.start()
        with self._lock:
            self._live.add(child)
            self.started += 1
        try:
            try:
                child.conn.send_bytes(setup)
                if not child.conn.poll(READY_WITHIN) or child.conn.recv_bytes() != worker.READY:
                    raise TraceError(f"tracing failed: a trace process did not get ready in {READY_WITHIN} s")
            except (EOFError, OSError):
                raise TraceError(f"tracing failed: a trace process ended as it started ({child.exit_text()})") \
                    from None
        except TraceError:
            self._discard(child)
            raise
        if self.stopping:           # stop() ran while it started
            self._discard(child)
            raise errors.unavailable("the node is stopping")
        return child

    def _discard(self, child):
        """Kill `child` if it runs, forget it, and reap it off this thread."""
        child.kill()
        with self._lock:
            self._live.discard(child)
        threading.Thread(target=child.end, name="chaind-trace-reap", daemon=True).start()

    def _fill(self):
        """Start processes, off this thread, until js-processes are ready."""
        with self._lock:
            if self._filling or self.stopping or len(self._ready) >= self.warm:
                return
            self._filling = True
        threading.Thread(target=self._filler, name="chaind-trace-fill", daemon=True).start()

    def _filler(self):
        try:
            while not self.stopping:
                with self._lock:
                    if len(self._ready) >= self.warm:
                        return
                try:
                    child = self._new()
                except Exception as e:  # noqa: BLE001 (a trace then starts its own, and says why it cannot)
                    if not self.stopping:
                        log.warn("could not start a trace process: {error}", error=e)
                    return
                with self._lock:
                    if not self.stopping:       # else stop() has taken the ready ones already
                        self._ready.append(child)
                        continue
                self._discard(child)
        finally:
            with self._lock:
                self._filling = False

    def _setup_bytes(self):
        """What a child builds its App from: the genesis document, the options (no keys), the modules by import
        path."""
        if self._setup is None:
            app = self.app
            try:
                modules = [_import_path(module) for module in app.modules]
                options = attrs.asdict(app.options, recurse=False)
                options.update(vote_key=None, upgrade_handlers=dict(options["upgrade_handlers"]))
                self._setup = pickle.dumps((str(app.db.path), app.genesis.document, options, modules))
            except (LookupError, pickle.PicklingError, TypeError, AttributeError) as e:
                raise TraceError(f"JavaScript tracers cannot run in a trace process on this node: {e}") from None
        return self._setup

    # -- serving one -----------------------------------------------------------------------------

    def _serve(self, child, request, job, sink):
        conn = child.conn
        server = DbServer(self.app.db)
        kill_at = None
        try:
            conn.send_bytes(request)
            while True:
                now = time.monotonic()
                if kill_at is not None and now >= kill_at:
                    raise TraceError(timeout_message(job.options))
                wait = POLL if kill_at is None else min(POLL, kill_at - now)
                if not conn.poll(wait):
                    if job.cancel.is_set():
                        raise TraceCancelled()
                    if self.stopping:
                        raise errors.unavailable("the node is stopping")
                    continue
                message = conn.recv_bytes()
                kind = message[:1]
                if kind == worker.WRITE:
                    started = time.monotonic()
                    sink.write(message[1:])     # blocks while the client does not read, as the child does
                    if kill_at is not None:
                        kill_at += time.monotonic() - started
                elif kind == worker.DEADLINE:
                    at = marshal.loads(message[1:])
                    kill_at = None if at is None else at + self.grace
                elif kind == worker.DONE:
                    return
                elif kind == worker.FAILED:
                    raise _failure(message[1:])
                else:
                    server.handle(conn, kind, message[1:])
        except (EOFError, OSError):
            if self.stopping:
                raise errors.unavailable("the node is stopping") from None
            raise TraceError(f"tracing failed: the trace process ended ({child.exit_text()})") from None
        finally:
            server.close()


@attrs.define(eq=False)
class _Child:
    process: multiprocessing.Process
    conn: object
    ended: threading.Lock = attrs.field(factory=threading.Lock)

    @classmethod
    def start(cls):
        conn, theirs = CONTEXT.Pipe()
        process = CONTEXT.Process(target=worker.main, args=(theirs,), name="chaind-trace-process", daemon=True)
        process.start()
        theirs.close()
        return cls(process, conn)

    def kill(self):
        """SIGKILL it unless it is known to have ended (its pid may then be another process's)."""
        try:
            if self.process.exitcode is None:
                self.process.kill()
        except (ValueError, AttributeError):   # closed already
            pass

    def end(self):
        """Reap it (killed if it has not ended by itself within seconds), close its pipe; once."""
        if not self.ended.acquire(blocking=False):
            return
        self.process.join(5)
        if self.process.exitcode is None:
            self.kill()
            self.process.join(5)
        self.conn.close()

    def exit_text(self):
        self.process.join(1)
        code = self.process.exitcode
        return "still running" if code is None else f"exit code {code}"


def _import_path(module):
    """The import path of the package whose MODULE is `module` (a chain module record)."""
    for name, loaded in list(sys.modules.items()):
        if getattr(loaded, "MODULE", None) is module:
            return name
    raise LookupError(f"module {module.name} is not the MODULE of an importable package")


def _failure(payload):
    """The exception a child's job raised, or a TraceError with its text when it does not unpickle."""
    try:
        error = pickle.loads(payload)
    except Exception as e:  # noqa: BLE001 (any unpickling failure)
        return TraceError(f"tracing failed: {e}")
    return error if isinstance(error, Exception) else TraceError(f"tracing failed: {error}")
