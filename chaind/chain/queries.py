"""What every query servicer shares: reading state at the asked height, pagination, address and denom checks.

Servicers (a module's query.py, the node's services in api/cosmos/) raise ChainError; the faces that call
them through the QueryRouter (gRPC, abci_query, REST) map its kind to their wire once.
"""

import functools
import re
from collections.abc import Callable
from typing import Any

import bech32

from chaind import errors
from chaind.chain.view import PrunedError
from chaind.pb.cosmos.base.query.v1beta1 import pagination_pb2

DEFAULT_LIMIT = 100     # the SDK's page size when a request names none
_DENOM = re.compile(r"^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$")


def query(method: Callable | None = None, *, inline: bool = False) -> Callable:
    """A servicer method that reads state at the requested height: method(self, request, view).

    The call context (grpc/router.py's CallContext) gives the height the caller asked for
    (requested_height(), None for latest) and learns the height answered at (answered_at(height)).
    `inline` marks a read short and bounded enough for the gRPC server to answer on its event loop
    rather than hand to a thread.
    """
    if method is None:
        return functools.partial(query, inline=inline)

    @functools.wraps(method)
    def handler(self, request, context):
        view = self.app_view(context.requested_height())
        context.answered_at(view.height)
        return method(self, request, view)
    handler.inline = inline  # type: ignore[attr-defined]
    return handler


class Reader:
    """Base of the servicers: the app, and its committed state at a height as the SDK errors name it."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def app_view(self, height: int | None) -> Any:
        try:
            return self.app.view(height)
        except PrunedError as e:
            raise errors.pruned(f"invalid request: failed to load state at height {height}; {e} "
                                f"(latest height: {self.app.height})") from None
        except LookupError:
            raise errors.failed("invalid height: cannot query with height in the future; "
                                "please provide a valid height") from None


# Clients ask about the same addresses again and again; decoding bech32 is most of a balance query's cost.
@functools.lru_cache(maxsize=16384)
def address_bytes(text: str, prefix: str) -> bytes:
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


def check_denom(denom: str) -> None:
    if not _DENOM.match(denom):
        raise errors.invalid_argument(f"invalid denom: {denom}")


def paginate(items, page):
    """The SDK's CollectionPaginate over (key bytes, value) pairs sorted by key: (values, PageResponse).

    Keys are what next_key carries (a denom's bytes, as the SDK's collections encode it).
    """
    key, offset, limit = page.key, page.offset, page.limit
    count_total, reverse = page.count_total, page.reverse
    if key and offset:
        raise errors.invalid_argument("paginate: invalid request, either offset or key is expected, got both")
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
