"""The gRPC query services answered through ABCI Query (CometBFT's abci_query), as @cosmjs uses them.

Same servicers as the gRPC server (through the QueryRouter); the path is the full method name, the data
the request bytes. Errors become ABCI codes as the SDK's gRPCErrorToSDKError maps them.
"""

import attrs
import grpc

import chaind
from chaind.errors import ChainError
from chaind.grpc.status import status_of

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


def query(router, path, data, height):
    """The AbciAnswer to a query of `path` with request bytes `data` at `height` (0: latest)."""
    request_class = router.request_class(path)
    if request_class is None:
        return _app_query(router.app, path)
    try:
        request = request_class.FromString(data)
    except Exception as e:
        return AbciAnswer(code=18, log=f"failed to decode request: {e}: invalid request", codespace="sdk")
    try:
        response, used = router.call(path, request, height)
    except ChainError as e:
        grpc_code = status_of(e)
        code, text = _SDK_ERRORS.get(grpc_code, _UNKNOWN_REQUEST)
        status = grpc_code.name.title().replace("_", "")
        return AbciAnswer(code=code, log=f"rpc error: code = {status} desc = {e.message}: {text}",
                          codespace="sdk", height=height or router.app.height)
    return AbciAnswer(value=response.SerializeToString(), height=used)


def _app_query(app, path):
    """baseapp's own paths (/app, /store, /p2p), answered as far as this app has them."""
    parts = path.removeprefix("/").split("/")
    height = app.height
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
