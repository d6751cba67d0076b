"""JSON-RPC errors as values: a code, a message that says what went wrong, optional data.

Domain errors (chaind/errors.py) become JSON-RPC errors here, and only here (from_domain).
"""

import attrs

from chaind.errors import ChainError, Kind

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_ERROR = -32000
EXECUTION_REVERTED = 3


@attrs.frozen
class RPCError(Exception):
    code: int
    message: str
    data: object = None

    def to_json(self):
        error = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


# Each domain kind on the wire, as geth answers: an argument that does not decode is -32602, a revert is 3
# with the revert bytes as data, a method not served is -32601, our own fault -32603, and every other failure
# geth's -32000.
_CODES = {Kind.INVALID_ARGUMENT: INVALID_PARAMS, Kind.REVERTED: EXECUTION_REVERTED,
          Kind.UNIMPLEMENTED: METHOD_NOT_FOUND, Kind.INTERNAL: INTERNAL_ERROR}


def from_domain(error: ChainError):
    code = error.code if error.code is not None else _CODES.get(error.kind, SERVER_ERROR)
    return RPCError(code, error.message, error.data)


def as_rpc_error(error):
    """An RPCError as it is, a ChainError mapped to its wire."""
    return from_domain(error) if isinstance(error, ChainError) else error


def invalid_params(message):
    return RPCError(INVALID_PARAMS, message)


def server_error(message):
    return RPCError(SERVER_ERROR, message)


def method_not_found(method):
    return RPCError(METHOD_NOT_FOUND, f"the method {method} does not exist/is not available")
