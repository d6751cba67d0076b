"""What the trace pool's watchdog reads of a running JavaScript tracer: its deadline and whether its thread is
inside the engine, where a native built-in (a catastrophic regex, Array.prototype.indexOf over 2**53 indexes)
runs without ever reaching the deadline checks the engine makes between bytecodes.
"""

import time

# Seconds past its deadline a tracer may stay inside one engine call before the pool gives it up: bytecode
# stops at the deadline itself, so only a native built-in can take this long.
GRACE = 1.0


class Watch:
    """One trace job's; the tracer sets it from its own thread, the watchdog reads it from the reactor's."""

    __slots__ = ("deadline", "in_js")

    def __init__(self):
        self.deadline = None        # time.monotonic() the JavaScript tracer must be done by
        self.in_js = False          # the thread is inside a QuickJS call now

    def stuck(self, now=None):
        """Whether the thread has been inside one engine call past the deadline and its grace."""
        if not self.in_js or self.deadline is None:
            return False
        return (time.monotonic() if now is None else now) > self.deadline + GRACE


UNWATCHED = Watch()     # what a tracer made outside the pool (a console, a test) writes to; nobody reads it
