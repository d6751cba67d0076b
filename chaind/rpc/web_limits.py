"""twisted.web Sites with limits for untrusted clients: GuardedSite gives each request a deadline to arrive whole
and each keep-alive connection an idle timeout; LimitedSite adds a size limit on the request line and headers (a
setting) answered with a JSON error: 414 for a request line (the URL) over it, 431 for headers, then it closes.

twisted.web alone closes the connection without a word on a line longer than its 16 KB (LineReceiver's
MAX_LENGTH), which clients report as a reset rather than as the error it is; and its only timeout is an idle one
that every byte received resets, so a client sending a byte now and then holds a connection forever.
"""

from twisted.web import http, server

URI_TOO_LONG, HEADERS_TOO_LARGE = 414, 431
_REASONS = {URI_TOO_LONG: b"Request-URI Too Long", HEADERS_TOO_LARGE: b"Request Header Fields Too Large"}


class GuardedChannel(http.HTTPChannel):
    """HTTPChannel whose requests must arrive whole (request line, headers, body) within the site's read_timeout
    of their first byte, or of the connection's opening for the first (Go's ReadTimeout); between requests the
    site's idle timeout applies (Twisted's own timeOut)."""

    _deadline = None

    def connectionMade(self):
        super().connectionMade()
        self._start_deadline()

    def dataReceived(self, data):
        # While a request is answered Twisted buffers what follows and replays it here once the answer is out.
        if self._deadline is None and not self._handlingRequest:
            self._start_deadline()
        super().dataReceived(data)

    def allContentReceived(self):
        self._stop_deadline()
        super().allContentReceived()

    def connectionLost(self, reason):
        self._stop_deadline()
        super().connectionLost(reason)

    def holds_no_request(self):
        """Idle, or still receiving a request: what may give way to a newcomer at the connection cap."""
        return not self._handlingRequest

    def _start_deadline(self):
        if self.site.read_timeout:
            self._deadline = self.callLater(self.site.read_timeout, self._too_slow)

    def _stop_deadline(self):
        if self._deadline is not None:
            if self._deadline.active():
                self._deadline.cancel()
            self._deadline = None

    def _too_slow(self):
        self._deadline = None
        self.transport.abortConnection()


class GuardedSite(server.Site):
    """read_timeout: seconds for a request to arrive whole (0: none); idle_timeout: seconds a keep-alive
    connection may wait for its next request (None: Twisted's 12 hours)."""

    protocol = GuardedChannel

    def __init__(self, resource, read_timeout=0, idle_timeout=None, **kwargs):
        if idle_timeout is not None:
            kwargs["timeout"] = idle_timeout
        super().__init__(resource, **kwargs)
        self.read_timeout = read_timeout
        self.displayTracebacks = False
        self.noisy = False
        self.log = lambda request: None     # no access log line per request, as on 8545


class _LimitedChannel(GuardedChannel):
    """HTTPChannel with the site's limit on the request line and headers (together, as Go's MaxHeaderBytes)."""

    def connectionMade(self):
        super().connectionMade()
        limit = self.site.max_header_bytes
        self.MAX_LENGTH = limit              # one line, before it is buffered further
        self.totalHeadersSize = limit + 1    # ours answers first, with its JSON
        self._head_bytes = 0
        self._at_request_line = True

    def lineReceived(self, line):
        self._head_bytes += len(line) + 2
        if self._head_bytes > self.site.max_header_bytes:
            return self._refuse(line)
        if line:
            self._at_request_line = False
        return super().lineReceived(line)

    def allHeadersReceived(self):
        self._head_bytes = 0
        self._at_request_line = True         # the next line read is the next request's
        super().allHeadersReceived()

    def lineLengthExceeded(self, line):
        return self._refuse(line)

    def _refuse(self, line):
        status = URI_TOO_LONG if self._at_request_line else HEADERS_TOO_LARGE
        limit = self.site.max_header_bytes
        what = "request line (the URL)" if status == URI_TOO_LONG else "request line and headers"
        body = self.site.error_body(status, f"{what} longer than {limit} bytes ({self.site.setting})")
        self.transport.write(b"HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                             b"Connection: close\r\n\r\n%s" % (status, _REASONS[status], len(body), body))
        self.dataReceived = self.lineReceived = lambda *args: None
        self.loseConnection()


class LimitedSite(GuardedSite):
    """`error_body(status, message)` makes the face's JSON error (bytes); `setting` names the limit's key."""

    protocol = _LimitedChannel

    def __init__(self, resource, max_header_bytes, error_body, setting, **kwargs):
        super().__init__(resource, **kwargs)
        self.max_header_bytes = max_header_bytes
        self.error_body = error_body
        self.setting = setting
