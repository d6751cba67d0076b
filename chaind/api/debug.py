"""The debug_* method table: traces of committed txs and blocks, and of calls, on the trace pool.

Results stream (api/streaming.py): a raw trace goes out as it is made, never whole in memory.
"""

from twisted.application import service
from twisted.internet import threads

from chaind import errors
from chaind.api import calls
from chaind.api import params as p
from chaind.api.streaming import StreamedResult
from chaind.chain.app import PrunedError
from chaind.tracing import hooks
from chaind.tracing.jobs import TraceError, TraceJob, TraceOptions


class DebugApi(service.Service):
    def __init__(self, app, runner, settings, reactor, trace_pool):
        """settings: [tracing]; runner: the CallRunner debug_traceCall prepares its call with."""
        self.app = app
        self.runner = runner
        self.settings = settings
        self.reactor = reactor
        self.pool = trace_pool
        self.in_flight = 0
        self.streamed_bytes = 0  # written by finished traces (metrics)
        self.sinks = set()       # where running traces write; stopped when the node stops

    def stopService(self):
        # Before the trace pool joins its threads: a trace waiting on a slow client must give up.
        for sink in list(self.sinks):
            sink.abort()
        return super().stopService()

    def methods(self):
        return {
            "debug_traceTransaction": self.trace_transaction,
            "debug_traceBlockByNumber": lambda params: self.trace_block(params, by_hash=False),
            "debug_traceBlockByHash": lambda params: self.trace_block(params, by_hash=True),
            "debug_traceCall": self.trace_call,
        }

    # -- methods ---------------------------------------------------------------------------------

    def trace_transaction(self, params):
        p.at_most(params, 2)
        position = self.app.tx_position(p.block_hash(p.arg(params, 0), 0), evm=True)
        if position is None:
            raise errors.not_found("transaction not found")
        height, index = position
        options = self._options(p.arg(params, 1, required=False))
        self._check_state(height - 1)
        return self._stream(options, lambda job, sink: job.transaction(height, index, sink))

    def trace_block(self, params, by_hash):
        p.at_most(params, 2)
        value = p.arg(params, 0)
        # Our interface document's example asks debug_traceBlockByNumber for a block hash: take both.
        if by_hash or (isinstance(value, str) and len(value) == 66):
            height = self.app.height_of_hash(p.block_hash(value, 0))
            if height is None:
                raise errors.not_found(f"block {value} not found")
        else:
            height = p.block_number(value, 0, self.app)
            if self.app.block_at(height) is None:
                raise errors.not_found(f"block #{height} not found")
        if height < self.app.genesis.initial_height:
            raise errors.failed("genesis is not traceable")
        options = self._options(p.arg(params, 1, required=False))
        self._check_state(height - 1)
        return self._stream(options, lambda job, sink: job.block(height, sink))

    def trace_call(self, params):
        p.at_most(params, 3)
        call = p.arg(params, 0)
        height = p.block_number_or_hash(p.arg(params, 1, required=False, default="latest"), 1, self.app)
        config = p.arg(params, 2, required=False, default={})
        if not isinstance(config, dict):
            # geth decodes the config inside the method: a failure, not an argument that did not decode.
            raise errors.failed("invalid argument 2: trace config must be an object")
        overrides = calls.parse_overrides(config.get("stateOverrides"), 2)
        options = self._options({k: v for k, v in config.items() if k not in ("stateOverrides", "blockOverrides")})
        view = self._check_state(height)
        _, meta = self.app.block_at(height)

        def run(job, sink):
            state, tx = self.runner.prepare(call, view, overrides, state_class=calls.PLAIN_STATE_CLASS)
            job.call(state, tx, hooks.tx_env(state, tx, block_hash=meta.hash), sink)

        return self._stream(options, run)

    # -- shared ----------------------------------------------------------------------------------

    def _options(self, config):
        try:
            return TraceOptions.parse(config, self.settings.js_memory_limit)
        except TraceError as e:
            raise errors.failed(str(e)) from None

    def _check_state(self, height):
        """Fail at once when the state a trace needs is not kept (naming the height and the retention)."""
        try:
            return self.app.view(height)
        except PrunedError as e:
            raise errors.pruned(str(e)) from None
        except LookupError:
            raise errors.pruned(f"state at height {height} is not available") from None

    def _stream(self, options, work):
        limit = self.settings.concurrency + self.settings.max_queued
        if self.in_flight >= limit:
            raise errors.unavailable(f"too many traces in progress ({limit}); retry later")

        def produce(sink):
            self.in_flight += 1
            sink = _CountingSink(sink)
            self.sinks.add(sink)
            job = TraceJob(self.app, options, self.settings.js_memory_limit, sink.cancel)
            d = threads.deferToThreadPool(self.reactor, self.pool, work, job, sink)
            d.addBoth(self._finished, sink)
            return d.addErrback(_trace_error)

        return StreamedResult(produce, self.settings.max_result_bytes, self.settings.max_buffered_bytes)

    def _finished(self, outcome, sink):
        self.in_flight -= 1
        self.sinks.discard(sink)
        self.streamed_bytes += sink.written
        return outcome


class _CountingSink:
    """A trace's sink that counts what it writes; only the trace's own thread writes to it."""

    def __init__(self, sink):
        self.sink = sink
        self.cancel = sink.cancel
        self.written = 0

    def write(self, data):
        self.sink.write(data)
        self.written += len(data)

    def abort(self):
        self.sink.abort()


def _trace_error(failure):
    failure.trap(TraceError)
    raise errors.failed(str(failure.value))
