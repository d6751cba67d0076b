"""Timers for the faces that are not method tables: the REST gateway (a twisted.web resource) and gRPC."""

import time

from twisted.web import resource
from werkzeug.exceptions import HTTPException

UNROUTED = "unrouted"


class TimedResource(resource.Resource):
    """Wraps a leaf resource: each request is counted and timed under its route's template."""

    isLeaf = True

    def __init__(self, inner, route_of, recorders, face):
        super().__init__()
        self.inner = inner
        self.route_of = route_of
        self.recorders = recorders
        self.face = face

    def render(self, request):
        started = time.perf_counter()
        labels = (self.face, self.route_of(request))

        def finished(_):
            code = request.code if request.code >= 400 else None
            self.recorders.done(labels, started, code)

        request.notifyFinish().addBoth(finished)
        return self.inner.render(request)


def werkzeug_route_of(url_map):
    """The endpoint name a Klein/werkzeug map gives a request ("GET /cosmos/.../{address}"): one label per
    route, never per address."""
    adapter = url_map.bind("localhost")

    def route_of(request):
        try:
            endpoint, _ = adapter.match(request.path.decode("utf-8", "replace"), method=request.method.decode())
        except HTTPException:
            return UNROUTED
        return endpoint

    return route_of


def timed_grpc(answer, path, recorders):
    """A gRPC asyncio handler counted and timed; the recorder is the event loop's own."""

    labels = ("grpc", path)

    async def timed(request, context):
        started = time.perf_counter()
        try:
            response = await answer(request, context)
        except BaseException:
            code = context.code()
            recorders.done(labels, started, getattr(code, "name", code) or "UNKNOWN")
            raise
        recorders.done(labels, started)
        return response

    return timed
