"""JsTracer: a geth-style JavaScript tracer (the `tracer` string of a trace config) run in QuickJS.

One QuickJS context per trace, sandboxed (no eval, no I/O), with a memory limit and a deadline.
"""

import re
import secrets
import time

import _quickjs
import eth_utils
import orjson
import rlp
from eth.vm.forks.prague import PragueVM

from chaind.gocompat import go_duration
from chaind.tracing.js.errors import TracerError
from chaind.tracing.js.instrument import Instrumented, SourceError
from chaind.tracing.js.opcodes import OPCODE_NAMES
from chaind.tracing.js.prelude import CALLBACKS, HOOKS, PRELUDE
from chaind.tracing.tracer import Tracer

DEFAULT_TIMEOUT = 5.0                   # seconds; geth's defaultTraceTimeout
DEFAULT_MEMORY_LIMIT = 128 << 20        # bytes of JS heap per trace
JS_STACK_SIZE = 1 << 20                 # bytes of native stack JS recursion may use
MEMORY_PAD_LIMIT = 1 << 20              # geth's memoryPadLimit for log.memory.slice past the end

PRAGUE_PRECOMPILES = frozenset(PragueVM._state_class.computation_class._precompiles)

_FRAME = re.compile(r"^\s*at (\S+) \((?:<input>:(\d+):(\d+)|native)\)", re.M)


class _Bridge:
    """What the JS callbacks read: the current step and state. It never holds the context, so the
    tracer, its context and these callbacks form no reference cycle."""

    __slots__ = ("step", "db", "error")

    def __init__(self):
        self.step = None
        self.db = None
        self.error = ""

    def _failed(self, message):
        self.error = message
        return None

    def peek(self, i):
        stack = self.step.stack
        n = len(stack)
        if i.__class__ is int and 0 <= i < n:
            item = stack[n - 1 - i]
            # py-evm keeps PUSHed words as bytes and computed ones as ints.
            return "%x" % item if item.__class__ is int else (item.hex().lstrip("0") or "0")
        return None

    def stackLength(self):
        return len(self.step.stack)

    def _memory(self):
        memory = self.step.memory
        return b"" if memory is None else memory

    def memLength(self):
        return len(self._memory())

    def memSlice(self, begin, end):
        # geth HEAD: empty when equal, error when reversed or negative, zero-padded past the end (to 1 MiB)
        try:
            begin, end = int(begin), int(end)
        except (OverflowError, ValueError):
            return self._failed("tracer accessed out of bound memory: offset %s, end %s" % (begin, end))
        if end == begin:
            return ""
        if end < begin or begin < 0:
            return self._failed("tracer accessed out of bound memory: offset %d, end %d" % (begin, end))
        memory = self._memory()
        length = len(memory)
        if end <= length:
            return bytes(memory[begin:end]).hex()
        if end - length > MEMORY_PAD_LIMIT:
            return self._failed("reached limit for padding memory slice: %d" % (end - length))
        return (bytes(memory[begin:]) + bytes(end - max(begin, length))).hex()

    def memGetUint(self, offset):
        memory = self._memory()
        try:
            offset = int(offset)
        except (OverflowError, ValueError):
            offset = -1
        if offset < 0 or len(memory) < offset + 32:
            return self._failed("tracer accessed out of bound memory: available %d, offset %d, size 32"
                                % (len(memory), offset))
        return bytes(memory[offset:offset + 32]).hex()

    def refund(self):
        return self.step.refund

    def caller(self):
        return bytes(self.step.caller).hex()

    def address(self):
        return bytes(self.step.address).hex()

    def value(self):
        return "%x" % self.step.value

    def input(self):
        return bytes(self.step.input).hex()

    # State reads: any failure (a missing trie node, a closed database) becomes the tracer's error.
    def balance(self, address):
        try:
            return "%x" % self.db.balance(bytes.fromhex(address))
        except Exception as e:  # noqa: BLE001 (never raise into JS: it would poison the evaluation)
            return self._failed("state read failed: %s" % e)

    def nonce(self, address):
        try:
            return self.db.nonce(bytes.fromhex(address))
        except Exception as e:  # noqa: BLE001 (never raise into JS: it would poison the evaluation)
            return self._failed("state read failed: %s" % e)

    def code(self, address):
        try:
            return bytes(self.db.code(bytes.fromhex(address))).hex()
        except Exception as e:  # noqa: BLE001 (never raise into JS: it would poison the evaluation)
            return self._failed("state read failed: %s" % e)

    def storage(self, address, slot):
        try:
            return self.db.storage(bytes.fromhex(address), int(slot, 16)).to_bytes(32, "big").hex()
        except Exception as e:  # noqa: BLE001 (never raise into JS: it would poison the evaluation)
            return self._failed("state read failed: %s" % e)

    def exists(self, address):
        try:
            return bool(self.db.exists(bytes.fromhex(address)))
        except Exception as e:  # noqa: BLE001 (never raise into JS: it would poison the evaluation)
            return self._failed("state read failed: %s" % e)

    def createAddress(self, sender, nonce):
        try:
            nonce = int(nonce)
        except (OverflowError, ValueError):
            nonce = -1
        if not 0 <= nonce < 1 << 64:
            return self._failed("invalid nonce")
        return eth_utils.keccak(rlp.encode([bytes.fromhex(sender), nonce]))[12:].hex()

    def create2Address(self, sender, salt, code):
        digest = eth_utils.keccak(b"\xff" + bytes.fromhex(sender) + bytes.fromhex(salt)
                                  + eth_utils.keccak(bytes.fromhex(code)))
        return digest[12:].hex()

    def lastError(self):
        return self.error


