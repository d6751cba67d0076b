"""The gateway's JSON error for what fails before a route runs (grpc-gateway's {"code", "message", "details"})."""

import orjson

INVALID_ARGUMENT = 3


def too_large(status, message):
    """A request line or headers over [rest] max-header-bytes (answered 414 or 431): InvalidArgument."""
    return orjson.dumps({"code": INVALID_ARGUMENT, "message": message, "details": []})
