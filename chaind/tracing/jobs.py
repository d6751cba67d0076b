"""Trace jobs: a committed block replayed on its parent's state with tracers attached, or a call.

A job runs on the trace thread pool and writes its JSON result to a sink (sink.write(bytes)) as it
is produced, so a huge struct-log trace is never held in memory. A JavaScript tracer's job runs whole in a
trace process the node kills at its deadline (tracing/processes.py): no native built-in can outrun it.
"""

import time

import attrs
import orjson
from eth_utils import ValidationError

from chaind import gocompat
from chaind.tracing import config as trace_config
from chaind.tracing import native
from chaind.tracing.js.errors import TracerError
from chaind.tracing.js.tracer import JsTracer
from chaind.tracing.struct_logger import LoggerConfig, StructLogger
from chaind.tracing.traced_interpreter import Deadline, trace_transaction, tx_env
from chaind.tracing.tracer import TraceCancelled, TraceTimeout


class TraceError(Exception):
    """A trace that cannot run or failed; the message is what the client is told."""


class TracerRefused(TraceError):
    """A JavaScript tracer geth would refuse (a syntax error, no result or fault, setup throwing)."""


@attrs.frozen
class TraceOptions:
    """A debug_trace* config, checked before any work starts."""

    tracer: str = None             # None: the struct logger; a native tracer's name; or JS source
    tracer_config: object = None
    logger: LoggerConfig = LoggerConfig()
    timeout: float = 5.0

    @classmethod
    def parse(cls, value, js_memory_limit):
        if value is None:
            value = {}
        if not isinstance(value, dict):
            raise TraceError("invalid argument 1: trace config must be an object")
        tracer = value.get("tracer")
        if tracer is not None and not isinstance(tracer, str):
            raise TraceError("invalid argument 1: tracer must be a string")
        timeout = value.get("timeout")
        if timeout is not None and not isinstance(timeout, str):
            raise TraceError(f"invalid argument 1: json: cannot unmarshal {gocompat.json_type(timeout)} "
                             "into Go struct field TraceConfig.timeout of type string")
        try:
            timeout = gocompat.parse_duration(timeout or "5s")
            logger = LoggerConfig.from_trace_config(value) if not tracer else LoggerConfig()
        except ValueError as e:     # a bad duration (Go's text) or a bad logger config
            raise TraceError(str(e)) from None
        options = cls(tracer or None, value.get("tracerConfig"), logger, timeout)
        if not options.is_js:
            options.make_tracer(js_memory_limit, write=None)   # refuse a bad tracer before any replay
        # A JavaScript tracer runs code as it is made: never here, where the caller may be the reactor; the
        # job makes it first, in its trace process (TraceJob.check).
        return options

    @property
    def is_js(self):
        return self.tracer is not None and not native.is_native(self.tracer)

    def make_tracer(self, js_memory_limit, write):
        try:
            if self.tracer is None:
                return StructLogger(self.logger, write=write)
            if native.is_native(self.tracer):
                return native.make(self.tracer, self.tracer_config)
            return JsTracer(self.tracer, self.tracer_config, timeout=self.timeout, memory_limit=js_memory_limit)
        except (TracerError, trace_config.ConfigError) as e:
            raise TraceError(str(e)) from None


@attrs.frozen
class TxTrace:
    """What to trace: the tx at `index` of block `height` (debug_traceTransaction, gRPC's TraceTx)."""

    height: int
    index: int

    def run(self, job, sink):
        job.transaction(self.height, self.index, sink)


@attrs.frozen
class BlockTrace:
    """What to trace: every EVM tx of block `height` (debug_traceBlock*, gRPC's TraceBlock)."""

    height: int
    tx_hashes: bool = True

    def run(self, job, sink):
        job.block(self.height, sink, tx_hashes=self.tx_hashes)


