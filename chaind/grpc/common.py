"""What every servicer shares: the x-cosmos-block-height header, SDK-shaped errors, bech32, pagination.

Servicers are called through the QueryRouter (gRPC, ABCI Query, REST); they read committed state through
App.view only.
"""

import functools
import re

import bech32
import grpc
from twisted.logger import Logger

from chaind.chain.app import PrunedError
from chaind.pb.cosmos.base.query.v1beta1 import pagination_pb2

HEIGHT_HEADER = "x-cosmos-block-height"
DEFAULT_LIMIT = 100     # the SDK's page size when a request names none
_DENOM = re.compile(r"^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$")

log = Logger()


class QueryError(Exception):
    """A gRPC status a handler answers with: code and message as the SDK gives them."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def invalid(message):
    return QueryError(grpc.StatusCode.INVALID_ARGUMENT, message)


def query(method=None, *, inline=False):
    """A servicer method that reads state at the requested height: method(self, request, view).

    Resolves x-cosmos-block-height as the SDK's gRPC interceptor does, echoes the height used in the
    response header, and turns QueryError into the status it names. `inline` marks a read short and
    bounded enough for the gRPC server to answer on its event loop rather than hand to a thread.
    """
    if method is None:
        return functools.partial(query, inline=inline)

    @functools.wraps(method)
    def handler(self, request, context):
        try:
            view = self.app_view(_requested_height(context))
            context.send_initial_metadata(((HEIGHT_HEADER, str(view.height)),))
            return method(self, request, view)
        except QueryError as e:
            context.abort(e.code, e.message)
        except Exception:
            log.failure("gRPC {method} failed", method=method.__name__)
            context.abort(grpc.StatusCode.INTERNAL, "internal error")
    handler.inline = inline
    return handler


def _requested_height(context):
    for key, value in context.invocation_metadata():
        if key == HEIGHT_HEADER:
            try:
                height = int(value)
            except ValueError:
                raise invalid(f'Baseapp.RegisterGRPCServer: invalid height header "{HEIGHT_HEADER}": '
                              f'strconv.ParseInt: parsing "{value}": invalid syntax') from None
            if height < 0:
                raise invalid("cannot query with height < 0; please provide a valid height")
            return height or None
    return None


class Reader:
    """Base of the servicers: the app, and its committed state at a height as the SDK errors name it."""

    def __init__(self, app):
        self.app = app

    def app_view(self, height):
        try:
            return self.app.view(height)
        except PrunedError as e:
            raise invalid(f"invalid request: failed to load state at height {height}; {e} "
                          f"(latest height: {self.app.height})") from None
        except LookupError:
            raise QueryError(grpc.StatusCode.UNKNOWN, "invalid height: cannot query with height in the future; "
                                                      "please provide a valid height") from None


# Clients ask about the same addresses again and again; decoding bech32 is most of a balance query's cost.
@functools.lru_cache(maxsize=16384)
def address_bytes(text, prefix):
    """The SDK bech32 codec's StringToBytes; raises ValueError with its message (not remembered)."""
    if not text.strip():
        raise ValueError("empty address string is not allowed")
    hrp, data = bech32.bech32_decode(text)
    if hrp is None or data is None:
        raise ValueError(f"decoding bech32 failed: invalid bech32 string {text!r}")
    if hrp != prefix:
        raise ValueError(f"hrp does not match bech32 prefix: expected '{prefix}' got '{hrp}'")
    raw = bech32.convertbits(data, 5, 8, False)
    if raw is None:
        raise ValueError("decoding bech32 failed: invalid padding")
    # The SDK accepts 1..255 bytes; this chain's accounts (EVM ones) are all 20 bytes long.
    if len(raw) != 20:
        raise ValueError(f"address length must be 20 bytes, got {len(raw)}: unknown address")
    return bytes(raw)


def check_denom(denom):
    if not _DENOM.match(denom):
        raise invalid(f"invalid denom: {denom}")


def paginate(items, page):
    """The SDK's CollectionPaginate over (key bytes, value) pairs sorted by key: (values, PageResponse).

    Keys are what next_key carries (a denom's bytes, as the SDK's collections encode it).
    """
    key, offset, limit = page.key, page.offset, page.limit
    count_total, reverse = page.count_total, page.reverse
    if key and offset:
        raise invalid("paginate: invalid request, either offset or key is expected, got both")
    if not limit:
        limit, count_total = DEFAULT_LIMIT, True
    ordered = list(reversed(items)) if reverse else items
    if key:
        start = next((i for i, (k, _) in enumerate(ordered) if (k <= key if reverse else k >= key)), len(ordered))
        taken = ordered[start:start + limit]
        rest = ordered[start + limit:]
        return [v for _, v in taken], pagination_pb2.PageResponse(next_key=rest[0][0] if rest else b"")
    taken = ordered[offset:offset + limit]
    rest = ordered[offset + limit:]
    response = pagination_pb2.PageResponse(next_key=rest[0][0] if rest else b"")
    if count_total:
        response.total = len(ordered)
    return [v for _, v in taken], response
