"""JSON-RPC 2.0 envelopes, batches and errors as geth answers them, for any transport.

A transport hands over request bytes and gets response bytes (or None for notifications only).
"""

import orjson
from twisted.internet import defer
from twisted.logger import Logger

from chaind.rpc import errors
from chaind.rpc.errors import RPCError

log = Logger()


class Dispatcher:
    """Calls methods of a table {name: callable(params)}; a callable may return a Deferred."""

    def __init__(self, methods, max_batch_size):
        self.methods = methods
        self.max_batch_size = max_batch_size

    def handle(self, body):
        """Fires with the response bytes for `body`, or None when nothing is to be sent back."""
        try:
            message = orjson.loads(body)
        except orjson.JSONDecodeError as e:
            return defer.succeed(_encode(_error_response(None, RPCError(errors.PARSE_ERROR, str(e)))))
        if isinstance(message, list):
            return self._batch(message)
        d = self._one(message)
        d.addCallback(lambda response: None if response is None else _encode(response))
        return d

    def _batch(self, messages):
        if not messages:
            return defer.succeed(_encode(_error_response(None, RPCError(errors.INVALID_REQUEST, "empty batch"))))
        if len(messages) > self.max_batch_size:
            return defer.succeed(_encode(_error_response(None, RPCError(
                errors.INVALID_REQUEST, f"batch too large: {len(messages)} requests, at most {self.max_batch_size}"))))
        d = defer.gatherResults([self._one(m) for m in messages], consumeErrors=True)
        d.addCallback(lambda responses: _encode([r for r in responses if r is not None]) or None)
        return d

    def _one(self, message):
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or \
                not isinstance(message.get("method"), str):
            return defer.succeed(_error_response(
                message.get("id") if isinstance(message, dict) else None,
                RPCError(errors.INVALID_REQUEST, "invalid request")))
        has_id = "id" in message
        request_id = message.get("id")
        method = self.methods.get(message["method"])
        params = message.get("params", [])
        if method is None:
            result = defer.fail(errors.method_not_found(message["method"]))
        elif not isinstance(params, list):
            result = defer.fail(errors.invalid_params("non-array args"))
        else:
            result = defer.maybeDeferred(method, params)
        result.addCallbacks(lambda value: {"jsonrpc": "2.0", "id": request_id, "result": value},
                            lambda failure: _error_response(request_id, _as_rpc_error(failure, message["method"])))
        if not has_id:
            result.addCallback(lambda _: None)
        return result


def _as_rpc_error(failure, method):
    if failure.check(RPCError):
        return failure.value
    log.failure("method {method} crashed", failure, method=method)
    return RPCError(errors.INTERNAL_ERROR, "method handler crashed")


def _error_response(request_id, error):
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_json()}


def _encode(value):
    if value == []:
        return None
    return orjson.dumps(value) + b"\n"
