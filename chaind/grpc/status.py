"""Domain errors as gRPC statuses: the one map the gRPC server, abci_query and the REST gateway share.

The kinds that read like another status on the wire are the SDK's choices: a pruned height is
InvalidArgument, and a keeper's unclassified failure (FAILED) is Unknown.
"""

import grpc

from chaind.errors import Kind

STATUS = {
    Kind.INVALID_ARGUMENT: grpc.StatusCode.INVALID_ARGUMENT,
    Kind.NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    Kind.REVERTED: grpc.StatusCode.UNKNOWN,
    Kind.TIMEOUT: grpc.StatusCode.DEADLINE_EXCEEDED,
    Kind.PRUNED: grpc.StatusCode.INVALID_ARGUMENT,
    Kind.UNAUTHORIZED: grpc.StatusCode.UNAUTHENTICATED,
    Kind.UNIMPLEMENTED: grpc.StatusCode.UNIMPLEMENTED,
    Kind.UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
    Kind.LIMIT_EXCEEDED: grpc.StatusCode.RESOURCE_EXHAUSTED,
    Kind.FAILED: grpc.StatusCode.UNKNOWN,
    Kind.INTERNAL: grpc.StatusCode.INTERNAL,
}


def status_of(error):
    """The gRPC status code of a ChainError."""
    return STATUS[error.kind]
