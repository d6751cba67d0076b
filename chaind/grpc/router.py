"""The gRPC services' methods by full path ("/cosmos.bank.v1beta1.Query/Balance"), called outside grpcio.

The gRPC server, ABCI Query and the REST gateway all answer through this one table, built from SERVICES.
A servicer sees a small call context here: the request metadata in, the height header and status out.
"""

import attrs
import grpc
from google.protobuf import message_factory

from chaind.grpc.common import HEIGHT_HEADER, QueryError
from chaind.grpc.services import SERVICES


@attrs.frozen
class Method:
    call: object              # the servicer's bound method: call(request, context)
    request_class: object
    response_class: object
    inline: bool              # quick enough to answer on the gRPC server's event loop (common.query)


@attrs.frozen
class Answer:
    response: object          # None when the servicer answered with an error
    height: int | None        # the height the servicer read at (None: it read no state by height)
    error: QueryError | None = None


class CallContext:
    """What a servicer reads of a gRPC call context: the request metadata, the height it answers at,
    and where to abort."""

    def __init__(self, metadata):
        self._metadata = metadata
        self.height = None
        self._details = None

    def invocation_metadata(self):
        return self._metadata

    def send_initial_metadata(self, metadata):
        for key, value in metadata:
            if key == HEIGHT_HEADER:
                self.height = int(value)

    def abort(self, code, details):
        raise QueryError(code, details)

    # What the generated base classes use for a method nobody implemented.
    def set_code(self, code):
        pass

    def set_details(self, details):
        self._details = details


class QueryRouter:
    def __init__(self, node):
        self.node = node
        self.methods = {}
        for entry in SERVICES:
            servicer = entry.servicer(node)
            service = entry.messages.DESCRIPTOR.services_by_name[entry.name]
            for method in service.methods:
                call = getattr(servicer, method.name)
                self.methods[f"/{service.full_name}/{method.name}"] = Method(
                    call, message_factory.GetMessageClass(method.input_type),
                    message_factory.GetMessageClass(method.output_type), getattr(call, "inline", False))

    def request_class(self, path):
        found = self.methods.get(path)
        return None if found is None else found.request_class

    def answer(self, path, request, metadata=()):
        """The servicer's Answer to `request`, with gRPC request metadata (its status, if an error, inside)."""
        context = CallContext(metadata)
        try:
            return Answer(self.methods[path].call(request, context), context.height)
        except QueryError as e:
            return Answer(None, context.height, e)
        except NotImplementedError:
            error = QueryError(grpc.StatusCode.UNIMPLEMENTED, context._details or "Method not implemented!")
            return Answer(None, context.height, error)

    def call(self, path, request, height):
        """(response, height it was read at) for a query at `height` (0 or None: latest); raises QueryError."""
        answer = self.answer(path, request, ((HEIGHT_HEADER, str(height)),) if height else ())
        if answer.error is not None:
            raise answer.error
        return answer.response, answer.height or self.node.app.height
