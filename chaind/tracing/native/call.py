"""callTracer (geth HEAD format): the tree of call frames, with onlyTopCall and withLog."""

from eth_abi import decode as abi_decode

from chaind.tracing import config as cfg
from chaind.tracing.tracer import Tracer

_FIELDS = {"onlyTopCall": ("only_top_call", "bool", False), "withLog": ("with_log", "bool", False)}
_ERROR_SELECTOR = bytes.fromhex("08c379a0")   # Error(string)
_PANIC_SELECTOR = bytes.fromhex("4e487b71")   # Panic(uint256)


def _q(value):
    return hex(value)


def _d(data):
    return "0x" + bytes(data).hex()


def revert_reason(output):
    """geth's abi.UnpackRevert: Error(string) text, or Panic(uint256)'s description; None otherwise."""
    if len(output) < 4:
        return None
    selector, body = bytes(output[:4]), bytes(output[4:])
    try:
        if selector == _ERROR_SELECTOR:
            return abi_decode(["string"], body)[0]
        if selector == _PANIC_SELECTOR:
            code = abi_decode(["uint256"], body)[0]
            return _PANICS.get(code, f"unknown panic code: {code:#x}")
    except Exception:  # noqa: BLE001 (malformed ABI data: geth gives no reason either)
        return None
    return None


# geth accounts/abi panicReasons
_PANICS = {
    0x00: "generic panic",
    0x01: "assert(false)",
    0x11: "arithmetic underflow or overflow",
    0x12: "division or modulo by zero",
    0x21: "enum overflow",
    0x22: "invalid encoded storage byte array accessed",
    0x31: "out-of-bounds array access; popping on an empty array",
    0x32: "out-of-bounds access of an array or bytesN",
    0x41: "out of memory",
    0x51: "uninitialized function",
}


class _Frame:
    __slots__ = ("kind", "sender", "to", "input", "gas", "gas_used", "value", "output", "error",
                 "revert_reason", "calls", "logs")

    def __init__(self, kind, sender, to, data, gas, value):
        self.kind, self.sender, self.to, self.input, self.gas, self.value = kind, sender, to, bytes(data), gas, value
        self.gas_used = 0
        self.output = None
        self.error = None
        self.revert_reason = None
        self.calls = []
        self.logs = []

    def process_output(self, output, error, reverted):
        if error is not None and not reverted:
            error = None
        if error is None:
            self.output = bytes(output)
            return
        self.error = error
        if self.kind in ("CREATE", "CREATE2"):
            self.to = None
        if error != "execution reverted" or not output:
            return
        self.output = bytes(output)
        self.revert_reason = revert_reason(self.output)

    def clear_failed_logs(self, parent_failed):
        failed = self.error is not None or parent_failed
        if failed:
            self.logs = []
        for call in self.calls:
            call.clear_failed_logs(failed)

    def to_json(self):
        out = {"from": "0x" + self.sender.hex(), "gas": _q(self.gas), "gasUsed": _q(self.gas_used)}
        if self.to is not None:
            out["to"] = "0x" + self.to.hex()
        out["input"] = _d(self.input)
        if self.output:
            out["output"] = _d(self.output)
        if self.error is not None:
            out["error"] = self.error
        if self.revert_reason:
            out["revertReason"] = self.revert_reason
        if self.calls:
            out["calls"] = [call.to_json() for call in self.calls]
        if self.logs:
            out["logs"] = self.logs
        if self.value is not None:
            out["value"] = _q(self.value)
        out["type"] = self.kind
        return out


class CallTracer(Tracer):
    wants_stack = False

    def __init__(self, tracer_config=None):
        config = cfg.decode(tracer_config, "callTracerConfig", _FIELDS)
        self.only_top_call = config["only_top_call"]
        self.with_log = config["with_log"]
        self._stack = []
        self._depth = 0

    def on_tx_start(self, env, db):
        self._stack = [_Frame(env.kind, env.sender, env.to, env.input, env.gas, env.value)]

    def on_enter(self, depth, kind, sender, to, input, gas, value, db):
        self._depth += 1
        if self.only_top_call:
            return
        self._stack.append(_Frame(kind, sender, to, input, gas, value))

    def on_exit(self, depth, output, gas_used, error, reverted):
        self._depth -= 1
        if self.only_top_call:
            return
        frame = self._stack.pop()
        frame.gas_used = gas_used
        frame.process_output(output, error, reverted)
        self._stack[-1].calls.append(frame)

    def on_log(self, address, topics, data, index):
        if not self.with_log or (self.only_top_call and self._depth > 0):
            return
        frame = self._stack[-1]
        frame.logs.append({"address": "0x" + address.hex(), "topics": ["0x" + t.hex() for t in topics],
                           "data": _d(data), "index": _q(index), "position": _q(len(frame.calls))})

    def on_tx_end(self, gas_used, output, error, reverted):
        top = self._stack[0]
        top.gas_used = gas_used
        top.process_output(output, error, reverted)
        if self.with_log:
            top.clear_failed_logs(False)

    def result(self):
        if len(self._stack) != 1:
            raise ValueError("incorrect number of top-level calls")
        return self._stack[0].to_json()
