"""Native tracers by name (geth's DefaultDirectory): callTracer, flatCallTracer, prestateTracer, 4byteTracer,
noopTracer, and muxTracer, which runs several of them at once.

make(name, tracer_config) builds one; tracerConfig may be an object or a JSON string.
"""

from chaind.tracing.native.call import CallTracer
from chaind.tracing.native.flat_call import FlatCallTracer
from chaind.tracing.native.fourbyte import FourByteTracer
from chaind.tracing.native.mux import MuxTracer
from chaind.tracing.native.noop import NoopTracer
from chaind.tracing.native.prestate import PrestateTracer

TRACERS = {
    "callTracer": CallTracer,
    "flatCallTracer": FlatCallTracer,
    "prestateTracer": PrestateTracer,
    "4byteTracer": FourByteTracer,
    "noopTracer": NoopTracer,
    "muxTracer": lambda config: MuxTracer(config, {name: made for name, made in TRACERS.items()
                                                   if name != "muxTracer"}),
}


def is_native(name):
    return name in TRACERS


def make(name, tracer_config=None):
    """A new tracer; raises KeyError for an unknown name, config.ConfigError for a bad config."""
    return TRACERS[name](tracer_config)
