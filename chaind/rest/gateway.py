"""The REST gateway (port 9091): the SDK's grpc-gateway paths over the same query servicers.

It serves the services its QueryRouter holds: a service's own routes (QueryService.rest), else the `// REST:`
line above each rpc in protos/ (setup.py writes chaind/pb/rest_routes.py); the other routes compiled from
protos/ answer that this node does not serve them.
Requests become the same protobuf requests; answers are JSON as the SDK's gogoproto gateway writes them
(LegacyDec fields as decimals, both ways). Reads marked inline are answered on the reactor, the others on the
query pool.
"""

import functools
import re

import orjson
from google.protobuf import descriptor, json_format
from klein import Klein
from twisted.logger import Logger
from werkzeug.exceptions import MethodNotAllowed, NotFound
from werkzeug.routing import RequestRedirect

from chaind.chain import legacy_dec
from chaind.errors import ChainError
from chaind.grpc.router import HEIGHT_HEADER
from chaind.grpc.status import status_of
from chaind.pb.rest_routes import DECIMALS, ROUTES
from chaind.rest import gogojson

log = Logger()
HEIGHT_OUT = b"Grpc-Metadata-X-Cosmos-Block-Height"
UNIMPLEMENTED = 12
# grpc-gateway's HTTP status for each gRPC status code (runtime.HTTPStatusFromCode).
_HTTP_STATUS = {0: 200, 1: 499, 2: 500, 3: 400, 4: 504, 5: 404, 6: 409, 7: 403, 8: 429, 9: 400, 10: 409,
                11: 400, 12: 501, 13: 500, 14: 503, 15: 500, 16: 401}
_PARAM = re.compile(r"\{(\w+)\}")
_INTEGERS = (descriptor.FieldDescriptor.TYPE_INT32, descriptor.FieldDescriptor.TYPE_UINT32,
             descriptor.FieldDescriptor.TYPE_SINT32, descriptor.FieldDescriptor.TYPE_ENUM)


class RestGateway:
    def __init__(self, router, pool, reactor):
        self.router = router
        self.pool = pool            # the CallPool queries run on
        self.reactor = reactor
        self.app = Klein()
        served = set()
        for http_method, template, grpc_path in _routes(router.services):
            if (http_method, template) in served:
                continue          # two rpcs on one template (auth's bech32/{...}): the first wins, as in the SDK
            served.add((http_method, template))
            names = _PARAM.findall(template)
            # The last path parameter may hold slashes (an ibc/... denom).
            route = _PARAM.sub(lambda m, names=names: f"<path:{m.group(1)}>" if m.group(1) == names[-1]
                               else f"<{m.group(1)}>", template)
            self.app.route(route, methods=[http_method], branch=False,
                           endpoint=f"{http_method} {template}")(self._handler(grpc_path))
        # grpc-gateway matches the path as sent: no slash merging, no redirects to another path.
        self.app.url_map.merge_slashes = False
        self.app.url_map.strict_slashes = False
        self.app.handle_errors(NotFound, MethodNotAllowed, RequestRedirect)(self._unrouted)
        self.app.handle_errors(Exception)(self._crashed)

    def resource(self):
        return self.app.resource()

    def _handler(self, grpc_path):
        def handle(request, **path_params):
            return self._answer(request, grpc_path, path_params)
        return handle

    def _answer(self, request, grpc_path, path_params):
        request.setHeader(b"content-type", b"application/json")
        method = self.router.methods.get(grpc_path)
        if method is None:
            return _error(request, UNIMPLEMENTED, f"{grpc_path} is not served by this node yet")
        try:
            body = orjson.loads(request.content.read() or b"{}") if request.method == b"POST" else {}
            message = _request_message(method.request_class, body, path_params, request.args)
            height = _height(request)
        except (json_format.ParseError, orjson.JSONDecodeError, ValueError) as e:
            return _error(request, 3, str(e))
        if method.inline:
            # A short, bounded read (chain/queries.query(inline=True)), answered where the gRPC server answers it
            # on its loop, as the JSON-RPC face answers eth_getBalance on the reactor: handing it to a thread and
            # back cost more than the read.
            try:
                return _ok(request, *self.router.call(grpc_path, message, height))
            except ChainError as e:
                return _error(request, status_of(e).value[0], e.message)
        d = self.pool.run(self.router.call, grpc_path, message, height)
        d.addCallbacks(lambda answer: _ok(request, *answer), lambda failure: _failed(request, failure))
        return d

    def _unrouted(self, request, failure):
        # No route for the path (or method): what the SDK's gateway answers.
        request.setHeader(b"content-type", b"application/json")
        return _error(request, UNIMPLEMENTED, "Not Implemented")

    def _crashed(self, request, failure):
        log.failure("REST request {path} failed", failure, path=request.path)
        request.setHeader(b"content-type", b"application/json")
        return _error(request, 13, "internal error")


