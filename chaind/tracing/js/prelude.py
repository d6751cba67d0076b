"""The JS side of a tracer context: geth's log/db/ctx/frame objects, helpers and bigInt, in prelude.js (package
data), with the names Python and it exchange.

Evaluated once per context before the user's tracer. Every function in prelude.js is named `__chaind_*`
so that error locations skip our frames and point at the user's code.
"""

import importlib.resources

# Python callbacks the prelude captures (and removes from the global object); each returns null
# on failure after leaving the message for `lastError`, because a Python exception would poison
# the whole JS evaluation.
CALLBACKS = ("peek", "stackLength", "memLength", "memSlice", "memGetUint", "refund", "caller", "address",
             "value", "input", "balance", "nonce", "code", "storage", "exists", "createAddress",
             "create2Address", "lastError")

# Hooks Python calls; the prelude leaves them as globals `__chaind_h_<name>`, which Python fetches
# as handles and deletes.
HOOKS = ("install", "setup", "step", "fault", "enter", "exit", "result", "failure", "setCtx", "setDeadline")

# One function expression, whose arguments are (JSON text for the arrays): CALLBACKS, opcode names, precompile
# addresses (hex), the tick function's name, and whether to sandbox (tracers) or not (the console, which evaluates
# what its user types).
PRELUDE = importlib.resources.files(__package__).joinpath("prelude.js").read_text(encoding="utf-8")
