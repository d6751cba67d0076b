"""Domain errors: what went wrong, said in no face's words.

Services and modules raise ChainError; each face maps its kind to its wire once (JSON-RPC code and data,
gRPC status, CometBFT/ABCI code and codespace, REST status). Tx failures keep the SDK's codespace and code
(chain/errors.py TxError), which every Cosmos face already speaks.
"""

import enum

import attrs


class Kind(enum.Enum):
    INVALID_ARGUMENT = "invalid argument"    # the request is malformed or names something impossible
    NOT_FOUND = "not found"                  # well formed, but nothing is there
    REVERTED = "reverted"                    # the EVM reverted; data holds the revert bytes as 0x hex
    TIMEOUT = "timeout"                      # a limit on time ran out (a call, a trace)
    PRUNED = "pruned"                        # the height asked for is below what storage keeps
    UNAUTHORIZED = "unauthorized"            # the caller may not do this (a key it does not hold)
    UNIMPLEMENTED = "unimplemented"          # a method this node does not serve
    UNAVAILABLE = "unavailable"              # not now: a namespace switched off, a pool shut down
    LIMIT_EXCEEDED = "limit exceeded"        # a configured limit (results, range, size) was crossed
    FAILED = "failed"                        # the request was fine but could not be carried out
    INTERNAL = "internal"                    # this node's own fault, or one the upstream reports as such


@attrs.frozen
class ChainError(Exception):
    """code: the JSON-RPC code a specification fixes for this very failure (execution-apis' -38xxx for
    eth_simulateV1), which the JSON-RPC faces answer instead of their kind's."""

    kind: Kind
    message: str
    data: object = None
    code: int | None = None

    def __str__(self):
        return self.message


def invalid_argument(message, data=None):
    return ChainError(Kind.INVALID_ARGUMENT, message, data)


def not_found(message):
    return ChainError(Kind.NOT_FOUND, message)


def reverted(message, data):
    return ChainError(Kind.REVERTED, message, data)


def timeout(message):
    return ChainError(Kind.TIMEOUT, message)


def pruned(message):
    return ChainError(Kind.PRUNED, message)


def unauthorized(message):
    return ChainError(Kind.UNAUTHORIZED, message)


def unimplemented(message):
    return ChainError(Kind.UNIMPLEMENTED, message)


def unavailable(message):
    return ChainError(Kind.UNAVAILABLE, message)


def limit_exceeded(message):
    return ChainError(Kind.LIMIT_EXCEEDED, message)


def failed(message, data=None):
    return ChainError(Kind.FAILED, message, data)


def internal(message):
    return ChainError(Kind.INTERNAL, message)
