"""The trace threads and who may queue on them: one pool for every face that traces (debug_trace* on
JSON-RPC, TraceTx/TraceBlock on gRPC), so [tracing] concurrency and max-queued bound them all together.
"""

import threading

from twisted.internet import threads

from chaind import errors


class TracePool:
    """threads: a twisted ThreadPool (the node starts and stops it); settings: [tracing]."""

    def __init__(self, threads, settings, reactor):
        self.threads = threads
        self.reactor = reactor
        self.limit = settings.concurrency + settings.max_queued
        self.in_flight = 0          # traces running or waiting for a thread
        self.streamed_bytes = 0     # written by finished traces (metrics)
        self._lock = threading.Lock()

    def enter(self):
        """Take a place for one trace, or raise UNAVAILABLE when every place is taken; any thread."""
        with self._lock:
            if self.in_flight >= self.limit:
                raise errors.unavailable(f"too many traces in progress ({self.limit}); retry later")
            self.in_flight += 1

    def leave(self, written=0):
        with self._lock:
            self.in_flight -= 1
            self.streamed_bytes += written

    def defer(self, work, *args):
        """work(*args) on a trace thread, as a Deferred (from the reactor thread)."""
        return threads.deferToThreadPool(self.reactor, self.threads, work, *args)

    def wait(self, work, *args):
        """work(*args) on a trace thread, its result or exception here (from a thread outside the pool:
        a gRPC worker). It takes and gives back its own place."""
        self.enter()
        done = threading.Event()
        outcome = []

        def finished(ok, value):
            outcome.append((ok, value))
            done.set()

        try:
            self.threads.callInThreadWithCallback(finished, work, *args)
            while not done.wait(0.5):
                if self.threads.joined:     # the node stopped: queued work will not run
                    raise errors.unavailable("the node is stopping")
        finally:
            self.leave()
        ok, value = outcome[0]
        if not ok:
            value.raiseException()
        return value
