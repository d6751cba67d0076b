"""The gRPC query services answered through ABCI Query (CometBFT's abci_query), as @cosmjs uses them.

Same servicers as the gRPC server; the path is the full method name, the data the request bytes.
Errors become ABCI codes as the SDK's gRPCErrorToSDKError maps them.
"""

import attrs
import grpc

import chaind
from chaind.grpc.common import HEIGHT_HEADER
from chaind.grpc.services import SERVICES

# SDK error codes (codespace "sdk") a gRPC status maps to.
_SDK_ERRORS = {
    grpc.StatusCode.NOT_FOUND: (22, "key not found"),
    grpc.StatusCode.INVALID_ARGUMENT: (18, "invalid request"),
    grpc.StatusCode.FAILED_PRECONDITION: (18, "invalid request"),
    grpc.StatusCode.UNAUTHENTICATED: (4, "unauthorized"),
}
_UNKNOWN_REQUEST = (6, "unknown request")


@attrs.frozen
class AbciAnswer:
    code: int = 0
    log: str = ""
    value: bytes = b""
    height: int = 0
    codespace: str = ""


class StatusError(Exception):
    """A gRPC status a servicer answered with, called outside gRPC (ABCI query, REST)."""

    def __init__(self, code, details):
        super().__init__(details)
        self.code = code
        self.details = details


class _Context:
    """What a servicer reads of a gRPC call context: the height header, and where to abort."""

    def __init__(self, height):
        self._metadata = ((HEIGHT_HEADER, str(height)),) if height else ()
        self.height = None
        self._code = self._details = None

    def invocation_metadata(self):
        return self._metadata

    def send_initial_metadata(self, metadata):
        for key, value in metadata:
            if key == HEIGHT_HEADER:
                self.height = int(value)

    def abort(self, code, details):
        raise StatusError(code, details)

    # What the generated base classes use for a method nobody implemented.
    def set_code(self, code):
        self._code = code

    def set_details(self, details):
        self._details = details


class QueryRouter:
    """The gRPC services' methods by full path ("/cosmos.bank.v1beta1.Query/Balance"), for ABCI Query
    and the REST gateway."""

    def __init__(self, node):
        self.node = node
        self.methods = {}
        for entry in SERVICES:
            servicer = entry.servicer(node)
            service = entry.messages.DESCRIPTOR.services_by_name[entry.name]
            for method in service.methods:
                request_class = getattr(entry.messages, method.input_type.name)
                self.methods[f"/{service.full_name}/{method.name}"] = (getattr(servicer, method.name), request_class)

    def request_class(self, path):
        found = self.methods.get(path)
        return None if found is None else found[1]

    def call(self, path, request, height):
        """(response, height it was read at); raises StatusError as the servicer answers."""
        handler, _ = self.methods[path]
        context = _Context(height)
        try:
            response = handler(request, context)
        except NotImplementedError:
            raise StatusError(grpc.StatusCode.UNIMPLEMENTED, context._details or "Method not implemented!") from None
        return response, context.height or self.node.app.height

    def query(self, path, data, height):
        """The AbciAnswer to a query of `path` with request bytes `data` at `height` (0: latest)."""
        request_class = self.request_class(path)
        if request_class is None:
            return self._app_query(path)
        try:
            request = request_class.FromString(data)
        except Exception as e:
            return AbciAnswer(code=18, log=f"failed to decode request: {e}: invalid request", codespace="sdk")
        try:
            response, used = self.call(path, request, height)
        except StatusError as e:
            code, text = _SDK_ERRORS.get(e.code, _UNKNOWN_REQUEST)
            status = e.code.name.title().replace("_", "")
            return AbciAnswer(code=code, log=f"rpc error: code = {status} desc = {e.details}: {text}",
                              codespace="sdk", height=height or self.node.app.height)
        return AbciAnswer(value=response.SerializeToString(), height=used)

    def _app_query(self, path):
        """baseapp's own paths (/app, /store, /p2p), answered as far as this app has them."""
        parts = path.removeprefix("/").split("/")
        height = self.node.app.height
        if parts[0] == "app" and parts[1:] == ["version"]:
            return AbciAnswer(value=chaind.__version__.encode(), height=height)
        if parts[0] == "app":
            return _unknown(f"unknown query: {path}")
        if parts[0] == "store":
            # The SDK answers raw IAVL reads here; this app's stores are laid out differently.
            return _unknown("multi-store does not support queries")
        if parts[0] == "p2p":
            if len(parts) < 4:
                return _unknown("path should be p2p filter <addr|id> <parameter>")
            if parts[1] != "filter":
                return _unknown("expected second parameter to be 'filter'")
            # No peer filter is set: every peer is accepted, as baseapp answers then.
            return AbciAnswer(height=height)
        return _unknown("unknown query path")


def _unknown(message):
    code, text = _UNKNOWN_REQUEST
    return AbciAnswer(code=code, log=f"{message}: {text}", codespace="sdk")
