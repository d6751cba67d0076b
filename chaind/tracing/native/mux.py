"""muxTracer (geth): several native tracers on one run; the result is each one's under its name.

tracerConfig names them: {"callTracer": {"withLog": true}, "prestateTracer": {}}.
"""

from chaind.tracing import config as cfg
from chaind.tracing.tracer import Tracer


class MuxTracer(Tracer):
    def __init__(self, tracer_config=None, directory=None):
        config = cfg.load(tracer_config) or {}
        if not isinstance(config, dict):
            raise cfg.ConfigError("muxTracer: tracerConfig must be an object of tracer names to their configs")
        self.children = {}
        for name, child_config in config.items():
            if name not in directory:
                raise cfg.ConfigError(f"muxTracer: unknown native tracer {name!r}; known: "
                                      f"{', '.join(sorted(directory))}")
            self.children[name] = directory[name](child_config)
        self.wants_stack = any(t.wants_stack for t in self.children.values())
        self.wants_memory = any(t.wants_memory for t in self.children.values())

    def on_tx_start(self, env, db):
        for t in self.children.values():
            t.on_tx_start(env, db)

    def on_enter(self, depth, kind, sender, to, input, gas, value, db):
        for t in self.children.values():
            t.on_enter(depth, kind, sender, to, input, gas, value, db)

    def on_opcode(self, step, db):
        for t in self.children.values():
            t.on_opcode(step, db)

    def on_log(self, address, topics, data, index):
        for t in self.children.values():
            t.on_log(address, topics, data, index)

    def on_fault(self, step, db):
        for t in self.children.values():
            t.on_fault(step, db)

    def on_exit(self, depth, output, gas_used, error, reverted):
        for t in self.children.values():
            t.on_exit(depth, output, gas_used, error, reverted)

    def on_tx_end(self, gas_used, output, error, reverted):
        for t in self.children.values():
            t.on_tx_end(gas_used, output, error, reverted)

    def result(self):
        return {name: t.result() for name, t in self.children.items()}
