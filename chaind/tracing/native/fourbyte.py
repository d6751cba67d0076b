"""4byteTracer: counts the 4-byte selectors and calldata sizes of calls to non-precompiles."""

from chaind.tracing.tracer import Tracer

_CALLS = frozenset(("CALL", "CALLCODE", "DELEGATECALL", "STATICCALL"))


class FourByteTracer(Tracer):
    wants_stack = False

    def __init__(self, tracer_config=None, precompiles=None):
        self.ids = {}
        self._precompiles = precompiles

    def on_tx_start(self, env, db):
        if self._precompiles is None:
            from eth.vm.forks.prague.computation import PragueComputation

            self._precompiles = frozenset(PragueComputation.get_precompiles())
        if env.kind == "CALL":
            self._store(env.to, env.input)

    def on_enter(self, depth, kind, sender, to, input, gas, value, db):
        if kind in _CALLS:
            self._store(to, input)

    def _store(self, to, data):
        if len(data) < 4 or to in self._precompiles:
            return
        key = f"0x{data[:4].hex()}-{len(data) - 4}"
        self.ids[key] = self.ids.get(key, 0) + 1

    def result(self):
        return self.ids
