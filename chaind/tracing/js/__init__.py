"""JavaScript tracers with geth's API, run in an embedded QuickJS (quickjs-ng) context per trace."""

from chaind.tracing.js.errors import TracerError
from chaind.tracing.js.tracer import DEFAULT_MEMORY_LIMIT, DEFAULT_TIMEOUT, JsTracer, console_context

__all__ = ["DEFAULT_MEMORY_LIMIT", "DEFAULT_TIMEOUT", "JsTracer", "TracerError", "console_context"]
