"""The asyncio event loop grpcio's asyncio server runs on: one daemon thread per process, beside the reactor.

The reactor thread never waits on it: it hands coroutines over and gets Deferreds back.
"""

import asyncio
import threading

from twisted.internet import defer

_lock = threading.Lock()
_loop = None


def shared():
    """The loop, started on first use."""
    global _loop
    with _lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="chaind-grpc-loop", daemon=True).start()
            _loop = loop
    return _loop


def submit(coroutine):
    """Run a coroutine on the loop: its concurrent.futures.Future."""
    return asyncio.run_coroutine_threadsafe(coroutine, shared())


def deferred(reactor, coroutine):
    """Run a coroutine on the loop: a Deferred that fires on the reactor with its result."""
    d = defer.Deferred()

    def done(future):
        error = future.exception()
        if error is None:
            reactor.callFromThread(d.callback, future.result())
        else:
            reactor.callFromThread(d.errback, error)
    submit(coroutine).add_done_callback(done)
    return d
