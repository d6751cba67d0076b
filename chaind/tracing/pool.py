"""The trace threads and who may queue on them: one pool for every face that traces (debug_trace* on
JSON-RPC, TraceTx/TraceBlock on gRPC), so [tracing] concurrency and max-queued bound them all together.

Each trace runs on a daemon thread of its own, [tracing] concurrency of them at a time; nothing waits for a
trace thread when the node stops. A JavaScript tracer's job runs in a trace process (`processes`,
tracing/processes.py) that its thread serves and kills past the deadline: a native built-in (a catastrophic
regex, Array.prototype.indexOf over 2**53 indexes), which never reaches the engine's deadline checks, ends with
its process.
"""

import threading

from twisted.application import service
from twisted.internet import defer

from chaind import errors


class _Run:
    """One piece of work on its thread."""

    __slots__ = ("work", "args", "deadline", "done")

    def __init__(self, work, args):
        self.work = work
        self.args = args
        self.deadline = None        # the Deferred the reactor waits on, or a list a thread waits on
        self.done = threading.Event()


class TracePool(service.Service):
    """settings: [tracing]; processes: the TraceProcesses JavaScript-traced jobs run in (None: on the trace
    thread itself, which nothing can stop inside a native built-in; for tools and tests)."""

    def __init__(self, settings, reactor, processes=None):
        self.reactor = reactor
        self.processes = processes
        self.concurrency = settings.concurrency
        self.limit = settings.concurrency + settings.max_queued
        self.in_flight = 0          # traces running or waiting for a thread
        self.streamed_bytes = 0     # written by finished traces (metrics)
        self.stopping = False
        self._slots = threading.Semaphore(settings.concurrency)
        self._lock = threading.Lock()

    def startService(self):
        super().startService()
        self.stopping = False
        if self.processes is not None:
            self.processes.start()

    def stopService(self):
        # Nothing joins a trace thread; the trace processes are killed, which ends the threads serving them.
        self.stopping = True
        if self.processes is not None:
            self.processes.stop()
        return super().stopService()

    def check(self):
        """Raise UNAVAILABLE when every place is taken; any thread."""
        if self.in_flight >= self.limit:
            raise errors.unavailable(f"too many traces in progress ({self.limit}); retry later")

    def enter(self):
        """Take a place for one trace, or raise as check() does; any thread."""
        with self._lock:
            self.check()
            self.in_flight += 1

    def leave(self, written=0):
        with self._lock:
            self.in_flight -= 1
            self.streamed_bytes += written

    def defer(self, work, *args):
        """work(*args) on a trace thread, as a Deferred (from the reactor thread)."""
        run = _Run(work, args)
        run.deadline = defer.Deferred()
        self._start(run)
        return run.deadline

    def wait(self, work, *args):
        """work(*args) on a trace thread, its result or exception here (from a thread outside the pool:
        a gRPC worker). It takes and gives back its own place."""
        self.enter()
        try:
            run = _Run(work, args)
            outcome = []
            run.deadline = outcome          # filled by the trace thread
            self._start(run)
            while not run.done.wait(0.5):
                if self.stopping:           # the node stopped: queued work will not run
                    raise errors.unavailable("the node is stopping")
        finally:
            self.leave()
        ok, value = outcome[0]
        if not ok:
            raise value
        return value

    # -- threads -------------------------------------------------------------------------------------

    def _start(self, run):
        if self.stopping:
            self._settle(run, False, errors.unavailable("the node is stopping"))
            return
        threading.Thread(target=self._thread, args=(run,), name="chaind-trace", daemon=True).start()

    def _thread(self, run):
        with self._slots:
            if self.stopping:
                ok, value = False, errors.unavailable("the node is stopping")
            else:
                try:
                    ok, value = True, run.work(*run.args)
                except Exception as e:  # noqa: BLE001 (the work's error, of any kind, goes to its caller)
                    ok, value = False, e
        self._settle(run, ok, value)

    def _settle(self, run, ok, value):
        if isinstance(run.deadline, list):
            run.deadline.append((ok, value))
            run.done.set()
        elif ok:
            self.reactor.callFromThread(run.deadline.callback, value)
        else:
            self.reactor.callFromThread(run.deadline.errback, value)
