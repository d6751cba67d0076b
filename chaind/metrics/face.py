"""The metrics face: GET /metrics in Prometheus' text format (CometBFT's instrumentation port, 26660).

The LevelDB size is read from the directory on a worker thread; the text is made on the reactor from
in-memory figures, which takes well under a millisecond for the node's few hundred series.
"""

import os

from prometheus_client import generate_latest
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4
from prometheus_client.registry import CollectorRegistry
from twisted.internet import threads
from twisted.web import resource, server

from chaind.rpc.web_limits import GuardedSite


def directory_size(path):
    """Bytes of the files in `path` (LevelDB keeps one flat directory)."""
    total = 0
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                try:
                    if entry.is_file(follow_symlinks=False):
                        total += entry.stat(follow_symlinks=False).st_size
                except FileNotFoundError:       # compaction removed it meanwhile
                    pass
    except FileNotFoundError:
        pass
    return total


class LevelDbSize:
    """The store's size as last read; `refresh()` reads it again off the reactor."""

    def __init__(self, path, reactor, pool):
        self.path = path
        self.reactor = reactor
        self.pool = pool
        self.value = 0

    def refresh(self):
        d = threads.deferToThreadPool(self.reactor, self.pool, directory_size, self.path)
        d.addCallback(self._set)
        return d

    def _set(self, value):
        self.value = value


class MetricsResource(resource.Resource):
    isLeaf = True

    def __init__(self, collector, leveldb_size):
        super().__init__()
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(collector)
        self.leveldb_size = leveldb_size

    def render_GET(self, request):
        if request.postpath != [b"metrics"]:
            request.setResponseCode(404)
            request.setHeader(b"content-type", b"text/plain; charset=utf-8")
            return b"404 page not found: metrics are served at /metrics\n"
        d = self.leveldb_size.refresh()
        d.addCallback(lambda _: self._write(request))
        d.addErrback(self._failed, request)
        return server.NOT_DONE_YET

    def _write(self, request):
        body = generate_latest(self.registry)
        if request.finished or request._disconnected:
            return
        # The text format CometBFT serves and every Prometheus reads.
        request.setHeader(b"content-type", CONTENT_TYPE_PLAIN_0_0_4.encode())
        request.write(body)
        request.finish()

    def _failed(self, failure, request):
        if request.finished or request._disconnected:
            return
        request.setResponseCode(500)
        request.write(f"metrics failed: {failure.getErrorMessage()}\n".encode())
        request.finish()


def make_site(collector, leveldb_size, read_timeout=0, idle_timeout=None):
    return GuardedSite(MetricsResource(collector, leveldb_size), read_timeout, idle_timeout)
