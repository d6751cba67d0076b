"""The query services' methods by full path ("/cosmos.bank.v1beta1.Query/Balance"), called outside grpcio.

The gRPC server, ABCI Query and the REST gateway all answer through this one table, built from the services
it is given (each module's, and the node's own). A servicer sees a small call context here: the height
asked for in, the height answered at out; it raises ChainError, which each face maps to its wire.
"""

import attrs
from google.protobuf import message_factory
from twisted.logger import Logger

from chaind import errors
from chaind.errors import ChainError

HEIGHT_HEADER = "x-cosmos-block-height"

log = Logger()


@attrs.frozen
class Method:
    call: object              # the servicer's bound method: call(request, context)
    request_class: object
    response_class: object
    inline: bool              # quick enough to answer on the gRPC server's event loop (chain/queries.query)


@attrs.frozen
class Answer:
    response: object          # None when the servicer answered with an error
    height: int | None        # the height the servicer read at (None: it read no state by height)
    error: ChainError | None = None


class CallContext:
    """What a servicer reads of a call: the height asked for (the x-cosmos-block-height header of the
    request metadata), and where it says the height it answers at."""

    def __init__(self, metadata):
        self._metadata = metadata
        self.height = None
        self._details = None

    def requested_height(self):
        """The height asked for (None: latest), as the SDK's gRPC interceptor reads the header."""
        for key, value in self._metadata:
            if key == HEIGHT_HEADER:
                try:
                    height = int(value)
                except ValueError:
                    raise errors.invalid_argument(
                        f'Baseapp.RegisterGRPCServer: invalid height header "{HEIGHT_HEADER}": '
                        f'strconv.ParseInt: parsing "{value}": invalid syntax') from None
                if height < 0:
                    raise errors.invalid_argument("cannot query with height < 0; please provide a valid height")
                return height or None
        return None

    def answered_at(self, height):
        self.height = height

    # What the generated base classes use for a method nobody implemented.
    def set_code(self, code):
        pass

    def set_details(self, details):
        self._details = details


class QueryRouter:
    """services: (QueryService, servicer) pairs; app gives the latest height."""

    def __init__(self, app, services):
        self.app = app
        self.services = tuple(service for service, _ in services)
        self.methods = {}
        for service, servicer in services:
            descriptor = service.descriptor
            for method in descriptor.methods:
                call = getattr(servicer, method.name)
                self.methods[f"/{descriptor.full_name}/{method.name}"] = Method(
                    call, message_factory.GetMessageClass(method.input_type),
                    message_factory.GetMessageClass(method.output_type), getattr(call, "inline", False))

    def request_class(self, path):
        found = self.methods.get(path)
        return None if found is None else found.request_class

    def answer(self, path, request, metadata=()):
        """The servicer's Answer to `request`, with gRPC request metadata (its error, if any, inside)."""
        context = CallContext(metadata)
        try:
            return Answer(self.methods[path].call(request, context), context.height)
        except ChainError as e:
            return Answer(None, context.height, e)
        except NotImplementedError:
            error = errors.unimplemented(context._details or "Method not implemented!")
            return Answer(None, context.height, error)
        except Exception:  # noqa: BLE001 (a top-level guard: logged, the client gets INTERNAL)
            log.failure("query {path} failed", path=path)
            return Answer(None, context.height, errors.internal("internal error"))

    def call(self, path, request, height):
        """(response, height it was read at) for a query at `height` (0 or None: latest); raises ChainError."""
        answer = self.answer(path, request, ((HEIGHT_HEADER, str(height)),) if height else ())
        if answer.error is not None:
            raise answer.error
        return answer.response, answer.height or self.app.height
