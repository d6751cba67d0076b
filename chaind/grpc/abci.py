"""The gRPC query services answered through ABCI Query (CometBFT's abci_query), as @cosmjs uses them.

Same servicers as the gRPC server (through the QueryRouter); the path is the full method name, the data
the request bytes. Errors become ABCI codes as the SDK's gRPCErrorToSDKError maps them.
"""

import attrs
import grpc

import chaind
from chaind.chain.view import PrunedError
from chaind.errors import ChainError
from chaind.grpc.status import status_of
from chaind.store import multistore
from chaind.store.iavl.node import uvarint

# SDK error codes (codespace "sdk") a gRPC status maps to.
_SDK_ERRORS = {
    grpc.StatusCode.NOT_FOUND: (22, "key not found"),
    grpc.StatusCode.INVALID_ARGUMENT: (18, "invalid request"),
    grpc.StatusCode.FAILED_PRECONDITION: (18, "invalid request"),
    grpc.StatusCode.UNAUTHENTICATED: (4, "unauthorized"),
}
_UNKNOWN_REQUEST = (6, "unknown request")


@attrs.frozen
class AbciAnswer:
    code: int = 0
    log: str = ""
    value: bytes = b""
    height: int = 0
    codespace: str = ""
    key: bytes = b""
    proof_ops: tuple = ()     # (type, key, data) each, as tendermint.crypto.ProofOp


def query(router, path, data, height, prove=False):
    """The AbciAnswer to a query of `path` with request bytes `data` at `height` (0: latest)."""
    parts = path.removeprefix("/").split("/")
    if parts[0] == "store":
        return _store_query(router.app, parts[1:], data, height, prove)
    request_class = router.request_class(path)
    if prove:
        return _invalid(f"cannot prove the answer of {path or '(empty path)'}: {_provable(router.app)}")
    if request_class is None:
        return _app_query(router.app, path)
    try:
        request = request_class.FromString(data)
    except Exception as e:  # noqa: BLE001 (untrusted bytes: any decode failure is the sender's error)
        return AbciAnswer(code=18, log=f"failed to decode request: {e}: invalid request", codespace="sdk")
    try:
        response, used = router.call(path, request, height)
    except ChainError as e:
        grpc_code = status_of(e)
        code, text = _SDK_ERRORS.get(grpc_code, _UNKNOWN_REQUEST)
        status = grpc_code.name.title().replace("_", "")
        return AbciAnswer(code=code, log=f"rpc error: code = {status} desc = {e.message}: {text}",
                          codespace="sdk", height=height or router.app.height)
    return AbciAnswer(value=response.SerializeToString(), height=used)


def _app_query(app, path):
    """baseapp's own paths (/app, /store, /p2p), answered as far as this app has them."""
    parts = path.removeprefix("/").split("/")
    height = app.height
    if parts[0] == "app" and parts[1:] == ["version"]:
        return AbciAnswer(value=chaind.__version__.encode(), height=height)
    if parts[0] == "app":
        return _unknown(f"unknown query: {path}")
    if parts[0] == "p2p":
        if len(parts) < 4:
            return _unknown("path should be p2p filter <addr|id> <parameter>")
        if parts[1] != "filter":
            return _unknown("expected second parameter to be 'filter'")
        # No peer filter is set: every peer is accepted, as baseapp answers then.
        return AbciAnswer(height=height)
    return _unknown("unknown query path")


def _provable(app):
    return ("proofs are served for /store/<name>/key only (an IAVL store: "
            + "|".join(n for n in app.stores.mounted if n != multistore.EVM) + ")")


def _store_query(app, parts, data, height, prove):
    """baseapp's /store/<name>/key and /store/<name>/subspace: raw reads of an IAVL store, as rootmulti
    answers them; with `prove`, a key's value comes with its ics23:iavl and ics23:simple proof ops."""
    if len(parts) != 2 or not parts[0]:
        return _unknown(f"invalid store query path /store/{'/'.join(parts)}: expected /store/<name>/key or "
                        f"/store/<name>/subspace")
    name, kind = parts
    if kind not in ("key", "subspace"):
        return _unknown(f"unexpected query path: /{kind}")
    if name == multistore.EVM:
        return _invalid("the evm store is a Merkle-Patricia trie, not an IAVL store: read and prove EVM state "
                        f"over JSON-RPC (eth_getStorageAt, eth_getProof); {_provable(app)}")
    if prove and (height or app.height) <= 1:
        return _invalid("cannot query with proof when height <= 1; please provide a valid height")
    try:
        info = app.store_version(height or None)
    except PrunedError as e:
        return _invalid(f"failed to load state at height {height}; {e} (latest height: {app.height})")
    except LookupError as e:
        return _invalid(str(e))
    if info.root_of(name) is None:
        return _unknown(f"no such store: {name}")
    if kind == "subspace":
        try:
            pairs = app.stores.subspace(info, name, data)
        except OverflowError as e:
            return _invalid(f"{e}: ask a longer prefix ([storage] subspace-max-keys)")
        return AbciAnswer(value=_pairs(pairs), key=data, height=info.version)
    try:
        value, ops = app.stores.read(info, name, data, prove)
    except KeyError as e:
        return _invalid(e.args[0])
    return AbciAnswer(value=value or b"", key=data, height=info.version, proof_ops=ops)


def _pairs(pairs):
    """cosmos.base.kv.v1beta1.Pairs bytes: repeated Pair {bytes key = 1; bytes value = 2} in field 1."""
    out = bytearray()
    for key, value in pairs:
        pair = _field(1, key) + _field(2, value)
        out += _field(1, pair)
    return bytes(out)


def _field(number, data):
    return bytes((number << 3 | 2,)) + uvarint(len(data)) + data


def _invalid(message):
    return AbciAnswer(code=18, log=f"{message}: invalid request", codespace="sdk")


def _unknown(message):
    code, text = _UNKNOWN_REQUEST
    return AbciAnswer(code=code, log=f"{message}: {text}", codespace="sdk")
