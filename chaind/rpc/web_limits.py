"""A twisted.web Site whose request line and headers have a size limit (a setting) answered with a JSON error:
414 for a request line (the URL) over it, 431 for headers over it, then the connection closes.

twisted.web alone closes the connection without a word on a line longer than its 16 KB (LineReceiver's
MAX_LENGTH), which clients report as a reset rather than as the error it is.
"""

from twisted.web import http, server

URI_TOO_LONG, HEADERS_TOO_LARGE = 414, 431
_REASONS = {URI_TOO_LONG: b"Request-URI Too Long", HEADERS_TOO_LARGE: b"Request Header Fields Too Large"}


class _LimitedChannel(http.HTTPChannel):
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


class LimitedSite(server.Site):
    """`error_body(status, message)` makes the face's JSON error (bytes); `setting` names the limit's key."""

    protocol = _LimitedChannel

    def __init__(self, resource, max_header_bytes, error_body, setting, **kwargs):
        super().__init__(resource, **kwargs)
        self.max_header_bytes = max_header_bytes
        self.error_body = error_body
        self.setting = setting
