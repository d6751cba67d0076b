"""JSON-RPC errors as values: a code, a message that says what went wrong, optional data."""

import attrs

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


def invalid_params(message):
    return RPCError(INVALID_PARAMS, message)


def server_error(message):
    return RPCError(SERVER_ERROR, message)


def method_not_found(method):
    return RPCError(METHOD_NOT_FOUND, f"the method {method} does not exist/is not available")
