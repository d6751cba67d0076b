"""EVM JSON-RPC over HTTP (port 8545): POST a JSON-RPC request or batch, get JSON back.

txjsonrpc (the design card's choice) answers a batch as one malformed request and has no
error `data` member, which revert errors need; this face uses our own dispatcher instead.
"""

from twisted.web import resource, server

from chaind.rpc.errors import INVALID_REQUEST, RPCError


class EvmJsonRpcResource(resource.Resource):
    isLeaf = True

    def __init__(self, dispatcher, max_body_bytes):
        super().__init__()
        self.dispatcher = dispatcher
        self.max_body_bytes = max_body_bytes

    def render_GET(self, request):
        request.setResponseCode(405)
        request.setHeader(b"allow", b"POST")
        return b"method not allowed: send JSON-RPC requests with POST\n"

    def render_OPTIONS(self, request):
        request.setHeader(b"allow", b"POST, OPTIONS")
        return b""

    def render_POST(self, request):
        body = request.content.read(self.max_body_bytes + 1)
        request.setHeader(b"content-type", b"application/json")
        if len(body) > self.max_body_bytes:
            request.setResponseCode(413)
            error = RPCError(INVALID_REQUEST, f"content length too large: more than {self.max_body_bytes} bytes")
            return b'{"jsonrpc":"2.0","id":null,"error":' + _json(error.to_json()) + b"}\n"
        d = self.dispatcher.handle(body)
        d.addCallback(self._respond, request)
        d.addErrback(self._crashed, request)
        return server.NOT_DONE_YET

    def _respond(self, payload, request):
        if request._disconnected:
            return
        request.write(payload or b"")
        request.finish()

    def _crashed(self, failure, request):
        if not request._disconnected:
            request.setResponseCode(500)
            request.write(b'{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}\n')
            request.finish()


def _json(value):
    import orjson

    return orjson.dumps(value)
