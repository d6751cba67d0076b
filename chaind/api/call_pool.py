"""The call threads and who may wait for them: eth_call, eth_estimateGas, eth_getLogs and the other EVM
calls, the REST gateway's longer queries and CometBFT's searches share them, in turns per request.

Each request (an HTTP body, a batch counting as its items; a WebSocket connection) has a line of calls.
A line runs one call at a time, as geth runs a batch's items one after another, and the lines take turns:
a call never waits behind more than one call of each other request, so a batch of endless loops delays
nobody else by more than one evm-timeout. The calls waiting, in all and per request, are bounded
([json-rpc] max-queued-calls, max-calls-per-request); beyond, a call is refused at once with
LIMIT_EXCEEDED, which the JSON-RPC faces answer as EIP-1474's -32005 "limit exceeded" (geth has no busy
error; viem retries this code with backoff) and gRPC/REST as RESOURCE_EXHAUSTED (HTTP 429), what grpcio
answers past its own concurrency limit.
"""

import collections
import contextvars

from twisted.application import service
from twisted.internet import defer, threads

from chaind import errors

LIMIT_EXCEEDED = -32005     # EIP-1474's "limit exceeded"
_request = contextvars.ContextVar("call_pool_request", default=None)


def set_request(key):
    """Make `key` the request the calls queued from here on (in this context) belong to; a token for
    reset_request. Faces call it around a batch, or for every message of a connection."""
    return _request.set(key)


def reset_request(token):
    _request.reset(token)


class _Line:
    __slots__ = ("key", "waiting", "running")

    def __init__(self, key):
        self.key = key
        self.waiting = collections.deque()      # (Deferred, fn, args)
        self.running = False


class CallPool(service.Service):
    """threads: a twisted ThreadPool, started and stopped with this service; settings: [json-rpc]."""

    def __init__(self, threads, settings, reactor):
        self.threads = threads
        self.reactor = reactor
        self.max_queued = settings.max_queued_calls
        self.max_per_request = settings.max_calls_per_request
        self.lines = {}                     # request key -> its line, while it holds calls
        self.turns = collections.deque()    # lines with a call waiting and none running, in turn order
        self.busy_threads = 0
        self.waiting = 0

    def startService(self):
        super().startService()
        self.threads.start()

    def stopService(self):
        super().stopService()
        stopping = errors.unavailable("the node is stopping")
        for line in list(self.lines.values()):
            while line.waiting:
                line.waiting.popleft()[0].errback(stopping)
        self.lines.clear()
        self.turns.clear()
        self.waiting = 0
        self.threads.stop()

    def run(self, fn, *args):
        """fn(*args) on a call thread, as a Deferred; from the reactor thread. Fails at once with
        LIMIT_EXCEEDED when the waiting calls, in all or of this request, are at their bound."""
        if not self.running:
            return defer.fail(errors.unavailable("the node is stopping"))
        key = _request.get()
        line = self.lines.get(key) if key is not None else None
        held = 0 if line is None else len(line.waiting) + line.running
        if held >= self.max_per_request:
            return defer.fail(_busy(f"this request holds {held} calls, at most {self.max_per_request} "
                                    f"([json-rpc] max-calls-per-request); send the rest later"))
        must_wait = line is not None or self.busy_threads >= self.threads.max
        if must_wait and self.waiting >= self.max_queued:
            return defer.fail(_busy(f"{self.waiting} calls wait for a call thread, at most {self.max_queued} "
                                    f"([json-rpc] max-queued-calls); retry later"))
        if line is None:
            line = _Line(key if key is not None else object())
            self.lines[line.key] = line
        d = defer.Deferred()
        line.waiting.append((d, fn, args))
        self.waiting += 1
        if not line.running and len(line.waiting) == 1:
            self.turns.append(line)
        self._start_next()
        return d

    def _start_next(self):
        while self.turns and self.busy_threads < self.threads.max:
            line = self.turns.popleft()
            d, fn, args = line.waiting.popleft()
            self.waiting -= 1
            line.running = True
            self.busy_threads += 1
            work = threads.deferToThreadPool(self.reactor, self.threads, fn, *args)
            work.addBoth(self._finished, line)
            work.chainDeferred(d)

    def _finished(self, result, line):
        self.busy_threads -= 1
        line.running = False
        if line.waiting:
            self.turns.append(line)
        elif self.lines.get(line.key) is line:
            del self.lines[line.key]
        self._start_next()
        return result


def _busy(message):
    return errors.ChainError(errors.Kind.LIMIT_EXCEEDED, f"limit exceeded: {message}", code=LIMIT_EXCEEDED)
