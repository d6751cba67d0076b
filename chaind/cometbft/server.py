"""The 26657 server: URI GET and JSON-RPC POST from one route table, and /websocket beside them.

Envelopes, error codes and HTTP statuses as CometBFT v0.38's rpc/jsonrpc/server gives them.
"""

import html
import time

import orjson
from twisted.internet import defer
from twisted.logger import Logger
from twisted.python.failure import Failure
from twisted.web import resource, server

from chaind.api import call_pool
from chaind.cometbft.params import ParamError, from_json, from_uri
from chaind.cometbft.routes import RouteError
from chaind.errors import ChainError
from chaind.rpc.web_limits import LimitedSite

log = Logger()

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = \
    -32700, -32600, -32601, -32602, -32603
_MESSAGES = {PARSE_ERROR: "Parse error. Invalid JSON", INVALID_REQUEST: "Invalid Request",
             METHOD_NOT_FOUND: "Method not found", INVALID_PARAMS: "Invalid params",
             INTERNAL_ERROR: "Internal error", -32000: "Server error"}
WS_ONLY = ("subscribe", "unsubscribe", "unsubscribe_all")


class CallError(Exception):
    def __init__(self, code, data=None):
        super().__init__(data)
        self.code = code
        self.data = data


def error_object(request_id, code, data=None, with_id=True):
    error = {"code": code, "message": _MESSAGES[code]}
    if data:
        error["data"] = data
    out = {"jsonrpc": "2.0"}
    if with_id:
        out["id"] = request_id
    out["error"] = error
    return out


def request_id_of(message):
    """The id as CometBFT keeps it (string or integer; a float is truncated); raises CallError."""
    value = message.get("id")
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        kind = {bool: "bool", list: "[]interface {}", dict: "map[string]interface {}"}.get(type(value), "nil")
        raise CallError(PARSE_ERROR, f"error unmarshaling request: json-rpc ID ({orjson.dumps(value).decode()}) "
                                     f"is of unknown type ({kind})")
    if isinstance(value, str):
        return value
    # Go decodes a JSON number as float64 and converts it to an int64; out of range (x86-64) that
    # gives the smallest int64, which is also what keeps the id encodable.
    number = int(float(value))
    return number if -2**63 <= number < 2**63 else -2**63


class Dispatcher:
    """Calls routes for JSON-RPC requests (HTTP or WebSocket); `extra` adds connection-bound methods."""

    def __init__(self, table, settings):
        self.table = table
        self.settings = settings

    def call(self, message, ws=False, extra=None):
        """A Deferred of the response object for one request, or of None for a notification."""
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            return defer.succeed(error_object(None, INVALID_REQUEST, "invalid request object", with_id=False))
        if message.get("id") is None:
            # CometBFT reads an id of null as no id: a notification, which gets no answer.
            return defer.succeed(None)
        try:
            request_id = request_id_of(message)
        except CallError as e:
            return defer.succeed(error_object(None, e.code, e.data, with_id=False))
        name = message["method"]
        func = (extra or {}).get(name)
        if func is not None:
            d = defer.maybeDeferred(func, message.get("params"), request_id)
        else:
            route = self.table.get(name)
            if route is None:
                return defer.succeed(error_object(request_id, METHOD_NOT_FOUND))
            try:
                kwargs = from_json(route.args, message.get("params"))
            except ParamError as e:
                # Over WebSocket CometBFT reports argument errors as internal errors.
                code = INTERNAL_ERROR if ws else INVALID_PARAMS
                return defer.succeed(error_object(request_id, code, f"error converting json params to arguments: {e}"))
            d = defer.maybeDeferred(route.func, **kwargs)
        d.addCallbacks(lambda result: {"jsonrpc": "2.0", "id": request_id, "result": result},
                       lambda failure: error_object(request_id, *_failure_error(failure, name)))
        return d


def _failure_error(failure, name):
    # CometBFT answers every error a route returns as -32603 with the error's text as data: a domain
    # error of any kind (chaind/errors.py) goes on the wire so, like the routes' own.
    if failure.check(RouteError, ChainError):
        return INTERNAL_ERROR, str(failure.value)
    if failure.check(CallError):
        return failure.value.code, failure.value.data
    log.failure("CometBFT route {name} crashed", failure, name=name)
    return INTERNAL_ERROR, f"route {name} failed: {failure.getErrorMessage()}"


def _cacheable(route, kwargs):
    if route.cacheable == "yes":
        return True
    return route.cacheable == "height" and bool(kwargs.get("height"))


