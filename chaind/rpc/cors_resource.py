"""CORS for the twisted.web faces (CometBFT RPC, REST): a root resource that adds the allowed origin's headers.

The policy is rpc/origins.py's; a preflight (OPTIONS with Access-Control-Request-Method) is answered here.
"""

from twisted.web import resource

from chaind.rpc.origins import CORS_MAX_AGE


class CorsResource(resource.Resource):
    def __init__(self, inner, policy, methods=b"GET, POST, HEAD"):
        super().__init__()
        self.inner = inner
        self.policy = policy
        self.methods = methods

    def getChildWithDefault(self, name, request):
        preflight = self._headers(request)
        if preflight:
            return _Preflight()
        if self.inner.isLeaf:
            # A leaf answers for the whole path: give it back the segment taken for this lookup.
            request.postpath.insert(0, request.prepath.pop())
            return self.inner
        return self.inner.getChildWithDefault(name, request)

    def render(self, request):
        if self._headers(request):
            return _Preflight().render(request)
        return self.inner.render(request)

    def _headers(self, request):
        """Sets the CORS headers for an allowed origin; True for a preflight."""
        origin = request.getHeader(b"origin")
        origin = origin.decode("latin-1") if origin is not None else None
        if origin is None or not self.policy.allows(origin):
            return False
        request.setHeader(b"access-control-allow-origin", b"*" if self.policy.allow_all else origin.encode("latin-1"))
        request.setHeader(b"vary", b"Origin")
        if request.method == b"OPTIONS" and request.getHeader(b"access-control-request-method"):
            request.setHeader(b"access-control-allow-methods", self.methods)
            headers = request.getHeader(b"access-control-request-headers")
            if headers:
                request.setHeader(b"access-control-allow-headers", headers)
            request.setHeader(b"access-control-max-age", str(CORS_MAX_AGE).encode())
            return True
        return False


class _Preflight(resource.Resource):
    isLeaf = True

    def render(self, request):
        request.setResponseCode(204)
        return b""
