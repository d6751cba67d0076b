"""What a WebSocket connection holds for a client that does not read: messages, bounded in count and bytes per
connection and in bytes across a face's connections, and a write deadline (geth's 10 s) past which the client
is dropped, as geth closes a connection whose write does not finish in time.

Used by the EVM WebSocket (8546) and CometBFT's /websocket. When a slow client's messages are dropped, the
node asks malloc to give the freed pages back (chaind/malloc.py), so the memory leaves with the client.
"""

import collections

from twisted.internet import threads

from chaind import malloc

# Bytes freed by dropped queues before malloc is asked to trim: small drops are left to malloc's own reuse.
_TRIM_AFTER = 4 << 20
# What one eth_subscribe holds, about (50,000 of them held 113 MB): a connection that leaves with many gives back
# memory malloc keeps as well.
SUBSCRIPTION_BYTES = 2300
_TRIM_DELAY = 1.0


class SendBudget:
    """The bytes queued across one face's connections; past `limit`, the connections holding the most are
    dropped until the rest fit."""

    def __init__(self, limit, reactor):
        self.limit = limit
        self.reactor = reactor
        self.queued = 0
        self.holders = set()        # outboxes holding bytes
        self._freed = 0             # bytes let go since the last trim
        self._trim_call = None

    def charge(self, outbox):
        while self.queued > self.limit and self.holders:
            largest = max(self.holders, key=lambda o: o.bytes)
            largest.overflow(f"client too slow: {self.queued} bytes queued for this node's slow clients, at most "
                             f"{self.limit}")

    def released(self, count):
        """`count` bytes of queued messages (or subscriptions) were let go: past a few MB, malloc trims (off the
        reactor), a second after the last of a run of drops, once the dropped connections' own buffers are gone."""
        self._freed += count
        if self._freed < _TRIM_AFTER:
            return
        if self._trim_call is not None and self._trim_call.active():
            self._trim_call.reset(_TRIM_DELAY)
        else:
            self._trim_call = self.reactor.callLater(_TRIM_DELAY, self._trim)

    def _trim(self):
        self._freed = 0
        threads.deferToThreadPool(self.reactor, self.reactor.getThreadPool(), malloc.trim)


class Outbox:
    """One connection's queue. write(message) sends now; overflow(reason) drops the client (it must call
    clear()). The transport's producer calls pause() and resume()."""

    def __init__(self, budget, settings, write, overflow, reactor):
        """settings: (max messages or None, max bytes, write timeout in seconds or 0)."""
        self.budget = budget
        self.max_messages, self.max_bytes, self.write_timeout = settings
        self.write = write
        self.overflow = overflow
        self.reactor = reactor
        self.messages = collections.deque()
        self.bytes = 0
        self.paused = False
        self._deadline = None

    def send(self, message):
        if not self.paused and not self.messages:
            self.write(message)
            return
        size = len(message)
        if self.bytes + size > self.max_bytes or \
                (self.max_messages is not None and len(self.messages) >= self.max_messages):
            self.overflow(f"client too slow: send queue full ({len(self.messages)} messages, {self.bytes} bytes)")
            return
        self.messages.append(message)
        self.bytes += size
        self.budget.queued += size
        self.budget.holders.add(self)
        if self.budget.queued > self.budget.limit:
            self.budget.charge(self)

    def pause(self):
        self.paused = True
        if self.write_timeout and self._deadline is None:
            self._deadline = self.reactor.callLater(self.write_timeout, self._late)

    def resume(self):
        self.paused = False
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        while self.messages and not self.paused:
            message = self.messages.popleft()
            self.bytes -= len(message)
            self.budget.queued -= len(message)
            self.write(message)
        if not self.messages:
            self.budget.holders.discard(self)

    def _late(self):
        self._deadline = None
        if self.paused:
            self.overflow(f"client too slow: nothing written for {self.write_timeout:g} s")

    def clear(self):
        """Let every queued message go (the connection closes)."""
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        freed = self.bytes
        self.messages = collections.deque()
        self.bytes = 0
        self.budget.queued -= freed
        self.budget.holders.discard(self)
        if freed:
            self.budget.released(freed)
