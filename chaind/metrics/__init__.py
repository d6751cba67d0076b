"""Prometheus metrics on [instrumentation] prometheus-listen-addr: CometBFT's names for what this node has,
and the node's own (requests per face, traces, blocks, storage)."""