class CometRpcResource(resource.Resource):
    """Every path but /websocket: `/` for JSON-RPC (and the route list), `/<route>` for URI calls."""

    def __init__(self, table, settings, websocket):
        super().__init__()
        self.table = table
        self.settings = settings
        self.dispatcher = Dispatcher(table, settings)
        self.putChild(b"websocket", websocket)

    def getChild(self, name, request):
        return self

    def render(self, request):
        request.setHeader(b"X-Server-Time", str(int(time.time())).encode())
        name = request.path.decode(errors="replace").strip("/")
        if request.method not in (b"GET", b"POST", b"HEAD"):
            return self._send(request, 405, b"method not allowed\n", b"text/plain")
        if name == "":
            body = request.content.read() if request.method == b"POST" else b""
            if not body:
                return self._send(request, 200, self._route_list(request), b"text/html")
            return self._json_rpc(request, body)
        route = self.table.get(name)
        if route is None:
            if name in WS_ONLY:
                return self._send_json(request, 404, error_object(-1, METHOD_NOT_FOUND))
            return self._send(request, 404, b"404 page not found\n", b"text/plain")
        return self._uri_call(request, route, name)

    # -- URI calls ------------------------------------------------------------------------------

    def _uri_call(self, request, route, name):
        query = {k.decode(errors="replace"): [v.decode(errors="replace") for v in vs]
                 for k, vs in request.args.items()}
        try:
            kwargs = from_uri(route.args, query)
        except ParamError as e:
            return self._send_json(request, 500, error_object(
                -1, INVALID_PARAMS, f"error converting http params to arguments: {e}"))
        d = defer.maybeDeferred(route.func, **kwargs)

        def done(result):
            if _cacheable(route, kwargs):
                request.setHeader(b"Cache-Control", b"public, max-age=86400")
            return 200, {"jsonrpc": "2.0", "id": -1, "result": result}

        d.addCallbacks(done, lambda failure: (500, error_object(-1, *_failure_error(failure, name))))
        return self._later(request, d)

    # -- JSON-RPC --------------------------------------------------------------------------------

    def _json_rpc(self, request, body):
        if len(body) > self.settings.max_body_bytes:
            return self._send_json(request, 400, error_object(
                None, INVALID_REQUEST, "error reading request body: http: request body too large", with_id=False))
        try:
            message = orjson.loads(body)
        except orjson.JSONDecodeError as e:
            return self._send_json(request, 500, error_object(
                None, PARSE_ERROR, f"error unmarshaling request: {e}", with_id=False))
        if isinstance(message, list):
            limit = self.settings.max_batch_size
            if len(message) > limit:
                return self._send_json(request, 200, error_object(
                    None, INVALID_REQUEST, f"batch request exceeds maximum ({limit}) allowed number of requests",
                    with_id=False))
            if not message:
                return self._send_json(request, 200, error_object(
                    None, INVALID_REQUEST, "empty batch", with_id=False))
            # The items are one request on the call pool: they run one after another.
            token = call_pool.set_request(object())
            try:
                d = defer.gatherResults([self.dispatcher.call(m) for m in message], consumeErrors=True)
            finally:
                call_pool.reset_request(token)
            d.addCallback(lambda responses: (200, [r for r in responses if r is not None]))
        else:
            d = self.dispatcher.call(message)
            d.addCallback(lambda response: (_status_of(response), response))
        return self._later(request, d)

    # -- writing ---------------------------------------------------------------------------------

    def _later(self, request, d):
        gone = []
        request.notifyFinish().addErrback(gone.append)

        def write(outcome):
            if gone:
                return
            if isinstance(outcome, Failure):
                log.failure("CometBFT RPC request failed", outcome)
                outcome = (500, error_object(-1, INTERNAL_ERROR, "internal error"))
            status, payload = outcome
            if payload is None or payload == []:
                body = self._send(request, 200, b"", b"application/json")
            else:
                body = self._send_json(request, status, payload)
            request.setHeader(b"Content-Length", str(len(body)).encode())
            if request.method != b"HEAD":
                request.write(body)
            request.finish()

        d.addBoth(write)
        return server.NOT_DONE_YET

    def _send_json(self, request, status, payload):
        return self._send(request, status, orjson.dumps(payload, option=orjson.OPT_INDENT_2), b"application/json")

    def _send(self, request, status, body, content_type):
        """Status and headers set; the body is returned for render (or the caller) to write."""
        request.setResponseCode(status)
        request.setHeader(b"Content-Type", content_type)
        return body

    def _route_list(self, request):
        host = html.escape((request.getHeader(b"host") or b"").decode(errors="replace"))
        plain = sorted(n for n, r in self.table.items() if not r.args)
        with_args = sorted(n for n, r in self.table.items() if r.args)
        lines = ["<html><body>", "<br>Available endpoints:<br>"]
        lines += [f'<a href="//{host}/{n}">//{host}/{n}</a></br>' for n in plain]
        lines.append("<br>Endpoints that require arguments:<br>")
        for n in with_args:
            args = "&".join(f"{a.name}=_" for a in self.table[n].args)
            lines.append(f'<a href="//{host}/{n}?{args}">//{host}/{n}?{args}</a></br>')
        lines.append("</body></html>")
        return "\n".join(lines).encode()


def _status_of(response):
    if response is not None and "error" in response and response["error"]["code"] == PARSE_ERROR:
        return 500
    return 200


def _too_large(status, message):
    """A request line or headers over [cometbft-rpc] max-header-bytes: CometBFT's JSON-RPC invalid request."""
    return orjson.dumps(error_object(None, INVALID_REQUEST, message, with_id=False))


def make_site(table, settings, websocket):
    return LimitedSite(CometRpcResource(table, settings, websocket), settings.max_header_bytes, _too_large,
                       "[cometbft-rpc] max-header-bytes", read_timeout=settings.read_timeout,
                       idle_timeout=settings.idle_timeout)
