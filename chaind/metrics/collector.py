"""What /metrics shows: a prometheus_client collector reading the recorders and the node's live figures.

CometBFT's metrics keep its names under [instrumentation] namespace with its `chain_id` label; the node's
own are `chaind_*`. Runs on the reactor thread when scraped; every read here is from memory.
"""

from prometheus_client.core import GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.samples import Sample


class NodeCollector(Collector):
    """`sources` holds callables read at scrape time: height(), validators() -> [(address, power)],
    mempool() -> (txs, bytes), failed_txs(), rejected_txs(), subscriptions() -> {face: count},
    traces() -> (running, queued, bytes streamed), leveldb_size()."""

    def __init__(self, namespace, chain_id, requests, activity, sources):
        self.namespace = namespace
        self.chain_id = chain_id
        self.requests = requests            # RequestRecorders, one per thread that records
        self.activity = activity
        self.sources = sources

    def collect(self):
        yield from self._cometbft()
        yield from self._node()

    # -- CometBFT's names --------------------------------------------------------------------

    def _cometbft(self):
        ns, s, a = self.namespace, self.sources, self.activity
        height = s["height"]()
        validators = s["validators"]()
        txs, size = s["mempool"]()
        yield self._gauge(f"{ns}_consensus_height", "Height of the chain.", height + 1)
        yield self._gauge(f"{ns}_consensus_latest_block_height", "The latest block height.", height)
        yield self._gauge(f"{ns}_consensus_validators", "Number of validators.", len(validators))
        yield self._gauge(f"{ns}_consensus_validators_power", "Total power of all validators.",
                          sum(power for _, power in validators))
        yield self._gauge(f"{ns}_consensus_rounds", "Number of rounds.", 0)
        yield self._gauge(f"{ns}_consensus_num_txs", "Number of transactions.", a.num_txs)
        yield self._gauge(f"{ns}_consensus_total_txs", "Total number of transactions.", a.total_txs)
        yield self._gauge(f"{ns}_consensus_block_size_bytes", "Size of the block.", a.block_size)
        yield self._histogram(f"{ns}_consensus_block_interval_seconds", "Time between this and the last block.",
                              (), a.block_interval)
        yield self._gauge(f"{ns}_mempool_size", "Number of uncommitted transactions in the mempool.", txs)
        yield self._gauge(f"{ns}_mempool_size_bytes", "Total size of the mempool in bytes.", size)
        yield self._histogram(f"{ns}_mempool_tx_size_bytes", "Histogram of transaction sizes in bytes.",
                              (), a.tx_size)
        # CometBFT's counters carry no _total suffix, which prometheus_client adds to every counter:
        # untyped keeps the name scrapers and dashboards already use.
        yield self._untyped(f"{ns}_mempool_failed_txs", "Number of failed transactions.", s["failed_txs"]())
        yield self._untyped(f"{ns}_mempool_rejected_txs", "Number of rejected transactions.", s["rejected_txs"]())

    # -- the node's own ------------------------------------------------------------------------

    def _node(self):
        s, a = self.sources, self.activity
        latency = {}
        errors = {}
        for recorders in self.requests:
            latency.update(recorders.latency.snapshot())    # faces never share a recorder
            _merge(errors, recorders.errors.snapshot())
        family = Metric("chaind_requests", "Requests answered, per face and method.", "counter")
        for (face, method), (buckets, _) in sorted(latency.items()):
            # The latency histogram's +Inf bucket counts every answered request.
            family.add_sample("chaind_requests_total", {"face": face, "method": method}, buckets[-1][1])
        yield family
        latency_family = HistogramMetricFamily("chaind_request_duration_seconds",
                                               "Seconds from a request to its answer, per face and method.",
                                               labels=("face", "method"))
        for labels, (buckets, total) in sorted(latency.items()):
            latency_family.add_metric(list(labels), buckets, total)
        yield latency_family
        family = Metric("chaind_request_errors", "Error answers, per face and code (a wire code, or a domain "
                        "error's kind).", "counter")
        for (face, code), count in sorted(errors.items()):
            family.add_sample("chaind_request_errors_total", {"face": face, "code": code}, count)
        yield family
        subscriptions = GaugeMetricFamily("chaind_subscriptions", "Active event subscriptions, per face.",
                                          labels=("face",))
        for face, count in sorted(s["subscriptions"]().items()):
            subscriptions.add_metric([face], count)
        yield subscriptions
        running, queued, streamed = s["traces"]()
        yield GaugeMetricFamily("chaind_trace_jobs_running", "Traces running on the trace pool.", value=running)
        yield GaugeMetricFamily("chaind_trace_jobs_queued", "Traces waiting for a trace thread.", value=queued)
        family = Metric("chaind_trace_streamed_bytes", "Bytes of trace results written by finished traces.",
                        "counter")
        family.add_sample("chaind_trace_streamed_bytes_total", {}, streamed)
        yield family
        yield self._histogram("chaind_block_execution_seconds", "Seconds executing a block (FinalizeBlock).",
                              (), a.execution, labelled=False)
        yield self._histogram("chaind_block_commit_seconds", "Seconds writing a block and its state to LevelDB.",
                              (), a.commit, labelled=False)
        yield GaugeMetricFamily("chaind_leveldb_size_bytes", "Bytes of the LevelDB files of the chain store.",
                                value=s["leveldb_size"]())

    # -- helpers -------------------------------------------------------------------------------

    def _gauge(self, name, doc, value):
        family = GaugeMetricFamily(name, doc, labels=("chain_id",))
        family.add_metric([self.chain_id], value)
        return family

    def _untyped(self, name, doc, value):
        family = Metric(name, doc, "unknown")
        family.samples.append(Sample(name, {"chain_id": self.chain_id}, value))
        return family

    def _histogram(self, name, doc, labels, histogram, labelled=True):
        names = ("chain_id",) if labelled else ()
        family = HistogramMetricFamily(name, doc, labels=names)
        snapshot = histogram.snapshot().get(labels)
        buckets, total = snapshot if snapshot else (_empty(histogram), 0.0)
        family.add_metric([self.chain_id] if labelled else [], buckets, total)
        return family


def _empty(histogram):
    return [(bound, 0) for bound in [repr(float(b)) for b in histogram.buckets] + ["+Inf"]]


def _merge(into, values):
    for key, value in values.items():
        into[key] = into.get(key, 0) + value
