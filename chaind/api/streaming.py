"""Results written while they are produced: a method returns a StreamedResult, a transport gives it a sink.

The producer runs in a worker thread and calls sink.write(bytes); a transport that can stream
(HTTP) sends the pieces as they come, with back-pressure; others collect them up to a limit.
"""

import threading

import orjson

from chaind import errors


class StreamTooLarge(Exception):
    """The result outgrew the size a transport will hold or send."""


class StreamAborted(Exception):
    """The client of a streamed result went away; the producer stops."""


class StreamedResult:
    """produce(sink) begins producing (in a worker thread) and returns a Deferred fired when done.

    sink.write(data) may block (back-pressure) and raises when the client is gone or the result is
    too large; sink.cancel is a threading.Event the producer should also watch. A streaming
    transport sends up to max_bytes; one that must hold the result keeps up to max_buffered_bytes.
    """

    def __init__(self, produce, max_bytes, max_buffered_bytes):
        self._produce = produce
        self.max_bytes = max_bytes
        self.max_buffered_bytes = max_buffered_bytes

    def start(self, sink, limit=None):
        return self._produce(sink).addErrback(_too_large, limit or self.max_bytes)

    def collect(self):
        """A Deferred of the whole result as an orjson.Fragment, for transports that cannot stream."""
        sink = BufferSink(self.max_buffered_bytes)
        d = self.start(sink, self.max_buffered_bytes)
        return d.addCallback(lambda _: orjson.Fragment(sink.value()))


class BufferSink:
    """Gathers a streamed result in memory, up to max_bytes."""

    def __init__(self, max_bytes):
        self.max_bytes = max_bytes
        self.cancel = threading.Event()
        self._parts = []
        self._size = 0

    def write(self, data):
        if self.cancel.is_set():
            raise StreamAborted()
        self._size += len(data)
        if self.max_bytes and self._size > self.max_bytes:
            raise StreamTooLarge()
        self._parts.append(data)

    def abort(self):
        self.cancel.set()

    def value(self):
        return b"".join(self._parts)


def _too_large(failure, max_bytes):
    failure.trap(StreamTooLarge)
    raise errors.limit_exceeded(f"result larger than {max_bytes} bytes: narrow the request (for a trace: limit, "
                       "disableStack, a JS tracer) or, on a node you run, raise [tracing] max-result-bytes "
                       "(max-buffered-bytes for batches and WebSocket)")
