"""flatCallTracer (geth HEAD): callTracer's frames as Parity-style flat traces, each with its traceAddress.

Config: convertParityErrors (geth's error texts as Parity's), includePrecompiles (CALL and STATICCALL to
precompiles are left out unless set).
"""

from eth.vm.forks.prague import PragueVM

from chaind.tracing import config as cfg
from chaind.tracing.native.call import CallTracer

_FIELDS = {"convertParityErrors": ("convert_errors", "bool", False),
           "includePrecompiles": ("include_precompiles", "bool", False)}
_PRECOMPILES = frozenset(PragueVM.get_state_class().computation_class.get_precompiles())
_PARITY_ERRORS = {
    "contract creation code storage out of gas": "Out of gas", "out of gas": "Out of gas",
    "gas uint64 overflow": "Out of gas", "max code size exceeded": "Out of gas",
    "invalid jump destination": "Bad jump destination", "execution reverted": "Reverted",
    "return data out of bounds": "Out of bounds", "stack limit reached 1024 (1023)": "Out of stack",
    "precompiled failed": "Built-in failed", "invalid input length": "Built-in failed",
}
_PARITY_PREFIXES = {"invalid opcode:": "Bad instruction", "stack underflow": "Stack underflow"}


class FlatCallTracer(CallTracer):
    def __init__(self, tracer_config=None):
        config = cfg.decode(tracer_config, "flatCallTracerConfig", _FIELDS)
        super().__init__(None)
        self.convert_errors = config["convert_errors"]
        self.include_precompiles = config["include_precompiles"]
        self._context = None

    def on_tx_start(self, env, db):
        super().on_tx_start(env, db)
        self._context = env

    def on_enter(self, depth, kind, sender, to, input, gas, value, db):
        # Child calls carry a value even when zero (only STATICCALL has none).
        super().on_enter(depth, kind, sender, to, input, gas, 0 if value is None else value, db)

    def on_exit(self, depth, output, gas_used, error, reverted):
        super().on_exit(depth, output, gas_used, error, reverted)
        parent = self._stack[-1]
        call = parent.calls[-1]
        if not self.include_precompiles and call.kind in ("CALL", "STATICCALL") and call.to in _PRECOMPILES:
            parent.calls.pop()

    def result(self):
        if len(self._stack) != 1:
            raise ValueError("invalid number of calls")
        out = []
        self._flatten(self._stack[0], [], out)
        return out

    def _flatten(self, frame, address, out):
        env = self._context
        if frame.kind in ("CREATE", "CREATE2"):
            kind = "create"
            action = {"from": _h(frame.sender), "gas": hex(frame.gas), "init": _h(frame.input),
                      "value": hex(frame.value or 0)}
            result = {"address": _h(frame.to) if frame.to is not None else None, "code": _h(frame.output or b""),
                      "gasUsed": hex(frame.gas_used)}
            if result["address"] is None:
                del result["address"]
        elif frame.kind == "SELFDESTRUCT":
            kind, result = "suicide", None
            action = {"address": _h(frame.sender), "balance": hex(frame.value or 0), "refundAddress": _h(frame.to)}
        else:
            kind = "call"
            action = {"callType": frame.kind.lower(), "from": _h(frame.sender), "gas": hex(frame.gas),
                      "input": _h(frame.input), "to": _h(frame.to)}
            if frame.value is not None:
                action["value"] = hex(frame.value)
            result = {"gasUsed": hex(frame.gas_used), "output": _h(frame.output or b"")}
        # A call (debug_traceCall) is no tx of a block: geth leaves the block and tx fields empty.
        in_block = bool(env.tx_hash)
        flat = {"action": action,
                "blockHash": _h(env.block_hash) if in_block else None,
                "blockNumber": env.block_number if in_block else 0}
        error = frame.error
        if error is not None:
            flat["error"] = self._parity(error) if self.convert_errors else error
            # A revert's output holds its reason; other failures have no result.
            if error != "execution reverted":
                result = None
        if result is not None:
            flat["result"] = result
        flat.update({"subtraces": len(frame.calls), "traceAddress": address,
                     "transactionHash": _h(env.tx_hash) if in_block else None,
                     "transactionPosition": env.tx_index if in_block else 0, "type": kind})
        out.append(flat)
        for i, child in enumerate(frame.calls):
            self._flatten(child, address + [i], out)

    @staticmethod
    def _parity(error):
        if error in _PARITY_ERRORS:
            return _PARITY_ERRORS[error]
        for prefix, text in _PARITY_PREFIXES.items():
            if error.startswith(prefix):
                return text
        return error


def _h(data):
    return "0x" + bytes(data).hex()