def _routes(services):
    """(HTTP method, template, gRPC path) of every route: the served services' first, in their order."""
    routes = []
    for service in services:
        prefix = f"/{service.full_name}/"
        if service.rest is not None:
            routes += [(method, template, prefix + rpc) for method, template, rpc in service.rest]
        else:
            routes += [route for route in ROUTES if route[2].startswith(prefix)]
    return routes + [route for route in ROUTES if route not in routes]


def _request_message(request_class, body, path_params, args):
    """The protobuf request from a JSON body (POST), query arguments (`pagination.limit=10`) and
    path parameters, later ones winning."""
    if not body and not args and path_params.keys() <= _plain_strings(request_class.DESCRIPTOR):
        # The common read (GET .../balances/{address}): path parameters that are plain string fields.
        return request_class(**path_params)
    if not isinstance(body, dict):
        raise ValueError("the request body must be a JSON object")
    values = dict(body)
    for key, items in args.items():
        name = key.decode()
        for item in items:
            _set(values, request_class.DESCRIPTOR, name.split("."), item.decode())
    for name, value in path_params.items():
        field = request_class.DESCRIPTOR.fields_by_name.get(name)
        # grpc-gateway splits a repeated path parameter at commas (.../packet_commitments/1,2,3/unreceived_packets).
        for item in value.split(",") if field is not None and field.is_repeated else [value]:
            _set(values, request_class.DESCRIPTOR, [name], item)
    _decimals_in(request_class.DESCRIPTOR, values)
    return json_format.ParseDict(values, request_class(), ignore_unknown_fields=False)


@functools.lru_cache(maxsize=None)
def _plain_strings(message_descriptor):
    """The names of the request's singular string fields that are not LegacyDec."""
    return frozenset(f.name for f in message_descriptor.fields if f.type == descriptor.FieldDescriptor.TYPE_STRING
                     and not f.is_repeated and f.full_name not in DECIMALS and f.containing_oneof is None)


def _decimals_in(message_descriptor, values):
    """LegacyDec fields of a JSON request from their decimal text to the wire's scaled integer, in place
    (inside Any values too, as gogoproto's jsonpb unmarshals them). Raises ValueError."""
    if message_descriptor.full_name == "google.protobuf.Any":
        message_descriptor = gogojson.any_descriptor(values.get("@type")) if isinstance(values, dict) else None
    if message_descriptor is None or not isinstance(values, dict):
        return      # not a message, or an Any of a type unknown here: json_format names the fault
    for key, value in values.items():
        field = message_descriptor.fields_by_name.get(key) or message_descriptor.fields_by_camelcase_name.get(key)
        if field is None:
            continue
        if field.full_name in DECIMALS:
            try:
                values[key] = ([legacy_dec.wire_of_text(v) for v in value]
                               if field.is_repeated and isinstance(value, list) else legacy_dec.wire_of_text(value))
            except ValueError as e:
                raise ValueError(f"{field.name}: {e}") from None
        elif field.message_type is not None and not field.message_type.GetOptions().map_entry:
            for item in (value if field.is_repeated and isinstance(value, list) else [value]):
                _decimals_in(field.message_type, item)


def _set(values, message_descriptor, path, value):
    field = message_descriptor.fields_by_name.get(path[0]) or next(
        (f for f in message_descriptor.fields if f.json_name == path[0]), None)
    if field is None:
        raise ValueError(f"unknown field {path[0]!r} in {message_descriptor.name}")
    if len(path) > 1:
        if field.message_type is None:
            raise ValueError(f"{path[0]} is not a message")
        _set(values.setdefault(field.name, {}), field.message_type, path[1:], value)
        return
    if field.type == descriptor.FieldDescriptor.TYPE_BOOL:
        if value not in ("true", "false"):
            raise ValueError(f"{field.name}: bad bool {value!r}")
        value = value == "true"
    elif field.type in _INTEGERS and field.type != descriptor.FieldDescriptor.TYPE_ENUM:
        value = int(value)
    if field.is_repeated:
        # A repeated field is the parameter given several times (events=a&events=b).
        values.setdefault(field.name, []).append(value)
    else:
        values[field.name] = value


def _height(request):
    raw = request.getHeader(HEIGHT_HEADER)
    if raw is None:
        return 0
    height = int(raw)
    if height < 0:
        raise ValueError("cannot query with height < 0; please provide a valid height")
    return height


def _ok(request, response, height):
    request.setHeader(HEIGHT_OUT, str(height).encode())
    return orjson.dumps(gogojson.to_dict(response))


def _failed(request, failure):
    if failure.check(ChainError):
        return _error(request, status_of(failure.value).value[0], failure.value.message)
    log.failure("REST query failed", failure)
    return _error(request, 13, "internal error")


def _error(request, code, message):
    request.setResponseCode(_HTTP_STATUS.get(code, 500))
    return orjson.dumps({"code": code, "message": message, "details": []})
