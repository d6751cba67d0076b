"""The event bus: bounded queues, and no subscriber can hurt the publisher or other subscribers."""

from chaind.events.bus import OUT_OF_CAPACITY, SUBSCRIBER_FAILED, EventBus


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
