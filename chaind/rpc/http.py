"""EVM JSON-RPC over HTTP/1.1 (port 8545): a lean server protocol on Twisted for POSTed JSON-RPC.

Keep-alive and pipelining (answered in order), Content-Length and chunked bodies, limits as settings.
"""

import functools
import re
import threading
import time
from email.utils import formatdate

import attrs
import orjson
from twisted.internet import defer, protocol
from twisted.logger import Logger
from twisted.protocols import policies

from chaind.api.caller import CALLER
from chaind.api.streaming import StreamAborted, StreamTooLarge
from chaind.rpc.errors import INTERNAL_ERROR, INVALID_REQUEST, RPCError
from chaind.rpc.jsonrpc import StreamedResponse
from chaind.rpc.origins import cors_headers, host_allowed, request_origin_allowed

log = Logger()
# Clients send the same Host on every request: the answer is remembered (a bounded few, whatever Host is sent).
_host_allowed = functools.lru_cache(maxsize=256)(host_allowed)

_ALLOW = b"Allow: POST, OPTIONS\r\n"
_REASONS = {200: b"OK", 204: b"No Content", 400: b"Bad Request", 403: b"Forbidden", 405: b"Method Not Allowed",
            413: b"Content Too Large", 415: b"Unsupported Media Type",
            431: b"Request Header Fields Too Large", 500: b"Internal Server Error", 501: b"Not Implemented",
            505: b"HTTP Version Not Supported"}
_HEX_DIGITS = frozenset(b"0123456789abcdefABCDEF")
_BLANKS = (0x20, 0x09)      # a header name may not start or end with a space or tab
# The request headers this server reads; the others are checked for form and skipped.
_READ_HEADERS = frozenset((b"content-length", b"transfer-encoding", b"connection", b"expect", b"host", b"origin",
                           b"content-type", b"access-control-request-method", b"access-control-request-headers"))
# geth's acceptedContentTypes: a POST of any other type (text/plain, a form: what a page on another site may send
# without asking first) is refused with 415 before anything runs.
_JSON_TYPES = frozenset((b"application/json", b"application/json-rpc", b"application/jsonrequest"))
_BAD_TYPE = b"invalid content type, only application/json is supported\n"
_BAD_ORIGIN = b"origin not allowed: list it in [json-rpc] cors-domains\n"
# Bytes no request line, header or chunk line may hold: a bare CR or LF there would make us and a proxy read
# different headers (a hidden Content-Length) or echo a header of the client's into ours (RFC 9112 5, 2.2).
_FORBIDDEN_IN_LINE = re.compile(rb"[\r\n\x00]")
_CLOSE = b"Connection: close\r\n"
_KEEP_ALIVE = b"Connection: keep-alive\r\n"   # said to HTTP/1.0 clients that asked for it
_WRITTEN = object()     # a response already written in pieces (a stream)
_CRASHED = orjson.dumps({"jsonrpc": "2.0", "id": None,
                         "error": {"code": INTERNAL_ERROR, "message": "internal error"}}) + b"\n"


@attrs.frozen
class HttpLimits:
    max_body_bytes: int
    max_header_bytes: int
    idle_timeout: float                  # seconds a keep-alive connection may wait for its next request
    stream_buffer_bytes: int = 1 << 20   # a streamed result this small is sent whole (errors stay JSON)
    # Seconds a request may take to arrive whole (request line, headers, body) from its first byte, or from the
    # connection's opening for the first (Go's ReadTimeout and ReadHeaderTimeout, as geth sets both).
    read_timeout: float = 30.0


@attrs.frozen
class HttpAccess:
    """Which Host names are served and which browser origins may read answers (rpc/origins.py)."""

    vhosts: tuple = ("localhost",)
    cors: object = None          # an OriginPolicy, or None: no CORS headers at all


class HttpError(Exception):
    """A request this server cannot answer as asked; the connection closes after the reply."""

    def __init__(self, status, message, body=None):
        super().__init__(message)
        self.status = status
        self.body = body if body is not None else message.encode() + b"\n"


@attrs.define
class _Request:
    method: bytes
    connection: bytes   # the Connection header line of the response, if one is due
    body: bytes
    host: str = None
    origin: str = None
    content_type: bytes = None   # the media type, lower case, parameters dropped
    preflight: tuple = None  # (method, headers) an OPTIONS preflight asks for
    headers: bytes = b""     # extra header lines of the response (CORS)

    @property
    def keep_alive(self):
        return self.connection != _CLOSE


