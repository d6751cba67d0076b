"""The event bus: bounded queues, and no subscriber can hurt the publisher or other subscribers."""

import attrs
import pytest

from chaind.events.bus import OUT_OF_CAPACITY, SUBSCRIBER_FAILED, EventBus


@attrs.frozen
class Keyed:
    keys: frozenset


@attrs.frozen
class Plain:
    n: int


def test_overflow_and_failing_subscribers_are_dropped_others_served():
    bus = EventBus()
    reasons = []
    healthy = bus.subscribe(lambda e: True, capacity=10)
    small = bus.subscribe(lambda e: True, capacity=2, on_cancel=reasons.append)

    def explode():
        raise RuntimeError("subscriber bug")

    bus.subscribe(lambda e: True, on_event=explode, on_cancel=reasons.append)
    bus.publish([1, 2, 3])
    assert reasons == [OUT_OF_CAPACITY, SUBSCRIBER_FAILED]
    assert healthy.drain() == [1, 2, 3] and small.cancelled == OUT_OF_CAPACITY
    assert len(bus) == 1


def test_kind_and_index_offer_only_their_events_in_order():
    bus = EventBus()
    asked = []
    computed = []

    def keys_of(event):
        computed.append(event)
        return event.keys

    def recorder(name):
        return lambda event: asked.append((name, event)) or True

    everything = bus.subscribe(recorder("all"))
    plain = bus.subscribe(recorder("plain"), kind=Plain)
    keyed = bus.subscribe(recorder("keyed"), kind=Keyed)
    x_or_y = bus.subscribe(recorder("x|y"), kind=Keyed, index=(keys_of, ["x", "y"]))
    z = bus.subscribe(recorder("z"), kind=Keyed, index=(keys_of, {"z"}))
    events = [Keyed(frozenset("xy")), Plain(1), Keyed(frozenset("w")), Keyed(frozenset("yz")), Plain(2)]
    bus.publish(events)
    e = events
    assert everything.drain() == e
    assert plain.drain() == [e[1], e[4]]
    assert keyed.drain() == [e[0], e[2], e[3]]
    assert x_or_y.drain() == [e[0], e[3]]          # offered once per event, though two keys matched
    assert z.drain() == [e[3]]
    assert sorted(name for name, _ in asked) == ["all"] * 5 + ["keyed"] * 3 + ["plain"] * 2 + ["x|y"] * 2 + ["z"]
    assert computed == [e[0], e[2], e[3]]           # once per event, for both indexed subscriptions


def test_unsubscribing_leaves_nothing_to_offer_to():
    bus = EventBus()
    computed = []
    subs = [bus.subscribe(lambda e: True, kind=Keyed, index=(lambda e: computed.append(e) or e.keys, {"x"})),
            bus.subscribe(lambda e: True, kind=Keyed), bus.subscribe(lambda e: True)]
    keys_of = subs[0].index[0]
    subs.append(bus.subscribe(lambda e: True, kind=Keyed, index=(keys_of, {"x", "y"})))
    assert len(bus) == 4
    for sub in subs:
        assert bus.unsubscribe(sub) and not bus.unsubscribe(sub)
    bus.publish([Keyed(frozenset("xy"))])
    assert len(bus) == 0 and computed == [] and all(not sub.queue for sub in subs)


def test_an_index_needs_a_kind():
    with pytest.raises(ValueError):
        EventBus().subscribe(lambda e: True, index=(lambda e: set(), {"x"}))


def test_wants_says_whether_a_subscription_would_be_offered_a_kind():
    bus = EventBus()
    assert not bus.wants((Plain, Keyed))
    by_kind = bus.subscribe(lambda e: True, kind=Plain)
    assert bus.wants((Plain,)) and bus.wants((Keyed, Plain)) and not bus.wants((Keyed,))
    indexed = bus.subscribe(lambda e: True, kind=Keyed, index=(lambda e: e.keys, {"a"}))
    assert bus.wants((Keyed,))
    bus.unsubscribe(by_kind)
    bus.unsubscribe(indexed)
    assert not bus.wants((Plain, Keyed))
    anything = bus.subscribe(lambda e: True)
    assert bus.wants((Keyed,)) and bus.wants(())
    bus.unsubscribe(anything)
    assert not bus.wants((Plain,))
