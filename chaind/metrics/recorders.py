"""Plain counters and histograms that faces update on the reactor thread at the cost of a dict lookup.

prometheus_client's own metric objects take a lock per update; these are read only when /metrics is scraped.
"""

import bisect

# Seconds: from a cached read (~50 µs) to a long trace or a slow block.
LATENCY_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
                   2.5, 5.0, 10.0)


class Counter:
    """Totals by a tuple of label values."""

    def __init__(self):
        self.values = {}

    def inc(self, labels, amount=1):
        self.values[labels] = self.values.get(labels, 0) + amount

    def snapshot(self):
        # dict() copies in one step under the GIL, so a scrape sees a consistent table even when
        # another thread (gRPC's event loop) owns the recorder.
        return dict(self.values)


class Histogram:
    """Observations by a tuple of label values, counted in fixed buckets (upper bounds, +Inf implied)."""

    def __init__(self, buckets=LATENCY_BUCKETS):
        self.buckets = tuple(buckets)
        self.series = {}            # labels -> [count per bucket..., count above the last, sum]

    def observe(self, labels, value):
        series = self.series.get(labels)
        if series is None:
            series = self.series[labels] = [0] * (len(self.buckets) + 1) + [0.0]
        series[bisect.bisect_left(self.buckets, value)] += 1
        series[-1] += value

    def snapshot(self):
        """{labels: ([(upper bound as text, cumulative count)...], sum)} in prometheus_client's shape."""
        out = {}
        for labels, series in list(self.series.items()):
            series = list(series)
            cumulative, running = [], 0
            for bound, count in zip(self.buckets + (float("inf"),), series[:-1], strict=True):
                running += count
                cumulative.append((_bound(bound), running))
            out[labels] = (cumulative, series[-1])
        return out


def _bound(value):
    return "+Inf" if value == float("inf") else repr(float(value))
