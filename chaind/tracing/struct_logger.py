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
KNOWN_WORDS = 4096

_FIELDS = {
    "disableStack": ("disable_stack", "bool", False),
    "disableStorage": ("disable_storage", "bool", False),
    "enableMemory": ("enable_memory", "bool", False),
    "enableReturnData": ("enable_return_data", "bool", False),
    "limit": ("limit", "int", 0),
}

# `"op":"NAME"` fragments, quoted once.
_OP_JSON = ['"' + name + '"' for name in ops.NAMES]
_TAKES = ops.TAKES
_SLOAD, _SSTORE = ops.SLOAD, ops.SSTORE


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


class _Words(dict):
    """Stack item -> its quoted 64-hex JSON string. Constants, addresses and DUPed values recur,
    so most items are found here; a miss formats the item and remembers it (up to KNOWN_WORDS)."""

    __slots__ = ()

    def __missing__(self, item):
        if len(self) >= KNOWN_WORDS:
            self.clear()
        # to_bytes + hex beats "%064x" on 256-bit ints, the common case (hashes, sums).
        if item.__class__ is int:
            word = self[item] = f'"{item.to_bytes(32, "big").hex()}"'
        else:
            word = self[item] = '"' + item.hex().rjust(64, "0") + '"'
        return word


class _Frame:
    """What one frame's entries share: the formatted stack, reused between entries since an op
    only rewrites its top items, and the entry's `"depth":N,"error":null` text."""

    __slots__ = ("words", "keep", "head")

    def __init__(self, depth):
        self.words = []
        self.keep = 0
        self.head = ',"depth":%d,"error":null' % depth


class _Storage:
    """One contract's slots touched so far: values, each slot's formatted pair in slot order, and
    the whole map's text while unchanged (an SSTORE rewrites one pair, not the map)."""

    __slots__ = ("values", "pairs", "text")

    def __init__(self):
        self.values = {}
        self.pairs = {}
        self.text = "{}"

    def set(self, slot, value):
        pairs = self.pairs
        in_order = slot in pairs or not pairs or slot > next(reversed(pairs))
        pairs[slot] = f'"{slot.to_bytes(32, "big").hex()}":"{value.to_bytes(32, "big").hex()}"'
        if not in_order:
            self.pairs = pairs = dict(sorted(pairs.items()))
        self.values[slot] = value
        self.text = f'{{{",".join(pairs.values())}}}'


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
        self._limit = config.limit or -1      # -1: entries never reach it
        self._with_stack = not config.disable_stack
        self._with_storage = not config.disable_storage
        self._with_memory = config.enable_memory
        self._with_return_data = config.enable_return_data
        self._extras = config.enable_memory or config.enable_return_data
        self._words = _Words()
        self.wants_stack = self._with_stack or self._with_storage
        self.wants_memory = config.enable_memory
        self._frames = {}         # depth -> _Frame running at that depth
        self._storage = {}        # address -> _Storage
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
        self._frames[1] = _Frame(1)
        self._emit('{"structLogs":[')

    def on_enter(self, depth, kind, sender, to, input, gas, value, db):
        self._frames[depth + 1] = _Frame(depth + 1)

    def on_opcode(self, step, db):
        if self.entries == self._limit:
            return
        self.entries += 1
        op = step.op
        frame = self._frames[step.depth]
        head = frame.head if step.error is None else (
            ',"depth":%d,"error":%s' % (step.depth, orjson.dumps(step.error).decode()))
        rest = ""
        if self._extras:
            if self._with_return_data and step.return_data:
                rest = ',"returnData":"0x' + step.return_data.hex() + '"'
            if self._with_memory:
                memory = step.memory
                if memory:
                    # One hex pass with a separator every 32 bytes (from the left), then quoted.
                    rest += ',"memory":["' + memory.hex(",", -32).replace(",", '","') + '"]'
                else:
                    rest += ',"memory":[]'
        # An SLOAD or SSTORE refused before it runs (out of gas) shows no storage, as geth's entry has none.
        if _SLOAD <= op <= _SSTORE and self._with_storage and step.error is None:
            rest += ',"storage":' + self._storage_text(step, db, op)
        if step.refund:
            rest += ',"refund":%d' % step.refund
        if self._with_stack:
            stack = step.stack
            words = frame.words
            size = len(stack)
            keep = frame.keep
            if keep > size:
                keep = size
            if len(words) > keep:
                del words[keep:]
            known = self._words
            while keep < size:
                words.append(known[stack[keep]])
                keep += 1
            keep = size - _TAKES[op]
            frame.keep = keep if keep > 0 else 0
            # One f-string per entry: each piece is copied once.
            text = (f'{self._sep}{{"pc":{step.pc},"op":{_OP_JSON[op]},"gas":{step.gas},"gasCost":{step.cost}'
                    f'{head},"stack":[{",".join(words)}]{rest}}}')
        else:
            text = (f'{self._sep}{{"pc":{step.pc},"op":{_OP_JSON[op]},"gas":{step.gas},"gasCost":{step.cost}'
                    f'{head}{rest}}}')
        self._sep = ","
        self._parts.append(text)
        self._size += len(text)
        if self._size >= self._chunk_size:
            self._flush()

    def _storage_text(self, step, db, op):
        address = step.address
        storage = self._storage.get(address)
        if storage is None:
            storage = self._storage[address] = _Storage()
        stack = step.stack
        size = len(stack)
        if op == ops.SLOAD and size >= 1:
            slot = _as_int(stack[-1])
            value = db.storage(address, slot)
        elif op == ops.SSTORE and size >= 2:
            slot = _as_int(stack[-1])
            value = _as_int(stack[-2])
        else:
            return storage.text
        if storage.values.get(slot) != value:
            storage.set(slot, value)
        return storage.text

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
