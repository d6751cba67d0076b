"""The x-cosmos-block-height response header sent with a unary call's answer, in one batch.

grpcio's ServicerContext.send_initial_metadata starts a batch of its own: one more completion event,
and one more wake of grpcio's polling thread, per call; with the GIL that costs about a fifth of a
balance query's throughput. grpcio sends initial metadata with the response and status anyway (when
none was sent before); install() lets it take ours there. It reaches into grpc._server, so it only
patches the grpcio release it was written against (setup.py pins it); any other keeps the plain call.
"""

import grpc
import grpc._server

# The release whose private names (_Context._state, _RPCState, _get_initial_metadata) this relies on.
_WRITTEN_FOR = "1.85.1"
installed = False


def install():
    """Give grpc._server._Context a defer_initial_metadata(metadata), sent with the status batch."""
    global installed
    if installed or grpc.__version__ != _WRITTEN_FOR:
        return installed
    original = grpc._server._get_initial_metadata

    def _get_initial_metadata(state, metadata):
        # grpcio passes None where it sends initial metadata along with the message or status.
        if metadata is None:
            metadata = getattr(state, "chaind_deferred_metadata", None)
        return original(state, metadata)

    def defer_initial_metadata(self, metadata):
        with self._state.condition:
            if not self._state.initial_metadata_allowed:
                raise ValueError("Initial metadata no longer allowed!")
            self._state.chaind_deferred_metadata = tuple(metadata)

    grpc._server._get_initial_metadata = _get_initial_metadata
    grpc._server._Context.defer_initial_metadata = defer_initial_metadata
    installed = True
    return installed


def send_header(context, metadata):
    """Initial metadata of a call: with its answer when grpcio lets it wait, else at once."""
    defer = getattr(context, "defer_initial_metadata", None)
    if defer is not None:
        defer(metadata)
    else:
        context.send_initial_metadata(metadata)