class JsTracer(Tracer):
    """geth's JS tracer API over the Tracer protocol.

    code: the tracer string (an object literal, evaluated as geth does, "(" + code + ")").
    config: the trace config's `tracerConfig` as JSON text, a JSON-able value, or None ("{}").
    timeout: seconds for the whole trace from construction (gocompat.parse_duration(config["timeout"])).
    memory_limit: bytes of JS heap. precompiles: 20-byte addresses isPrecompiled() knows.
    The deadline is checked between bytecodes: a native built-in (a catastrophic regex) can outrun it, so the
    node runs a JS-traced job in a process it kills past the deadline (tracing/processes.py).

    Construction raises TracerError for a tracer geth would refuse (syntax error, missing
    result/fault, one of enter/exit, setup throwing). After a hook fails, later hooks are skipped
    and result() raises TracerError with geth's text. Use the tracer from one thread at a time.
    """

    wants_stack = True
    wants_storage = False

    def __init__(self, code, config=None, *, timeout=DEFAULT_TIMEOUT, memory_limit=DEFAULT_MEMORY_LIMIT,
                 precompiles=PRAGUE_PRECOMPILES):
        if not isinstance(code, str):
            raise TracerError("tracer must be a string")
        self.error = None               # geth's text of the first failure, once there is one
        self._result = None
        self._memory_limit = memory_limit
        self._started = None
        self._step_hook = None
        self._has_frames = False
        self._bridge = bridge = _Bridge()
        tick = "__chaind_tick_" + secrets.token_hex(8)   # unguessable: a tracer cannot shadow it
        try:
            self._source = Instrumented(code, tick)
        except SourceError as e:
            raise TracerError(str(e)) from None
        self.wants_memory = _may_read_memory(code)

        self._ctx = ctx = _quickjs.Context()
        ctx.set_memory_limit(memory_limit)
        ctx.set_max_stack_size(JS_STACK_SIZE)
        for name in CALLBACKS:
            ctx.add_callable("__chaind_py_" + name, getattr(bridge, name))
        factory = ctx.eval(PRELUDE)
        factory(orjson.dumps(CALLBACKS).decode(), orjson.dumps(OPCODE_NAMES).decode(),
                orjson.dumps(sorted(a.hex() for a in precompiles)).decode(), tick, True)
        self._hooks = {name: ctx.get("__chaind_h_" + name) for name in HOOKS}
        ctx.eval(";".join("delete globalThis.__chaind_h_%s" % name for name in HOOKS))
        self._hooks["setDeadline"](time.time() * 1000.0 + timeout * 1000.0)

        try:
            tracer = ctx.eval(self._source.text)
        except _quickjs.JSException as e:
            raise TracerError(self._construction_error(str(e))) from None
        except TypeError:           # a value that cannot cross into Python (BigInt, Symbol): not an object
            raise TracerError("trace object must expose a function result()") from None
        flags = self._hooks["install"](tracer)
        if flags.startswith("!"):
            raise TracerError(flags[1:])
        if flags.startswith("?"):
            raise TracerError(self._wording(flags[1:], None))
        self._step_hook = self._hooks["step"] if "s" in flags else None
        self._has_frames = "f" in flags
        if "u" in flags:
            cfg = config if isinstance(config, str) else ("{}" if config is None else orjson.dumps(config).decode())
            failure = self._call(self._hooks["setup"], cfg)
            if failure is not None:
                raise TracerError(self._wording(failure, None))

    # ---- the Tracer protocol

    def on_tx_start(self, env, db):
        self._bridge.db = db
        self._started = time.perf_counter()
        fields = {"type": env.kind, "from": bytes(env.sender).hex(), "to": bytes(env.to).hex(),
                  "input": bytes(env.input).hex(), "gas": env.gas, "gasPrice": "%x" % env.gas_price,
                  "value": "%x" % env.value, "block": env.block_number, "coinbase": bytes(env.coinbase).hex(),
                  "intrinsicGas": env.intrinsic_gas}
        if env.tx_hash:                 # a mined tx (debug_traceCall has none)
            fields.update(blockHash=bytes(env.block_hash).hex(), txIndex=env.tx_index,
                          txHash=bytes(env.tx_hash).hex())
        self._set_ctx(fields)

    def on_enter(self, depth, kind, sender, to, input, gas, value, db):
        if self._has_frames and self.error is None:
            self._bridge.db = db
            failure = self._call(self._hooks["enter"], kind, bytes(sender).hex(), bytes(to).hex(),
                                 bytes(input).hex(), gas, None if value is None else "%x" % value)
            if failure is not None:
                self._fail(failure, "enter")

    def on_opcode(self, step, db):
        hook = self._step_hook          # the hot path: one attribute check and one JS call per op
        if hook is not None:
            bridge = self._bridge
            bridge.step = step
            bridge.db = db
            try:
                failure = hook(step.pc, step.op, step.gas, step.cost, step.depth, step.error)
            except Exception as e:  # noqa: BLE001 (thrown while reporting (still out of memory), or a callback bug)
                failure = _as_failure(e)
            if failure is not None:
                self._fail(failure, "step")

    def on_fault(self, step, db):
        if self.error is None:
            self._bridge.step = step
            self._bridge.db = db
            failure = self._call(self._hooks["fault"], step.pc, step.op, step.gas, step.cost, step.depth,
                                 step.error)
            if failure is not None:
                self._fail(failure, "fault")

    def on_exit(self, depth, output, gas_used, error, reverted):
        if self._has_frames and self.error is None:
            failure = self._call(self._hooks["exit"], gas_used, bytes(output).hex(),
                                 _error_text(error, reverted))
            if failure is not None:
                self._fail(failure, "exit")

    def on_tx_end(self, gas_used, output, error, reverted):
        fields = {"gasUsed": gas_used, "output": bytes(output).hex()}
        if self._started is not None:
            fields["time"] = go_duration(time.perf_counter() - self._started)
        text = _error_text(error, reverted)
        if text is not None:
            fields["error"] = text
        self._set_ctx(fields)

    def result(self):
        """What the tracer's result(ctx, db) returns, as JSON-able data; TracerError on failure."""
        if self._result is None:
            if self.error is not None:
                self.close()
                raise TracerError(self.error)
            try:
                answer = self._hooks["result"]()
                failure = self._hooks["failure"]() if answer is None else None
            except Exception as e:  # noqa: BLE001 (a JS failure of any kind is the tracer's error)
                answer, failure = None, _as_failure(e)
            if answer is None:
                self._fail(failure, "result")
                self.close()
                raise TracerError(self.error)
            self._result = orjson.loads(answer)
            self.close()
        return self._result

    def close(self):
        """Free the JS context now rather than at garbage collection."""
        self._hooks = {}
        self._ctx = None
        self._step_hook = None
        self._has_frames = False
        if self.error is None and self._result is None:
            self.error = "tracer closed"

    # ---- internals

    def _set_ctx(self, fields):
        if self._ctx is not None:
            self._hooks["setCtx"](orjson.dumps(fields).decode())

    def _call(self, hook, *args):
        try:
            return hook(*args)
        except Exception as e:  # noqa: BLE001 (a JS failure of any kind is the tracer's error)
            return _as_failure(e)

    def _fail(self, failure, where):
        self.error = self._wording(failure, where)
        self._step_hook = None          # geth skips every hook after the first failure

    def _wording(self, failure, where):
        """geth's text: `<message> at <fn> (<eval>:L:C)    in server-side tracer function '<where>'`."""
        message, stack = orjson.loads(failure)
        if message.startswith("InternalError: out of memory"):
            message = "out of memory: JS tracer memory limit is %d bytes" % self._memory_limit
        text = message + self._location(stack)
        return text if where is None else "%s    in server-side tracer function '%s'" % (text, where)

    def _location(self, stack):
        for match in _FRAME.finditer(stack or ""):
            name, line = match.group(1), match.group(2)
            if name.startswith("__chaind_") or line is None:
                continue
            line, col = self._source.original_position(int(line), int(match.group(3)))
            if name == "<eval>":            # top-level code of the tracer source, not a function
                return " at <eval>:%d:%d" % (line, col)
            return " at %s (<eval>:%d:%d)" % (name, line, col)
        return ""

    def _construction_error(self, text):
        first = text.split("\n")[0]
        where = re.search(r"at <input>:(\d+):(\d+)", text)
        if first.startswith("SyntaxError") and where:
            line, col = self._source.original_position(int(where.group(1)), int(where.group(2)))
            return "%s at <eval>:%d:%d" % (first, line, col)
        return first + self._location(text)


