"""The x-cosmos-block-height response header, sent in the same batch as the answer or error it goes with.

grpcio's asyncio ServicerContext.send_initial_metadata awaits a batch of its own: one more completion event
through grpcio's polling thread and one more wake of the call's task, about 35 us of CPU a call (a sixth of
an empty handler's). The batch grpcio ends a call with carries (empty) initial metadata anyway when none was
sent; install() lets a handler's deferred header go there, as Go's grpc.SetHeader does for the SDK. It
replaces a name in grpcio's private Cython module, so only the release it was written for (pinned in
pyproject.toml) gets it; with any other, defer() says no and the header goes in a batch of its own.
"""

import contextvars

import grpc

# The release whose private names (cygrpc.execute_batch and its operation classes) this relies on.
_WRITTEN_FOR = "1.85.1"
# The header of the call whose handler is running: each call runs in a task of its own, whose context this is.
_deferred = contextvars.ContextVar("chaind_deferred_header", default=None)
installed = False


def install():
    """Route grpcio's batches through one that puts a deferred header into a call's final batch; True when
    done (now or before)."""
    global installed
    if installed or grpc.__version__ != _WRITTEN_FOR:
        return installed
    from grpc._cython import cygrpc
    original = cygrpc.execute_batch
    initial, status = cygrpc.SendInitialMetadataOperation, cygrpc.SendStatusFromServerOperation

    def execute_batch(call, operations, loop):
        metadata = _deferred.get()
        # The final batch (an answer's or an abort's) sends the status, and initial metadata unless some went.
        if metadata is not None and any(type(op) is status for op in operations):
            _deferred.set(None)
            operations = tuple(initial(metadata, 0) if type(op) is initial else op for op in operations)
        return original(call, operations, loop)

    cygrpc.execute_batch = execute_batch
    installed = True
    return installed


def defer(metadata):
    """Send `metadata` as the running call's initial metadata, with its answer or error: False when this
    grpcio cannot (the caller then sends it itself)."""
    if not installed:
        return False
    _deferred.set(metadata)
    return True