class JsonRpcHttpFactory(protocol.Factory):
    """Serves a Dispatcher (rpc/jsonrpc.py) over HTTP/1.1."""

    def __init__(self, dispatcher, limits, reactor, access=HttpAccess()):
        self.dispatcher = dispatcher
        self.limits = limits
        self.access = access
        self.reactor = reactor
        self._date_second = None
        self._date = b""

    def buildProtocol(self, addr):
        return JsonRpcHttp(self)

    def date(self):
        """The Date header value, formatted once a second."""
        now = int(time.time())
        if now != self._date_second:
            self._date_second, self._date = now, formatdate(now, usegmt=True).encode()
        return self._date


class JsonRpcHttp(protocol.Protocol):
    """One connection. Requests are parsed from buffered bytes and answered strictly in order:
    while a method answers later (a Deferred), reading stops, so pipelined requests wait in the socket.
    """

    def __init__(self, factory):
        self.factory = factory
        self.dispatcher = factory.dispatcher
        self.limits = factory.limits
        self._parts = []        # received bytes not yet consumed
        self._have = 0          # their total length
        self._need = 0          # bytes to gather before parsing again
        self._out = []          # responses of this round of parsing, written at once
        self._continued = False  # "100 Continue" already sent for the request being received
        self._waiting = False    # a response is being computed
        self._paused = set()     # why reading is paused: "waiting", "writes"
        self._done = False       # closing or closed: no more requests are read
        self._timer = None       # the read deadline or the idle timeout, whichever applies
        self._reading = False    # a request is due: its deadline runs (else the connection is idle)
        self._stream = None      # the streamed response being written, if any

    # -- connection ------------------------------------------------------------------------------

    def connectionMade(self):
        # Under a connection cap (node.py) the transport is a wrapper: answers go straight to the socket's own.
        self._socket_transport = self.transport
        while isinstance(self._socket_transport, policies.ProtocolWrapper):
            self._socket_transport = self._socket_transport.transport
        self.transport.setTcpNoDelay(True)
        self.transport.registerProducer(self, True)
        self._reading = True
        self._arm(self.limits.read_timeout)

    def connectionLost(self, reason):
        self._done = True
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        if self._stream is not None:
            self._stream.abort()

    def holds_no_request(self):
        """Idle, or still receiving a request: what may give way to a newcomer at the connection cap."""
        return not self._waiting and not self._paused and self._stream is None

    def _arm(self, seconds):
        if self._timer is not None and self._timer.active():
            self._timer.reset(seconds)
        else:
            self._timer = self.factory.reactor.callLater(seconds, self._expired)

    def _expired(self):
        if self._waiting:           # an answer is being made or streamed: not the client's doing
            self._arm(self.limits.idle_timeout)
        elif self._reading:
            # A request that trickles in (a byte now and then) would hold the connection forever: it goes, and
            # with it anything it left unread.
            self._done = True
            self.transport.unregisterProducer()
            self.transport.abortConnection()
        else:
            self._close()

    def _next_request(self, completed):
        """After answering: idle until the next request's first byte, or (its start already here) its deadline."""
        if self._done or self._waiting:
            return
        if not self._have:
            self._reading = False
            self._arm(self.limits.idle_timeout)
        elif completed or not self._reading:
            self._reading = True
            self._arm(self.limits.read_timeout)

    def _close(self):
        self._done = True
        self._hang_up()

    def _hang_up(self, write_only=False):
        # While we are its producer, a transport resumes us when its buffer drains instead of
        # closing: a response bigger than that buffer would keep the connection open.
        self.transport.unregisterProducer()
        if write_only:
            self.transport.loseWriteConnection()
        else:
            self.transport.loseConnection()

    # The transport pauses us when its write buffer is full (a client not reading its responses).
    def pauseProducing(self):
        self._pause("writes", True)

    def resumeProducing(self):
        self._pause("writes", False)

    def stopProducing(self):
        self._done = True

    def _pause(self, reason, paused):
        was = bool(self._paused)
        if paused:
            self._paused.add(reason)
        else:
            self._paused.discard(reason)
        if reason == "writes" and self._stream is not None:
            self._stream.writable(not paused)
        if was != bool(self._paused) and not self._done:
            if self._paused:
                self.transport.pauseProducing()
            else:
                self.transport.resumeProducing()

    # -- requests --------------------------------------------------------------------------------

    def dataReceived(self, data):
        if self._done:
            return
        if not self._reading and not self._waiting:
            self._reading = True
            self._arm(self.limits.read_timeout)
        self._parts.append(data)
        self._have += len(data)
        if not self._waiting:
            if self._have >= self._need:
                self._process()
        elif self._have > self.limits.max_header_bytes + self.limits.max_body_bytes:
            # Pipelined requests beyond one of the largest wait in the socket until the answer is out.
            self._pause("waiting", True)

    def _process(self):
        buf = self._parts[0] if len(self._parts) == 1 else b"".join(self._parts)
        pos, out = 0, self._out
        self._need = 0
        refused = False
        while not self._done:
            try:
                request, end = self._parse(buf, pos)
            except HttpError as e:
                out.append(_response(e.status, e.body, _CLOSE, self.factory.date(),
                                     b"application/json" if e.status == 413 else b"text/plain"))
                self._done = refused = True
                break
            if request is None:
                self._need = end - pos
                break
            pos = end
            self._continued = False
            result = self._answer(request)
            if result.__class__ is not bytes and isinstance(result, defer.Deferred):
                done = []
                result.addBoth(done.append)
                if not done:        # answered later: wait for it before parsing on
                    # Reading goes on (pausing costs two epoll calls per answer): dataReceived pauses once a
                    # pipelining client sends more than one request's worth meanwhile.
                    self._waiting = True
                    result.addCallback(lambda _, done, request: self._answered(done[0], request), done, request)
                    break
                result = self._payload(done[0], request)
            out.append(result)
            if not request.keep_alive:
                self._done = True
            elif pos == len(buf):       # all consumed: nothing more to parse until more bytes come
                break
        rest = buf[pos:]
        self._parts = [rest] if rest else []
        self._have = len(rest)
        self._next_request(pos > 0)
        if out:
            _write_now(self._socket_transport, out[0] if len(out) == 1 else b"".join(out))
            out.clear()
        if refused:
            # Close our side only and drop what the client still sends (until it closes, or the idle
            # timeout): closing at once with unread bytes would reset the connection and lose the reply.
            self._hang_up(write_only=True)
        elif self._done:
            self._hang_up()

    def _answered(self, outcome, request):
        self._waiting = False
        if self._done:
            return
        _write_now(self._socket_transport, self._payload(outcome, request))
        if not request.keep_alive:
            self._close()
            return
        self._pause("waiting", False)
        if self._have and self._have >= self._need:
            self._process()
        else:
            self._next_request(True)

    def _payload(self, outcome, request):
        """The HTTP response for the dispatcher's outcome (bytes, None or a Failure)."""
        if outcome is _WRITTEN:
            return b""
        if isinstance(outcome, (bytes, type(None))):
            return _response(200, outcome or b"", request.connection, self.factory.date(), extra=request.headers)
        log.failure("JSON-RPC dispatch crashed", outcome)
        return _response(500, _CRASHED, request.connection, self.factory.date(), extra=request.headers)

    def _answer(self, request):
        """The response bytes for a complete request, or a Deferred of the dispatcher's outcome."""
        date, access = self.factory.date(), self.factory.access
        if not _host_allowed(access.vhosts, request.host):
            return _response(403, b"invalid host specified\n", request.connection, date, b"text/plain")
        if access.cors is not None:
            request.headers = cors_headers(access.cors, request.origin, request.preflight)
        if request.method == b"POST":
            if not request_origin_allowed(access.cors, request.origin):
                return _response(403, _BAD_ORIGIN, request.connection, date, b"text/plain")
            if request.content_type not in _JSON_TYPES:
                return _response(415, _BAD_TYPE, request.connection, date, b"text/plain", request.headers)
            try:
                if request.origin is None:
                    payload = self.dispatcher.respond(request.body, stream=True)
                else:
                    # Per-client limits (api/caller.py) tell browser pages apart by their origin.
                    token = CALLER.set(("origin", request.origin.lower()))
                    try:
                        payload = self.dispatcher.respond(request.body, stream=True)
                    finally:
                        CALLER.reset(token)
            except Exception:  # noqa: BLE001 (a top-level guard: logged, the client gets a 500, the reactor goes on)
                log.failure("JSON-RPC dispatch crashed")
                return _response(500, _CRASHED, request.connection, date, extra=request.headers)
            # Most answers are bytes already: isinstance against Deferred (an ABC) costs a microsecond.
            if payload.__class__ is not bytes and payload is not None:
                if isinstance(payload, StreamedResponse):
                    self._stream = _ResponseStream(self, payload, request)
                    return self._stream.start()
                if isinstance(payload, defer.Deferred):
                    return payload
            return _response(200, payload or b"", request.connection, date, extra=request.headers)
        if request.method == b"OPTIONS":
            if request.preflight is not None and access.cors is not None:
                return _response(204, b"", request.connection, date, extra=request.headers)
            return _response(200, b"", request.connection, date, extra=_ALLOW)
        return _response(405, b"method not allowed: send JSON-RPC requests with POST\n", request.connection, date,
                         b"text/plain", _ALLOW, head=request.method == b"HEAD")

    # -- parsing ---------------------------------------------------------------------------------

    def _parse(self, buf, pos):
        """(request, end) for a complete request at `pos`, or (None, bytes needed in all); raises HttpError."""
        while buf.startswith(b"\r\n", pos):     # empty lines between requests are allowed
            pos += 2
        limit = self.limits.max_header_bytes
        head_end = buf.find(b"\r\n\r\n", pos, pos + limit + 4)
        if head_end < 0:
            if len(buf) - pos > limit:
                raise HttpError(431, f"request header too large: more than {limit} bytes")
            if buf.find(b"\n\n", pos) >= 0:
                raise HttpError(400, "malformed request: header lines must end with CRLF")
            return None, len(buf) + 1
        head = buf[pos:head_end]
        fields = _head_fields(head) if len(head) <= _REMEMBERED_HEAD else _head_fields.__wrapped__(head)
        method, http10, keep_alive, length, coding, expect, host, origin, content_type, wanted_method, \
            wanted_headers = fields
        start = head_end + 4
        max_body = self.limits.max_body_bytes
        if coding is not None:
            if length is not None:
                raise HttpError(400, "both Content-Length and Transfer-Encoding given")
            if coding != b"chunked":
                raise HttpError(501, f"transfer coding {coding.decode(errors='replace')!r} not supported; "
                                     "send Content-Length or chunked")
        elif (length or 0) > max_body:
            raise _too_large(max_body)
        connection = (_KEEP_ALIVE if http10 else b"") if keep_alive else _CLOSE
        if expect == b"100-continue" and not http10 and len(buf) == start:
            self._send_continue()
        preflight = (wanted_method, wanted_headers) if method == b"OPTIONS" and wanted_method else None
        if coding is not None:
            found, end = self._chunked(buf, start, method, connection)
        else:
            end = start + (length or 0)
            found = _Request(method, connection, buf[start:end]) if len(buf) >= end else None
        if found is not None:
            found.host, found.origin, found.content_type, found.preflight = host, origin, content_type, preflight
        return found, end

    def _send_continue(self):
        # curl and others wait (a second) for this before sending a larger body.
        if not self._continued:
            self._continued = True
            self._out.append(b"HTTP/1.1 100 Continue\r\n\r\n")

    def _chunked(self, buf, pos, method, connection):
        """A chunked body: size lines in hex, data, CRLF; a zero size, trailers and an empty line end it."""
        max_body = self.limits.max_body_bytes
        spans, total = [], 0
        while True:
            line_end = buf.find(b"\r\n", pos, pos + 1024)
            if line_end < 0:
                if len(buf) - pos > 1024:
                    raise HttpError(400, "malformed chunk size line")
                return None, len(buf) + 1
            if _FORBIDDEN_IN_LINE.search(buf, pos, line_end) is not None:
                raise HttpError(400, "malformed chunk size line: a bare CR, LF or NUL in it")
            size_text = buf[pos:line_end].split(b";", 1)[0].strip(b" \t")
            if not size_text or len(size_text) > 16 or not _HEX_DIGITS.issuperset(size_text):
                raise HttpError(400, f"malformed chunk size {size_text[:20]!r}")
            size = int(size_text, 16)
            total += size
            if total > max_body:
                raise _too_large(max_body)
            pos = line_end + 2
            if size == 0:
                break
            if len(buf) < pos + size + 2:
                return None, pos + size + 2
            if buf[pos + size:pos + size + 2] != b"\r\n":
                raise HttpError(400, "chunk data not followed by CRLF")
            spans.append((pos, pos + size))
            pos += size + 2
        # Trailer fields (ignored) up to an empty line.
        if buf.startswith(b"\r\n", pos):
            end = pos + 2
        else:
            trailers_end = buf.find(b"\r\n\r\n", pos, pos + self.limits.max_header_bytes + 4)
            if trailers_end < 0:
                if len(buf) - pos > self.limits.max_header_bytes:
                    raise HttpError(431, "request trailer too large")
                return None, len(buf) + 1
            if _FORBIDDEN_IN_LINE.search(buf[pos:trailers_end].replace(b"\r\n", b"")) is not None:
                raise HttpError(400, "malformed trailer: a bare CR, LF or NUL in it")
            end = trailers_end + 4
        return _Request(method, connection, b"".join(buf[a:b] for a, b in spans)), end