def _as_failure(error):
    """An exception out of a hook call, in the shape the JS side reports failures: [message, stack]."""
    text = str(error)
    return orjson.dumps([text.split("\n")[0], text]).decode()


def _error_text(error, reverted):
    if error:
        return str(error)
    return "execution reverted" if reverted else None


def _may_read_memory(code):
    """Whether the tracer can reach log.memory; only a tracer that cannot lets the execution skip
    copying memory. Any computed member access counts, since `log[name]` could be "memory"."""
    return "memory" in code or re.search(r"\[\s*[^\]\s0-9'\"]", code) is not None


# The callbacks a console can answer without a trace: they read no EVM step or state.
_STEPLESS = ("createAddress", "create2Address", "lastError")


def console_context():
    """A fresh QuickJS context with the tracers' prelude (bigInt, toHex, toContract...), for a console.

    No trace runs in it: the callbacks that read an EVM step or state answer null.
    """
    ctx = _quickjs.Context()
    bridge = _Bridge()
    for name in CALLBACKS:
        ctx.add_callable("__chaind_py_" + name, getattr(bridge, name) if name in _STEPLESS else _no_step)
    ctx.eval(PRELUDE)(orjson.dumps(CALLBACKS).decode(), orjson.dumps(OPCODE_NAMES).decode(),
                      orjson.dumps(sorted(a.hex() for a in PRAGUE_PRECOMPILES)).decode(), "__chaind_tick", False)
    return ctx


def _no_step(*args):
    return None
