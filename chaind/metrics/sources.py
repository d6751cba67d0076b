"""Where the metrics read the node's live figures: one place that knows the node's parts."""

from chaind.metrics import chain, collector, face


def build(node, metrics):
    """The metrics site of `node` (its faces already built with `metrics`' recorders)."""
    app, producer = node.app, node.consensus      # the solo producer, or the ABCI app in socket mode
    traces = node.traces
    concurrency = node.settings.tracing.concurrency

    def validators():
        try:
            return [(v.address, v.power) for v in app.validator_set(app.height)]
        except LookupError:
            return []

    def subscriptions():
        counts = {}
        ws = getattr(node, "ws_factory", None)
        if ws is not None:
            counts["websocket"] = sum(len(getattr(c, "subscriptions", ())) for c in list(ws.connections))
        comet = getattr(node, "comet_ws_factory", None)
        if comet is not None:
            counts["cometbft"] = sum(len(c.subscriptions) for c in list(comet.subscribers))
        return counts

    def trace_jobs():
        in_flight = traces.in_flight
        running = min(in_flight, concurrency)
        return running, in_flight - running, traces.streamed_bytes

    leveldb = face.LevelDbSize(node.home.data_dir / "chain.db", node.reactor, node.call_pool.threads)
    sources = {
        "height": lambda: app.height,
        "validators": validators,
        "mempool": lambda: (len(node.mempool), node.mempool.total_bytes()),
        "failed_txs": lambda: producer.failed_txs,
        "rejected_txs": lambda: producer.rejected_txs,
        "subscriptions": subscriptions,
        "traces": trace_jobs,
        "leveldb_size": lambda: leveldb.value,
    }
    activity = chain.ChainActivity(node.bus, producer)
    nodes = collector.NodeCollector(metrics.settings.namespace, node.genesis.chain_id,
                                    (metrics.requests, metrics.grpc_requests), activity, sources)
    instrumentation = node.settings.instrumentation
    return face.make_site(nodes, leveldb, instrumentation.read_timeout, instrumentation.idle_timeout)
