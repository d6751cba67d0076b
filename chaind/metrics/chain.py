"""Block and mempool activity as CometBFT's consensus and mempool metrics count it, fed by the event bus.

The bus delivers on the reactor thread after a block is durable, so nothing here waits on the writer.
"""

from chaind.events import types as ev
from chaind.metrics.recorders import LATENCY_BUCKETS, Histogram

# CometBFT's block_interval_seconds has no buckets of its own: Prometheus' defaults.
DEFAULT_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# CometBFT's mempool tx_size_bytes: exponential, 1 to 729 by powers of 3.
TX_SIZE_BUCKETS = tuple(3 ** i for i in range(7))
# Events the bus may queue between two deliveries; it delivers after each publish.
CAPACITY = 100_000


class ChainActivity:
    """Per-block figures (interval, txs, size, execution and commit time) and admitted tx sizes."""

    def __init__(self, bus, producer):
        self.producer = producer
        self.block_interval = Histogram(DEFAULT_BUCKETS)
        self.execution = Histogram(LATENCY_BUCKETS)
        self.commit = Histogram(LATENCY_BUCKETS)
        self.tx_size = Histogram(TX_SIZE_BUCKETS)
        self.num_txs = 0            # in the last block
        self.block_size = 0         # bytes of the last block
        self.total_txs = 0          # since the node started, as CometBFT counts them
        self._last_time_ns = None
        self._subs = [bus.subscribe(lambda e: True, CAPACITY, on_event=self._blocks, kind=ev.NewBlock),
                      bus.subscribe(lambda e: True, CAPACITY, on_event=self._pending, kind=ev.PendingTx)]

    def _blocks(self):
        for event in self._subs[0].drain():
            block = event.block
            self.num_txs = len(block.txs)
            self.total_txs += len(block.txs)
            self.block_size = block.meta.size
            if self._last_time_ns is not None:
                self.block_interval.observe((), (block.header.time_ns - self._last_time_ns) / 1e9)
            self._last_time_ns = block.header.time_ns
            timings = self.producer.last_timings
            if timings is not None:
                self.execution.observe((), timings[0])
                self.commit.observe((), timings[1])

    def _pending(self):
        for event in self._subs[1].drain():
            self.tx_size.observe((), len(event.tx.raw))
