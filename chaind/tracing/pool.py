"""The trace threads and who may queue on them: one pool for every face that traces (debug_trace* on
JSON-RPC, TraceTx/TraceBlock on gRPC), so [tracing] concurrency and max-queued bound them all together.

Each trace runs on a daemon thread of its own, [tracing] concurrency of them at a time. A JavaScript
tracer's deadline is checked between bytecodes, but a native built-in (a catastrophic regex,
Array.prototype.indexOf over 2**53 indexes) never reaches a check, and no thread can be stopped from
outside. So a watchdog gives up a trace whose thread stays inside one engine call past its deadline
(tracing/watch.py): the request is answered with the timeout, the thread's place goes to the next trace,
and the thread is left to finish at idle priority (SCHED_IDLE: it takes only CPU nothing else wants) and
then end; at most [tracing] max-runaway of them at once, beyond which JavaScript tracers are refused.
Nothing waits for a trace thread when the node stops.
"""

import os
import threading

from twisted.application import service
from twisted.internet import defer, task
from twisted.logger import Logger

from chaind import errors
from chaind.tracing.jobs import TraceError
from chaind.tracing.watch import GRACE

log = Logger()
WATCH_EVERY = 0.25          # seconds between the watchdog's looks at the running traces


class TraceAbandoned(TraceError):
    """A trace given up past its deadline while its thread ran a native built-in; the thread runs on."""


class _Run:
    """One piece of work on its thread."""

    __slots__ = ("work", "args", "watch", "deadline", "native_id", "abandoned", "done", "lock")

    def __init__(self, work, args, watch):
        self.work = work
        self.args = args
        self.watch = watch
        self.deadline = None        # the Deferred the reactor waits on, or None (a thread waits)
        self.native_id = None
        self.abandoned = False
        self.done = threading.Event()
        self.lock = threading.Lock()


class TracePool(service.Service):
    """settings: [tracing]. A service: the watchdog runs while the node does."""

    def __init__(self, settings, reactor):
        self.reactor = reactor
        self.concurrency = settings.concurrency
        self.limit = settings.concurrency + settings.max_queued
        self.max_runaway = settings.max_runaway
        self.in_flight = 0          # traces running or waiting for a thread
        self.runaway = 0            # threads given up past their deadline and still running
        self.streamed_bytes = 0     # written by finished traces (metrics)
        self.stopping = False
        self._slots = threading.Semaphore(settings.concurrency)
        self._lock = threading.Lock()
        self._running = set()
        self._watchdog = task.LoopingCall(self._look)
        self._watchdog.clock = reactor

    def startService(self):
        super().startService()
        self.stopping = False
        self._watchdog.start(WATCH_EVERY, now=False)

    def stopService(self):
        # Nothing joins: a thread inside a native built-in may never come back.
        self.stopping = True
        if self._watchdog.running:
            self._watchdog.stop()
        return super().stopService()

    def check(self, js=False):
        """Raise UNAVAILABLE when every place is taken or, for a JavaScript tracer, when max-runaway given-up
        tracers still run; any thread."""
        if self.in_flight >= self.limit:
            raise errors.unavailable(f"too many traces in progress ({self.limit}); retry later")
        if js and self.runaway >= self.max_runaway:
            raise errors.unavailable(f"{self.runaway} JavaScript tracers ran past their deadline in a native "
                                     f"built-in and still run ([tracing] max-runaway); retry later")

    def enter(self, js=False):
        """Take a place for one trace, or raise as check() does; any thread."""
        with self._lock:
            self.check(js)
            self.in_flight += 1

    def leave(self, written=0):
        with self._lock:
            self.in_flight -= 1
            self.streamed_bytes += written

    def defer(self, work, *args, watch=None):
        """work(*args) on a trace thread, as a Deferred (from the reactor thread). With `watch` (the job's
        tracing.watch.Watch), a run stuck past its deadline fails with TraceAbandoned."""
        run = _Run(work, args, watch)
        run.deadline = defer.Deferred()
        self._start(run)
        return run.deadline

    def wait(self, work, *args, watch=None):
        """work(*args) on a trace thread, its result or exception here (from a thread outside the pool:
        a gRPC worker). It takes and gives back its own place."""
        self.enter(js=watch is not None)
        try:
            run = _Run(work, args, watch)
            outcome = []
            run.deadline = outcome          # filled by the trace thread, or by the watchdog
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
        if run.watch is not None:
            self.reactor.callFromThread(self._running.add, run)
        threading.Thread(target=self._thread, args=(run,), name="chaind-trace", daemon=True).start()

    def _thread(self, run):
        self._slots.acquire()
        try:
            run.native_id = threading.get_native_id()
            if self.stopping:
                ok, value = False, errors.unavailable("the node is stopping")
            else:
                try:
                    ok, value = True, run.work(*run.args)
                except Exception as e:  # noqa: BLE001 (the work's error, of any kind, goes to its caller)
                    ok, value = False, e
        finally:
            with run.lock:
                abandoned = run.abandoned
                run.abandoned = True        # the watchdog does nothing more with it
            if abandoned:
                with self._lock:
                    self.runaway -= 1
            else:
                self._slots.release()
        if run.watch is not None:
            self.reactor.callFromThread(self._running.discard, run)
        if not abandoned:
            self._settle(run, ok, value)

    def _settle(self, run, ok, value):
        if isinstance(run.deadline, list):
            run.deadline.append((ok, value))
            run.done.set()
        elif ok:
            self.reactor.callFromThread(run.deadline.callback, value)
        else:
            self.reactor.callFromThread(run.deadline.errback, value)

    # -- the watchdog (reactor thread) ----------------------------------------------------------------

    def _look(self):
        for run in list(self._running):
            if run.watch.stuck():
                self._abandon(run)

    def _abandon(self, run):
        with run.lock:
            if run.abandoned:
                return
            run.abandoned = True
        with self._lock:
            self.runaway += 1
        self._running.discard(run)
        self._slots.release()               # its place goes to the next trace
        try:
            os.sched_setscheduler(run.native_id, os.SCHED_IDLE, os.sched_param(0))
        except (OSError, AttributeError) as e:     # not Linux, or refused: it keeps its priority
            log.warn("could not lower a runaway tracer thread's priority: {error}", error=e)
        log.warn("a JavaScript tracer ran {grace:g} s past its deadline inside a native built-in: given up, its "
                 "thread left to finish at idle priority", grace=GRACE)
        self._settle(run, False, TraceAbandoned(f"execution timeout: the tracer was still inside a native built-in "
                                                f"{GRACE:g} s past its deadline"))