# Clients send the same header block with every request: its parse is remembered (a bounded few, short ones).
_REMEMBERED_HEAD = 1024


@functools.lru_cache(maxsize=512)
def _head_fields(head):  # noqa: C901 (one pass over a request head, remembered)
    """(method, HTTP/1.0?, keep-alive?, Content-Length, transfer coding, Expect, Host, Origin, Content-Type's
    media type, preflight's method and headers) of a request's header block; raises HttpError."""
    if _FORBIDDEN_IN_LINE.search(head.replace(b"\r\n", b"")) is not None:
        raise HttpError(400, "malformed request: a bare CR, LF or NUL inside the request line or a header")
    lines = head.split(b"\r\n")
    method, http10 = _request_line(lines[0])
    keep_alive = not http10
    length = coding = expect = host = origin = content_type = None
    wanted_method = wanted_headers = None
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon or not name or name[-1] in _BLANKS or name[0] in _BLANKS:
            raise HttpError(400, f"malformed header line {line[:80]!r}")
        name = name.lower()
        if name not in _READ_HEADERS:
            continue
        value = value.strip(b" \t")
        if name == b"content-length":
            if not value.isdigit() or (length is not None and length != int(value)):
                raise HttpError(400, f"bad Content-Length {value[:40]!r}")
            length = int(value)
        elif name == b"transfer-encoding":
            coding = value.lower() if coding is None else coding + b", " + value.lower()
        elif name == b"connection":
            tokens = {t.strip().lower() for t in value.split(b",")}
            if b"close" in tokens:
                keep_alive = False
            elif b"keep-alive" in tokens:
                keep_alive = True
        elif name == b"expect":
            expect = value.lower()
        elif name == b"host":
            host = value.decode("latin-1")
        elif name == b"origin":
            origin = value.decode("latin-1")
        elif name == b"content-type":
            content_type = value.split(b";", 1)[0].strip(b" \t").lower()
        elif name == b"access-control-request-method":
            wanted_method = value
        elif name == b"access-control-request-headers":
            wanted_headers = value
    return method, http10, keep_alive, length, coding, expect, host, origin, content_type, wanted_method, wanted_headers