class TraceJob:
    """One trace request's work; `cancel` (a threading.Event) is set when its client goes away.

    processes: the node's TraceProcesses, where a JavaScript tracer's job runs (None: here; a trace process's
    own job). deadlines(at): told each time.monotonic() the running tracer must be done by, or None between
    traced txs (what a trace process tells its parent, which kills it past that).
    """

    def __init__(self, app, options, js_memory_limit, cancel, processes=None, deadlines=None):
        self.app = app
        self.options = options
        self.js_memory_limit = js_memory_limit
        self.cancel = cancel
        self.processes = processes
        self._deadlines = deadlines

    def run(self, spec, sink):
        """Trace `spec` (TxTrace, BlockTrace, or a service's own spec with run(job, sink)) into `sink`."""
        if self.options.is_js and self.processes is not None:
            self.processes.run(self, spec, sink)
        else:
            spec.run(self, sink)

    def check(self):
        """Refuse a JavaScript tracer geth would refuse before any replay: made once and dropped."""
        if self.options.is_js:
            try:
                self._make_tracer(write=None).close()
            except TraceError as e:
                raise TracerRefused(str(e)) from None
            finally:
                self._tell(None)

    def transaction(self, height, index, sink):
        """The result of the tx at `index` of block `height`, replaying the txs before it."""
        self.check()
        outcome = {}
        self._replay(height, lambda ctx, i, tx: self._attach(ctx, i, tx, sink, outcome) if i == index else None,
                     stop_after=index)
        self._finish(outcome, sink)

    def block(self, height, sink, tx_hashes=True):
        """[{"txHash", "result" | "error"}] for each EVM tx of block `height` (without txHash, as Evmos'
        TraceBlock answers, when not `tx_hashes`)."""
        self.check()
        state = {"first": True}

        def before(ctx, index, tx):
            if tx is None or tx.kind != "evm":
                return
            sink.write(b"[" if state["first"] else b",")
            state["first"] = False
            sink.write(b'{"txHash":"0x%s",' % tx.evm_hash.hex().encode() if tx_hashes else b"{")
            outcome = {"deferred": True}
            state["last"] = outcome
            self._attach(ctx, index, tx, sink, outcome, prefix=b'"result":')

        def after(ctx, index, tx):
            outcome = state.pop("last", None)
            if outcome is not None:
                self._finish(outcome, sink, in_block=True)
                sink.write(b"}")

        self._replay(height, before, after_tx=after)
        sink.write(b"[]" if state["first"] else b"]")

    def call(self, state, tx, env, sink):
        """The result of a call object run on `state` (debug_traceCall)."""
        self.check()
        outcome = {}
        tracer = self._tracer(sink, outcome)
        try:
            trace_transaction(state, tx, tracer, env, deadline=self._deadline(outcome), cancel=self.cancel)
            outcome["ran"] = True
        except ValidationError as e:
            raise TraceError(f"tracing failed: {e}") from None
        except TraceTimeout:
            raise TraceError(timeout_message(self.options)) from None
        self._finish(outcome, sink)

    # -- internals -----------------------------------------------------------------------------

    def _replay(self, height, before_tx, **kwargs):
        try:
            self.app.replay_block(height, before_tx, **kwargs)
        except TraceTimeout:
            raise TraceError(timeout_message(self.options)) from None
        except LookupError as e:     # PrunedError included: the parent's state is gone
            raise TraceError(str(e)) from None

    def _deadline(self, outcome):
        """The deadline of the tx whose tracer writes through `outcome`; its waits on the client extend it."""
        if not self.options.timeout:
            return None
        deadline = outcome["deadline"] = Deadline(time.monotonic() + self.options.timeout)
        self._tell(deadline.at)
        return deadline

    def _tell(self, at):
        if self._deadlines is not None:
            self._deadlines(at)

    def _make_tracer(self, write):
        if self.options.is_js:
            # The tracer's literal runs as it is made, under the trace's timeout.
            self._tell(time.monotonic() + self.options.timeout)
        return self.options.make_tracer(self.js_memory_limit, write=write)

    def _tracer(self, sink, outcome, prefix=b""):
        def write(data):
            if self.cancel.is_set():
                raise TraceCancelled()
            started = time.monotonic()
            if not outcome.get("started"):
                outcome["started"] = True
                if prefix:
                    sink.write(prefix)
            sink.write(data)         # blocks while the client does not read (back-pressure)
            deadline = outcome.get("deadline")
            if deadline is not None:
                deadline.extend(time.monotonic() - started)
                self._tell(deadline.at)

        tracer = self._make_tracer(write)
        outcome["tracer"] = tracer
        outcome["prefix"] = prefix
        return tracer

    def _attach(self, ctx, index, tx, sink, outcome, prefix=b""):
        """Make the EVM run of this tx a traced one."""
        if tx is None or tx.kind != "evm":
            raise TraceError("transaction not found")
        tracer = self._tracer(sink, outcome, prefix)

        def execute(state, decoded, book_fee):
            env = tx_env(state, decoded.evm, block_hash=ctx.block_hash, tx_index=ctx.evm_tx_count,
                               tx_hash=decoded.evm_hash, log_index=ctx.log_count)
            computation = trace_transaction(state, decoded.evm, tracer, env, deadline=self._deadline(outcome),
                                                  cancel=self.cancel, finalize=book_fee)
            outcome["ran"] = True
            return computation

        ctx.execute = execute

    def _finish(self, outcome, sink, in_block=False):
        """Write what the tracer made of the tx (or its error, in a block trace)."""
        try:
            self._write_outcome(outcome, sink, in_block)
        finally:
            self._tell(None)        # no tracer runs until the next traced tx

    def _write_outcome(self, outcome, sink, in_block):
        tracer = outcome.get("tracer")
        error = outcome.get("error")
        if error is None and not outcome.get("ran"):
            error = "tracing failed: the transaction could not be replayed"
        if error is None:
            try:
                value = tracer.result()
            except TracerError as e:
                error = str(e)
            else:
                if isinstance(tracer, StructLogger):
                    return
                if outcome.get("prefix"):
                    sink.write(outcome["prefix"])
                sink.write(orjson.dumps(value))
                return
        if not in_block or outcome.get("started"):
            # A streamed result that broke off cannot become an error any more: the transport aborts.
            raise TraceError(error)
        sink.write(b'"error":' + orjson.dumps(error))


def timeout_message(options):
    return f"execution timeout: tracing took longer than {options.timeout:g}s"
