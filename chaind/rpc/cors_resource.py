"""CORS for the twisted.web faces (CometBFT RPC, REST): a root resource that adds the allowed origin's headers.

The policy is rpc/origins.py's; a preflight (OPTIONS with Access-Control-Request-Method) is answered here, and
with `refusal` set a POST from a page on a site the policy does not allow is refused before it runs.
"""

from twisted.web import resource

from chaind.rpc.origins import CORS_MAX_AGE, request_origin_allowed


class CorsResource(resource.Resource):
    def __init__(self, inner, policy, methods=b"GET, POST, HEAD", refusal=None):
        """policy: an OriginPolicy, or None (no origin allowed); refusal: the 403 text for a POST from an origin
        not allowed (None: such POSTs are served, without CORS headers)."""
        super().__init__()
        self.inner = inner
        self.policy = policy
        self.methods = methods
        self.refusal = refusal

    def getChildWithDefault(self, name, request):
        if self._refused(request):
            return _Refused(self.refusal)
        preflight = self._headers(request)
        if preflight:
            return _Preflight()
        if self.inner.isLeaf:
            # A leaf answers for the whole path: give it back the segment taken for this lookup.
            request.postpath.insert(0, request.prepath.pop())
            return self.inner
        return self.inner.getChildWithDefault(name, request)

    def render(self, request):
        if self._refused(request):
            return _Refused(self.refusal).render(request)
        if self._headers(request):
            return _Preflight().render(request)
        return self.inner.render(request)

    def _refused(self, request):
        # A browser sends Origin with every POST, and lets any page send a "simple" one (text/plain, a form)
        # without a preflight: such a request runs whether or not the page may read the answer.
        return self.refusal is not None and request.method == b"POST" and \
            not request_origin_allowed(self.policy, _origin(request))

    def _headers(self, request):
        """Sets the CORS headers for an allowed origin; True for a preflight."""
        origin = _origin(request)
        if origin is None or self.policy is None or not self.policy.allows(origin):
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


class _Refused(resource.Resource):
    isLeaf = True

    def __init__(self, text):
        super().__init__()
        self.text = text

    def render(self, request):
        request.setResponseCode(403)
        request.setHeader(b"content-type", b"text/plain")
        return self.text


def _origin(request):
    origin = request.getHeader(b"origin")
    return origin.decode("latin-1") if origin is not None else None
