"""Trace jobs whose answer is held whole (gRPC's TraceTx and TraceBlock): run on the node's TracePool for a
caller on another thread, their JSON returned as bytes, no larger than a gRPC answer may be.
"""

import threading

from chaind import errors
from chaind.tracing.jobs import BlockTrace, TraceError, TraceJob, TraceOptions, TracerRefused, TxTrace


class TooLarge(Exception):
    """A result past the size a gRPC answer may hold."""


class HeldTraces:
    """pool: the node's TracePool (debug_trace* runs on it too); settings: [tracing]; max_bytes: the largest
    result held whole."""

    def __init__(self, app, pool, settings, max_bytes):
        self.app = app
        self.pool = pool
        self.settings = settings
        self.max_bytes = max_bytes

    def options(self, config):
        """The TraceOptions of a debug_trace* config object; a bad one is an invalid argument."""
        try:
            return TraceOptions.parse(config, self.settings.js_memory_limit)
        except TraceError as e:
            raise errors.invalid_argument(str(e)) from None

    def transaction(self, options, height, index):
        """The JSON trace of the tx at `index` of block `height`, as debug_traceTransaction's result."""
        return self._run(options, height, TxTrace(height, index))

    def block(self, options, height):
        """The JSON trace of block `height`: its results without txHash, as Evmos' TraceBlock answers."""
        return self._run(options, height, BlockTrace(height, tx_hashes=False))

    def _run(self, options, height, spec):
        """The JSON of the trace of `spec`, run on the trace pool and held whole (at most max_bytes)."""
        try:
            self.app.view(height - 1)
        except LookupError as e:     # PrunedError included
            raise errors.pruned(str(e) or f"state at height {height - 1} is not available") from None

        job = TraceJob(self.app, options, self.settings.js_memory_limit, threading.Event(), self.pool.processes)

        def run():
            sink = _Buffer(self.max_bytes)
            job.run(spec, sink)
            return bytes(sink.data)

        try:
            return self.pool.wait(run)
        except TracerRefused as e:      # what the config's check refuses before any work, as the SDK's
            raise errors.invalid_argument(str(e)) from None
        except TraceError as e:
            raise errors.internal(str(e)) from None
        except TooLarge:
            raise errors.limit_exceeded(f"the trace is larger than {self.max_bytes} bytes ([tracing] "
                                        f"max-buffered-bytes): ask for less, or use debug_trace* on JSON-RPC, "
                                        f"which streams it") from None


class _Buffer:
    def __init__(self, limit):
        self.limit = limit
        self.data = bytearray()

    def write(self, chunk):
        if len(self.data) + len(chunk) > self.limit:
            raise TooLarge()
        self.data += chunk
