"""The debug_* method table: traces of committed txs and blocks, and of calls, on the trace pool.

Results stream (api/streaming.py): a raw trace goes out as it is made, never whole in memory.
"""

import attrs
import rlp
from eth_utils import keccak
from trie import HexaryTrie
from trie.iter import NodeIterator
from twisted.application import service

from chaind import errors
from chaind.api import calls
from chaind.api import encoding as enc
from chaind.api import params as p
from chaind.api.streaming import StreamedResult
from chaind.chain.app import PrunedError
from chaind.chain.modules.evm.results import evm_results
from chaind.tracing import traced_interpreter
from chaind.tracing.jobs import BlockTrace, TraceError, TraceJob, TraceOptions, TxTrace


class DebugApi(service.Service):
    def __init__(self, app, runner, settings, reactor, traces):
        """settings: [tracing]; runner: the CallRunner debug_traceCall prepares its call with; traces: the
        node's TracePool (tracing/pool.py), shared with gRPC's TraceTx and TraceBlock."""
        self.app = app
        self.runner = runner
        self.settings = settings
        self.reactor = reactor
        self.traces = traces
        self.sinks = set()       # where running traces write; stopped when the node stops

    @property
    def in_flight(self):
        return self.traces.in_flight

    def stopService(self):
        # A trace waiting on a slow client gives up (the pool does not wait for its thread either way).
        for sink in list(self.sinks):
            sink.abort()
        return super().stopService()

    def methods(self):
        return {
            "debug_traceTransaction": self.trace_transaction,
            "debug_traceBlockByNumber": lambda params: self.trace_block(params, by_hash=False),
            "debug_traceBlockByHash": lambda params: self.trace_block(params, by_hash=True),
            "debug_traceCall": self.trace_call,
            "debug_traceBlock": self.trace_block_rlp,
            "debug_intermediateRoots": self.intermediate_roots,
            "debug_storageRangeAt": self.storage_range_at,
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
        return self._stream(options, TxTrace(height, index))

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
        return self._stream(options, BlockTrace(height))

    def trace_block_rlp(self, params):
        """geth's debug_traceBlock: a block given as RLP (debug_getRawBlock's encoding). This node traces
        blocks it has: the block of that number whose EVM txs are the same."""
        p.at_most(params, 2)
        try:
            header, body, _ = rlp.decode(p.data(p.arg(params, 0), 0))
            height = int.from_bytes(header[8], "big")
            given = [bytes(tx) if isinstance(tx, bytes) else rlp.encode(tx) for tx in body]
        except (rlp.DecodingError, ValueError, TypeError, IndexError) as e:
            raise errors.failed(f"could not decode block: {e}") from None
        found = self.app.block_at(height)
        if found is None or height < self.app.genesis.initial_height or given != self._evm_tx_bytes(height, found[1]):
            raise errors.not_found(f"block #{height} with these transactions is not a block of this chain: "
                                   f"debug_traceBlock traces blocks this node holds")
        options = self._options(p.arg(params, 1, required=False))
        self._check_state(height - 1)
        return self._stream(options, BlockTrace(height))

    def _evm_tx_bytes(self, height, meta):
        return [self.app.decode_tx(self.app.tx_at(height, index)).evm.encode()
                for index, _ in evm_results(self.app, height, meta)]

    def intermediate_roots(self, params):
        """geth's debug_intermediateRoots: the EVM state root after each tx of the block."""
        p.at_most(params, 2)
        height = self.app.height_of_hash(p.block_hash(p.arg(params, 0), 0))
        if height is None:
            raise errors.not_found(f"block {p.arg(params, 0)} not found")
        if height < self.app.genesis.initial_height:
            raise errors.failed("genesis is not traceable")
        self._check_state(height - 1)
        roots = []

        def replay():
            self.app.replay_block(height, lambda ctx, index, tx: None,
                                  after_tx=lambda ctx, index, tx: roots.append(enc.d(ctx.accounts.make_state_root())))
            return roots

        return self.traces.defer(replay)

    def storage_range_at(self, params):
        """geth's debug_storageRangeAt: up to maxResult storage entries of an account, from keyStart in
        the order of their hashed keys, in the state before tx txIndex of the block ran."""
        p.at_most(params, 5)
        height = self.app.height_of_hash(p.block_hash(p.arg(params, 0), 0))
        tx_index, max_result = p.arg(params, 1), p.arg(params, 4)
        for index, value in ((1, tx_index), (4, max_result)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise errors.invalid_argument(f"invalid argument {index}: a non-negative number expected")
        address = p.address(p.arg(params, 2), 2)
        start = p.data(p.arg(params, 3), 3)
        if len(start) > 32:
            raise errors.invalid_argument("invalid argument 3: a key start of at most 32 bytes expected")
        if height is None:
            raise errors.not_found(f"block {p.arg(params, 0)} not found")
        if height < self.app.genesis.initial_height:
            raise errors.failed("genesis is not traceable")
        _, meta = self.app.block_at(height)
        # txIndex counts the block's EVM txs, as geth's; the block may hold native txs between them.
        evm_positions = [index for index, _ in evm_results(self.app, height, meta)]
        if tx_index >= len(evm_positions):
            raise errors.failed(f"transaction index {tx_index} out of range for block {p.arg(params, 0)}")
        self._check_state(height - 1)
        return self.traces.defer(self._storage_range, height, evm_positions[tx_index], address,
                                 start.ljust(32, b"\0"), max_result)

    def _storage_range(self, height, tx_index, address, start, max_result):
        found = {}

        class _Reached(Exception):
            pass

        def before(ctx, index, tx):
            if index == tx_index:
                found["ctx"] = ctx
                raise _Reached()

        try:
            self.app.replay_block(height, before)
        except _Reached:
            pass
        ctx = found["ctx"]
        ctx.accounts.persist()  # the txs before it, into nodes the tries below can read
        nodes = ctx.pending_nodes
        encoded = HexaryTrie(nodes, ctx.accounts.state_root).get(keccak(address))
        storage_root = rlp.decode(encoded)[2] if encoded else HexaryTrie.BLANK_NODE_HASH
        storage = HexaryTrie(nodes, storage_root)
        entries, key = {}, start if storage.get(start) else NodeIterator(storage).next(start)
        while key is not None and len(entries) < max_result:
            value = int.from_bytes(rlp.decode(storage.get(key)), "big")
            entries[enc.d(key)] = {"key": None, "value": "0x%064x" % value}
            key = NodeIterator(storage).next(key)
        return {"storage": entries, "nextKey": None if key is None else enc.d(key)}

    def trace_call(self, params):
        p.at_most(params, 3)
        call = p.arg(params, 0)
        height = p.block_number_or_hash(p.arg(params, 1, required=False, default="latest"), 1, self.app)
        config = p.arg(params, 2, required=False, default={})
        if not isinstance(config, dict):
            # geth decodes the config inside the method: a failure, not an argument that did not decode.
            raise errors.failed("invalid argument 2: trace config must be an object")
        overrides = calls.parse_overrides(config.get("stateOverrides"), 2)
        block = calls.parse_block_overrides(config.get("blockOverrides"), 2)
        options = self._options({k: v for k, v in config.items() if k not in ("stateOverrides", "blockOverrides")})
        self._check_state(height)
        _, meta = self.app.block_at(height)
        return self._stream(options, CallTrace(call, height, meta.hash, overrides, block, self.runner.gas_cap,
                                               self.runner.timeout))

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

    def _stream(self, options, spec):
        # Refused at once when full; the place itself is taken when the result starts to stream.
        self.traces.check()

        def produce(sink):
            self.traces.enter()
            sink = _CountingSink(sink)
            self.sinks.add(sink)
            job = TraceJob(self.app, options, self.settings.js_memory_limit, sink.cancel, self.traces.processes)
            d = self.traces.defer(job.run, spec, sink)
            d.addBoth(self._finished, sink)
            return d.addErrback(_trace_error)

        return StreamedResult(produce, self.settings.max_result_bytes, self.settings.max_buffered_bytes)

    def _finished(self, outcome, sink):
        self.traces.leave(sink.written)
        self.sinks.discard(sink)
        return outcome


@attrs.frozen
class CallTrace:
    """What debug_traceCall traces: `call` run on the state at `height` (block `block_hash`) with its overrides,
    under the node's gas cap; the App it runs on is the job's (a trace process has its own)."""

    call: dict
    height: int
    block_hash: bytes
    overrides: object
    block: object
    gas_cap: int
    evm_timeout: float

    def run(self, job, sink):
        runner = calls.CallRunner(job.app, self.gas_cap, self.evm_timeout)
        view = job.app.view(self.height)
        state, tx = runner.prepare(self.call, view, self.overrides, state_class=calls.PLAIN_STATE_CLASS,
                                   block=self.block)
        job.call(state, tx, traced_interpreter.tx_env(state, tx, block_hash=self.block_hash), sink)


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
