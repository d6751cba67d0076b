"""The recorders a node's faces are built with when [instrumentation] prometheus is on."""

from chaind.metrics import faces, requests


class NodeMetrics:
    def __init__(self, settings):
        self.settings = settings
        self.requests = requests.RequestRecorders()         # faces on the reactor thread
        self.grpc_requests = requests.RequestRecorders()    # gRPC's event loop thread

    def methods(self, table, face, error_codes=None):
        return requests.instrument_methods(table, face, self.requests, error_codes)

    def routes(self, table, face, error_codes=None):
        return requests.instrument_routes(table, face, self.requests, error_codes)

    def resource(self, inner, route_of, face):
        return faces.TimedResource(inner, route_of, self.requests, face)

    def grpc(self, answer, path):
        return faces.timed_grpc(answer, path, self.grpc_requests)
