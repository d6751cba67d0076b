"""Publish/subscribe with a bounded queue per subscriber.

The bus runs on the reactor thread. Publishing never blocks: a subscriber whose queue is
full is cancelled with a reason, and the chain goes on.
"""

import collections
from collections.abc import Callable, Iterable
from typing import Any

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
    `on_cancel(reason)` once, when the bus drops the subscription. `kind` and `index` (see
    EventBus.subscribe) only spare the bus calls to `matches` that could not say yes.
    """

    matches: Callable[[Any], bool]
    capacity: int
    on_event: Callable[[], Any] | None = None
    on_cancel: Callable[[str], Any] | None = None
    kind: type | None = None
    index: tuple | None = None
    queue: collections.deque = attrs.field(factory=collections.deque)
    cancelled: str | None = None

    def drain(self) -> list:
        """Take every queued event."""
        events = list(self.queue)
        self.queue.clear()
        return events


class EventBus:
    """Subscriptions are found per event by its class and, for indexed ones, by its keys, so that
    publishing costs what the interested subscribers cost, not what all of them do."""

    def __init__(self) -> None:
        # Dicts used as insertion-ordered sets.
        self._subscriptions: dict[Subscription, None] = {}
        self._any_kind: dict[Subscription, None] = {}
        self._by_kind: dict[type, dict[Subscription, None]] = collections.defaultdict(dict)
        self._indexed: dict[type, dict] = {}                    # event class -> keys_of -> key -> subscriptions

    def subscribe(self, matches: Callable[[Any], bool], capacity: int = 200, on_event: Callable[[], Any] | None = None,
                  on_cancel: Callable[[str], Any] | None = None, kind: type | None = None,
                  index: tuple | None = None) -> Subscription:
        """A subscription offered the events `matches` says yes to.

        `kind`: only events of this class are offered (None: every event). `index`, with a kind:
        `(keys_of, keys)`; an event is offered only when `keys_of(event)` (a set of hashables, computed
        once per event for every subscription that gives the same function) holds one of `keys`.
        """
        if index is not None and kind is None:
            raise ValueError("an indexed subscription needs a kind")
        if index is not None:
            index = (index[0], frozenset(index[1]))
        sub = Subscription(matches, capacity, on_event, on_cancel, kind, index)
        self._subscriptions[sub] = None
        if index is not None and kind is not None:         # (an index without a kind was refused above)
            keys_of, keys = index
            by_key = self._indexed.setdefault(kind, {}).setdefault(keys_of, {})
            for key in keys:
                by_key.setdefault(key, {})[sub] = None
        elif kind is not None:
            self._by_kind[kind][sub] = None
        else:
            self._any_kind[sub] = None
        return sub

    def wants(self, kinds: Iterable[type]) -> bool:
        """Whether any subscription would be offered an event of one of the classes `kinds`: events no one
        would be offered need not be made."""
        return bool(self._any_kind) or any(kind in self._by_kind or kind in self._indexed for kind in kinds)

    def unsubscribe(self, sub: Subscription, reason: str = UNSUBSCRIBED) -> bool:
        if sub.cancelled is not None:
            return False
        sub.cancelled = reason
        del self._subscriptions[sub]
        self._forget(sub)
        sub.queue.clear()
        if sub.on_cancel is not None and reason != UNSUBSCRIBED:
            sub.on_cancel(reason)
        # The callbacks usually close over the subscription: let go of them, so that it is freed as soon as its
        # subscriber drops it, not at the next full garbage collection (thousands held hundreds of MB until then).
        sub.on_event = sub.on_cancel = None
        return True

    def _forget(self, sub):
        if sub.index is not None:
            keys_of, keys = sub.index
            by_key = self._indexed[sub.kind][keys_of]
            for key in keys:
                del by_key[key][sub]
                if not by_key[key]:
                    del by_key[key]
            if not by_key:
                del self._indexed[sub.kind][keys_of]
                if not self._indexed[sub.kind]:
                    del self._indexed[sub.kind]
        elif sub.kind is not None:
            del self._by_kind[sub.kind][sub]
            if not self._by_kind[sub.kind]:
                del self._by_kind[sub.kind]
        else:
            del self._any_kind[sub]

    def publish(self, events: Iterable[Any]) -> None:  # noqa: C901 (the hot path, kept inline)
        """Queue `events` (in order) for every subscriber that wants them."""
        wanted: dict[Subscription, list] = {}
        for event in events:
            kind = type(event)
            for sub in self._any_kind:
                if sub.matches(event):
                    wanted.setdefault(sub, []).append(event)
            for sub in self._by_kind.get(kind, ()):
                if sub.matches(event):
                    wanted.setdefault(sub, []).append(event)
            for keys_of, by_key in self._indexed.get(kind, {}).items():
                offered = {}
                for key in keys_of(event):
                    offered.update(by_key.get(key, ()))
                for sub in offered:
                    if sub.matches(event):
                        wanted.setdefault(sub, []).append(event)
        woken = []
        for sub, queued in wanted.items():
            if sub.cancelled is not None:       # by another's on_cancel, just now
                continue
            if len(sub.queue) + len(queued) > sub.capacity:
                self.unsubscribe(sub, OUT_OF_CAPACITY)
                continue
            sub.queue.extend(queued)
            woken.append(sub)
        for sub in woken:
            if sub.on_event is not None and sub.cancelled is None:
                try:
                    sub.on_event()
                except Exception:  # noqa: BLE001 (a subscriber's fault must never reach the publisher)
                    # A subscriber's fault must never reach the publisher (the block producer).
                    log.failure("event subscriber failed; dropping it")
                    self.unsubscribe(sub, SUBSCRIBER_FAILED)

    def close(self) -> None:
        for sub in list(self._subscriptions):
            self.unsubscribe(sub, SHUTDOWN)

    def __len__(self):
        return len(self._subscriptions)
