"""JSON-RPC 2.0 envelopes, batches and errors as geth answers them, for any transport.

A transport hands over request bytes and gets response bytes (or None for notifications only).
"""

import orjson
from twisted.internet import defer
from twisted.logger import Logger
from twisted.python.failure import Failure

from chaind.api import call_pool
from chaind.api.streaming import StreamedResult
from chaind.errors import ChainError
from chaind.rpc import errors
from chaind.rpc.errors import RPCError

log = Logger()
# Results that are plain JSON values: neither streamed nor answered later.
_PLAIN = frozenset((str, dict, list, int, bool, type(None)))


class Dispatcher:
    """Calls methods of a table {name: callable(params)}; a callable may return a Deferred.
    request_key: whom the calls queued on the call pool belong to (a WebSocket connection: all its messages
    are one request there); by default each body, a batch with all its items."""

    def __init__(self, methods, max_batch_size, request_key=None):
        self.methods = methods
        self.max_batch_size = max_batch_size
        self.request_key = request_key

    def handle(self, body):
        """A Deferred firing with the response bytes for `body`, or None when nothing is to be sent back."""
        return defer.maybeDeferred(self.respond, body)

    def respond(self, body, stream=False):
        """The response bytes for `body` (or None), or a Deferred of them when a method answers later.

        Methods that return plain values are answered without any Deferred: that is most reads.
        With `stream`, a single request whose method streams its result gives a StreamedResponse
        for the transport to send piece by piece.
        """
        try:
            message = orjson.loads(body)
        except orjson.JSONDecodeError as e:
            return _encode(_error_response(None, RPCError(errors.PARSE_ERROR, f"the request body is not JSON: {e}")))
        if isinstance(message, list):
            return self._batch(message)
        if self.request_key is None:
            response = self._one(message, stream)
        else:
            token = call_pool.set_request(self.request_key)
            try:
                response = self._one(message, stream)
            finally:
                call_pool.reset_request(token)
        if response.__class__ is dict or response is None:     # spares the isinstance checks (Deferred's is slow)
            return _encode(response)
        if isinstance(response, StreamedResponse):
            return response
        if isinstance(response, defer.Deferred):
            return response.addCallback(_encode)
        return _encode(response)

    def _batch(self, messages):
        if not messages:
            return _encode(_error_response(None, RPCError(errors.INVALID_REQUEST, "empty batch")))
        if len(messages) > self.max_batch_size:
            return _encode(_error_response(None, RPCError(
                errors.INVALID_REQUEST, f"batch too large: {len(messages)} requests, at most {self.max_batch_size}")))
        # The items are one request on the call pool: they run one after another, in turns with other requests.
        token = call_pool.set_request(self.request_key if self.request_key is not None else object())
        try:
            responses = [self._one(m) for m in messages]
        finally:
            call_pool.reset_request(token)
        if any(isinstance(r, defer.Deferred) for r in responses):
            d = defer.gatherResults([r if isinstance(r, defer.Deferred) else defer.succeed(r) for r in responses],
                                    consumeErrors=True)
            return d.addCallback(_encode_batch)
        return _encode_batch(responses)

    def _one(self, message, stream=False):
        """The response object for one request (None for a notification), or a Deferred of it."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or \
                not isinstance(message.get("method"), str):
            return _error_response(message.get("id") if isinstance(message, dict) else None,
                                   RPCError(errors.INVALID_REQUEST, "invalid request"))
        has_id = "id" in message
        request_id = message.get("id")
        name = message["method"]
        method = self.methods.get(name)
        params = message.get("params", [])
        try:
            if method is None:
                raise errors.method_not_found(name)
            if not isinstance(params, list):
                raise errors.invalid_params("non-array args")
            value = method(params)
        except (RPCError, ChainError) as e:
            response = _error_response(request_id, errors.as_rpc_error(e))
        except Exception:  # noqa: BLE001 (a method's bug is the client's internal error, never a dropped connection)
            response = _error_response(request_id, _as_rpc_error(Failure(), name))
        else:
            if value.__class__ in _PLAIN:
                response = {"jsonrpc": "2.0", "id": request_id, "result": value}
                return response if has_id else None
            if isinstance(value, StreamedResult):
                if stream and has_id:
                    return StreamedResponse(request_id, value)
                value = value.collect()
            if isinstance(value, defer.Deferred):
                value.addCallbacks(lambda result: {"jsonrpc": "2.0", "id": request_id, "result": result},
                                   lambda failure: _error_response(request_id, _as_rpc_error(failure, name)))
                return value if has_id else value.addCallback(lambda _: None)
            response = {"jsonrpc": "2.0", "id": request_id, "result": value}
        return response if has_id else None


class StreamedResponse:
    """A response whose result the transport writes as it is produced."""

    def __init__(self, request_id, result):
        self.request_id = request_id
        self.result = result

    def envelope(self):
        """The bytes before and after the result."""
        return b'{"jsonrpc":"2.0","id":' + orjson.dumps(self.request_id) + b',"result":', b"}\n"

    def error(self, failure, method="streamed method"):
        return _encode(_error_response(self.request_id, _as_rpc_error(failure, method)))


def _as_rpc_error(failure, method):
    if failure.check(RPCError, ChainError):
        return errors.as_rpc_error(failure.value)
    log.failure("method {method} crashed", failure, method=method)
    return RPCError(errors.INTERNAL_ERROR, "method handler crashed")


def _error_response(request_id, error):
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_json()}


def _encode_batch(responses):
    return _encode([r for r in responses if r is not None])


def _encode(value):
    if value is None or value == []:
        return None
    return orjson.dumps(value) + b"\n"