def _request_line(line):
    """(method, whether HTTP/1.0) from `METHOD SP target SP HTTP/1.x`."""
    parts = line.split(b" ")
    if len(parts) != 3 or not parts[0].isalpha() or not parts[1] or not parts[2].startswith(b"HTTP/"):
        raise HttpError(400, f"malformed request line {line[:80]!r}")
    method, _, version = parts
    if version == b"HTTP/1.1":
        return method, False
    if version == b"HTTP/1.0":
        return method, True
    number = version[5:]
    if len(number) == 3 and number[:1].isdigit() and number[1:2] == b"." and number[2:].isdigit():
        raise HttpError(505, f"HTTP version {number.decode()} not supported; use HTTP/1.1")
    raise HttpError(400, f"malformed request line {line[:80]!r}")


class _ResponseStream:
    """A streamed result on its way out. Up to stream_buffer_bytes it is gathered and sent as one
    response (so a failure is still a JSON-RPC error); beyond, it goes out in chunks as produced,
    the producer blocking while the client does not read. A failure then can only cut the response.
    """

    SLOTS = 4            # chunks in flight between the producer and the socket

    def __init__(self, protocol, response, request):
        self.protocol = protocol
        self.response = response
        self.request = request
        self.reactor = protocol.factory.reactor
        self.threshold = protocol.limits.stream_buffer_bytes
        self.cancel = threading.Event()
        self._slots = threading.Semaphore(self.SLOTS)
        self._held = 0           # slots to give back once the socket drains (reactor side)
        self._writable = True
        self._parts = []         # the gathered start, until streaming begins
        self._size = 0
        self._streaming = False  # producer side: chunks go straight out

    def start(self):
        d = self.response.result.start(self)
        d.addCallbacks(self._done, self._failed)
        return d

    # -- producer thread ---------------------------------------------------------------------

    def write(self, data):
        if self.cancel.is_set():
            raise StreamAborted()
        max_bytes = self.response.result.max_bytes
        self._size += len(data)
        if max_bytes and self._size > max_bytes:
            raise StreamTooLarge()
        if not self._streaming:
            self._parts.append(data)
            if self._size < self.threshold:
                return
            self._streaming = True
            data = b"".join(self._parts)
            self._parts = []
            self.reactor.callFromThread(self._begin)
        self._slots.acquire()
        if self.cancel.is_set():
            raise StreamAborted()
        self.reactor.callFromThread(self._chunk, data)

    # -- reactor -----------------------------------------------------------------------------

    def _begin(self):
        if self.cancel.is_set():
            return
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n" \
               b"Date: %s\r\n%s%s\r\n" % (self.protocol.factory.date(), self.request.headers, self.request.connection)
        self.protocol.transport.write(head + _chunk(self.response.envelope()[0]))

    def _chunk(self, data):
        if self.cancel.is_set():
            return
        self.protocol.transport.write(_chunk(data))
        if self._writable:
            self._slots.release()
        else:
            self._held += 1

    def writable(self, writable):
        self._writable = writable
        while writable and self._held:
            self._held -= 1
            self._slots.release()

    def abort(self):
        """The client went away: stop the producer, wherever it waits."""
        self.cancel.set()
        for _ in range(self.SLOTS + self._held + 1):
            self._slots.release()

    def _done(self, _):
        self.protocol._stream = None
        if not self._streaming:
            prefix, suffix = self.response.envelope()
            return prefix + b"".join(self._parts) + suffix
        self.protocol.transport.write(_chunk(self.response.envelope()[1]) + b"0\r\n\r\n")
        return _WRITTEN

    def _failed(self, failure):
        self.protocol._stream = None
        if not self._streaming:
            return self.response.error(failure)
        if not failure.check(StreamAborted):
            log.failure("streamed response broke off", failure)
        # The status line is out: cutting the connection is the only way left to say it failed.
        self.protocol._done = True
        self.protocol.transport.abortConnection()
        return _WRITTEN


