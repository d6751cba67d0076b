"""The raw struct logger (debug_trace* without `tracer`), streaming its JSON in chunks.

Output: {"structLogs":[...],"gas":N,"failed":B,"returnValue":"hex"}; each entry is final when
its cost is known, so it is formatted at once and the raw values are dropped.
"""

import attrs
import orjson

from chaind.tracing import config as cfg
from chaind.tracing import opcodes as ops
from chaind.tracing.tracer import Tracer

CHUNK_SIZE = 64 * 1024

_FIELDS = {
    "disableStack": ("disable_stack", "bool", False),
    "disableStorage": ("disable_storage", "bool", False),
    "enableMemory": ("enable_memory", "bool", False),
    "enableReturnData": ("enable_return_data", "bool", False),
    "limit": ("limit", "int", 0),
}

# `"op":"NAME"` fragments, quoted once.
_OP_JSON = ['"' + name + '"' for name in ops.NAMES]


@attrs.frozen
class LoggerConfig:
    disable_stack: bool = False
    disable_storage: bool = False
    enable_memory: bool = False
    enable_return_data: bool = False
    limit: int = 0            # most entries to log; 0 = all (geth <= 1.14 and Evmos count entries)

    @classmethod
    def from_trace_config(cls, trace_config):
        """The logger keys of a debug_trace* config object (Go-style: any case, extra keys ignored)."""
        values = cfg.decode(trace_config, "TraceConfig", _FIELDS)
        if values["limit"] < 0:
            raise cfg.ConfigError(f"output limit cannot be negative, got {values['limit']}")
        return cls(**values)


def _word(item):
    """A stack item (int, or bytes of up to 32) as a quoted 64-hex JSON string."""
    if item.__class__ is int:
        return '"%064x"' % item
    return '"' + item.hex().rjust(64, "0") + '"'


class _StackCache:
    """The formatted stack of one frame, reused between entries: an op only rewrites its top items."""

    __slots__ = ("words", "keep")

    def __init__(self):
        self.words = []
        self.keep = 0


class StructLogger(Tracer):
    """geth's StructLogger. write(bytes) receives the JSON in ~CHUNK_SIZE pieces; it may block
    (back-pressure) or raise TraceAborted (the client went away). Without `write` the chunks are
    kept and result() returns the whole JSON as bytes; with it, result() returns None.
    """

    def __init__(self, config=None, write=None, chunk_size=CHUNK_SIZE):
        self.config = config = config or LoggerConfig()
        self._chunks = None
        if write is None:
            self._chunks = []
            write = self._chunks.append
        self._write = write
        self._chunk_size = chunk_size
        self._parts = []
        self._size = 0
        self._sep = ""
        self._count = 0
        self._limit = config.limit
        self._with_stack = not config.disable_stack
        self._with_storage = not config.disable_storage
        self._with_memory = config.enable_memory
        self._with_return_data = config.enable_return_data
        self.wants_stack = self._with_stack or self._with_storage
        self.wants_memory = config.enable_memory
        self._stacks = {}         # depth -> _StackCache of the frame running at that depth
        self._storage = {}        # address -> {slot: value} touched so far
        self._storage_json = {}   # address -> its formatted map, while unchanged
        self.entries = 0

    # -- output -- #

    def _emit(self, text):
        self._parts.append(text)
        self._size += len(text)
        if self._size >= self._chunk_size:
            self._flush()

    def _flush(self):
        if self._parts:
            data = "".join(self._parts).encode()
            self._parts = []
            self._size = 0
            self._write(data)

    # -- hooks -- #

    def on_tx_start(self, env, db):
        self._stacks[1] = _StackCache()
        self._emit('{"structLogs":[')

    def on_enter(self, depth, kind, sender, to, input, gas, value, db):
        self._stacks[depth + 1] = _StackCache()

    def on_opcode(self, step, db):
        if self._limit and self._count >= self._limit:
            return
        self._count += 1
        op = step.op
        error = step.error
        parts = [self._sep, '{"pc":', str(step.pc), ',"op":', _OP_JSON[op], ',"gas":', str(step.gas),
                 ',"gasCost":', str(step.cost), ',"depth":', str(step.depth),
                 ',"error":', "null" if error is None else orjson.dumps(error).decode()]
        self._sep = ","
        stack = step.stack
        if self._with_stack:
            cache = self._stacks[step.depth]
            words = cache.words
            size = len(stack)
            keep = cache.keep if cache.keep < size else size
            if len(words) > keep:
                del words[keep:]
            for i in range(len(words), size):
                words.append(_word(stack[i]))
            keep = size - ops.TAKES[op]
            cache.keep = keep if keep > 0 else 0
            parts.append(',"stack":[')
            parts.append(",".join(words))
            parts.append("]")
        if self._with_return_data and step.return_data:
            parts.append(',"returnData":"0x' + step.return_data.hex() + '"')
        if self._with_memory:
            memory = step.memory
            if memory:
                text = memory.hex()
                parts.append(',"memory":["' + '","'.join([text[i:i + 64] for i in range(0, len(text), 64)]) + '"]')
            else:
                parts.append(',"memory":[]')
        if (op == ops.SLOAD or op == ops.SSTORE) and self._with_storage:
            parts.append(',"storage":')
            parts.append(self._storage_entry(step, db, op, stack))
        if step.refund:
            parts.append(',"refund":' + str(step.refund))
        parts.append("}")
        text = "".join(parts)
        self._parts.append(text)
        self._size += len(text)
        if self._size >= self._chunk_size:
            self._flush()
        self.entries += 1

    def _storage_entry(self, step, db, op, stack):
        address = step.address
        slots = self._storage.get(address)
        if slots is None:
            slots = self._storage[address] = {}
        size = len(stack)
        changed = False
        if op == ops.SLOAD and size >= 1:
            slot = _as_int(stack[-1])
            value = db.storage(address, slot)
            changed = slots.get(slot) != value
            slots[slot] = value
        elif op == ops.SSTORE and size >= 2:
            slot = _as_int(stack[-1])
            value = _as_int(stack[-2])
            changed = slots.get(slot) != value
            slots[slot] = value
        text = self._storage_json.get(address)
        if changed or text is None:
            text = "{" + ",".join('"%064x":"%064x"' % item for item in sorted(slots.items())) + "}"
            self._storage_json[address] = text
        return text

    def on_tx_end(self, gas_used, output, error, reverted):
        # Output on success, revert data on REVERT, else empty (geth's GetResult).
        value = output if error is None or error == "execution reverted" else b""
        self._emit('],"gas":%d,"failed":%s,"returnValue":"%s"}' % (
            gas_used, "true" if error is not None else "false", value.hex()))
        self._flush()

    def result(self):
        if self._chunks is None:
            return None
        return b"".join(self._chunks)


def _as_int(item):
    return item if item.__class__ is int else int.from_bytes(item, "big")
