"""Publish/subscribe with a bounded queue per subscriber.

The bus runs on the reactor thread. Publishing never blocks: a subscriber whose queue is
full is cancelled with a reason, and the chain goes on.
"""

import collections

import attrs
from twisted.logger import Logger

log = Logger()

OUT_OF_CAPACITY = "internal subscription event buffer is out of capacity"
UNSUBSCRIBED = "unsubscribed"
SHUTDOWN = "node exited"
SUBSCRIBER_FAILED = "subscriber failed"


@attrs.define(eq=False)
class Subscription:
    """One subscriber's view of the bus.

    `matches(event)` selects events; `on_event()` is called after events were queued;
    `on_cancel(reason)` once, when the bus drops the subscription.
    """

    matches: object
    capacity: int
    on_event: object = None
    on_cancel: object = None
    queue: collections.deque = attrs.field(factory=collections.deque)
    cancelled: str = None

    def drain(self):
        """Take every queued event."""
        events = list(self.queue)
        self.queue.clear()
        return events


class EventBus:
    def __init__(self):
        self._subscriptions = []

    def subscribe(self, matches, capacity=200, on_event=None, on_cancel=None):
        sub = Subscription(matches, capacity, on_event, on_cancel)
        self._subscriptions.append(sub)
        return sub

    def unsubscribe(self, sub, reason=UNSUBSCRIBED):
        if sub.cancelled is not None:
            return False
        sub.cancelled = reason
        self._subscriptions.remove(sub)
        sub.queue.clear()
        if sub.on_cancel is not None and reason != UNSUBSCRIBED:
            sub.on_cancel(reason)
        return True

    def publish(self, events):
        """Queue `events` (in order) for every subscriber that wants them."""
        woken = []
        for sub in list(self._subscriptions):
            wanted = [e for e in events if sub.matches(e)]
            if not wanted:
                continue
            if len(sub.queue) + len(wanted) > sub.capacity:
                self.unsubscribe(sub, OUT_OF_CAPACITY)
                continue
            sub.queue.extend(wanted)
            woken.append(sub)
        for sub in woken:
            if sub.on_event is not None and sub.cancelled is None:
                try:
                    sub.on_event()
                except Exception:
                    # A subscriber's fault must never reach the publisher (the block producer).
                    log.failure("event subscriber failed; dropping it")
                    self.unsubscribe(sub, SUBSCRIBER_FAILED)

    def close(self):
        for sub in list(self._subscriptions):
            self.unsubscribe(sub, SHUTDOWN)

    def __len__(self):
        return len(self._subscriptions)