def _chunk(data):
    return b"%x\r\n%s\r\n" % (len(data), data) if data else b""


def _too_large(max_body):
    error = RPCError(INVALID_REQUEST, f"content length too large: more than {max_body} bytes")
    return HttpError(413, error.message,
                     orjson.dumps({"jsonrpc": "2.0", "id": None, "error": error.to_json()}) + b"\n")


def _write_now(transport, data):
    """transport.write, but straight into the socket when nothing waits in the transport before it.

    Twisted registers the socket for writing and sends on the next reactor turn: two epoll_ctl calls and a
    turn of the loop for every answer, a third of a small read's cost. What the kernel does not take at once
    (and everything while something is queued) goes through the transport as usual, in order.
    """
    sock = getattr(transport, "socket", None)
    if (sock is None or transport.dataBuffer or transport._tempDataBuffer or not transport.connected
            or transport.disconnecting or transport._writeDisconnected):
        transport.write(data)
        return
    try:
        sent = sock.send(data)
    except (BlockingIOError, InterruptedError):
        sent = 0
    except OSError:
        transport.write(data)       # the transport meets the error on its own write and closes
        return
    if sent < len(data):
        transport.write(data[sent:])


def _response(status, body, connection, date, content_type=b"application/json", extra=b"", head=False):
    """Status line, headers and body (none in an answer to HEAD)."""
    return b"HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nDate: %s\r\n%s%s\r\n%s" % (
        status, _REASONS[status], content_type, len(body), date, extra, connection, b"" if head else body)
