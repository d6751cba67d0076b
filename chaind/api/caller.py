"""Who calls a service method, as its transport tells callers apart (a WebSocket connection, a browser origin):
the faces set it around a dispatch, and limits per client read it. None: a caller the transport cannot tell apart.
"""

import contextvars

CALLER = contextvars.ContextVar("chaind_caller", default=None)
