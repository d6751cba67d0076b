"""The CLI's client of a node's CometBFT RPC (--node): JSON-RPC over one stdlib HTTP connection.

Queries go through abci_query with the gRPC method path, as the SDK's client does without --grpc-addr.
"""

import base64
import http.client
import json
import urllib.parse

import click

DEFAULT_NODE = "tcp://localhost:26657"
TIMEOUT = 30.0           # seconds; a query or a sync broadcast answers well within this

# The SDK client's sdkErrorToGRPCError: ABCI query codes (codespace sdk) back to gRPC status names.
# 38 (the SDK's ErrNotFound) is mapped too: this node answers a handler's NotFound with it.
_STATUS_OF_CODE = {18: "InvalidArgument", 4: "Unauthenticated", 22: "NotFound", 38: "NotFound"}


class NodeError(click.ClickException):
    """A failure talking to the node, or an error it answered: one line on stderr, exit 1."""


class RpcClient:
    def __init__(self, node):
        self.node = node
        url = urllib.parse.urlsplit(node if "://" in node else "tcp://" + node)
        if url.scheme not in ("tcp", "http", "https") or not url.hostname:
            raise click.UsageError(f"invalid --node {node!r}: want tcp://host:port or http(s)://host:port")
        self._https = url.scheme == "https"
        self._host = url.hostname
        self._port = url.port or (443 if self._https else 80)
        self._path = url.path or "/"
        self._conn = None
        self._id = 0

    def _connection(self):
        if self._conn is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            self._conn = cls(self._host, self._port, timeout=TIMEOUT)
        return self._conn

    def call(self, method, **params):
        """The result of a JSON-RPC call; raises NodeError as CometBFT's client words its errors."""
        self._id += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self._id, "method": method, "params": params})
        try:
            conn = self._connection()
            conn.request("POST", self._path, body, {"Content-Type": "application/json"})
            response = conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as e:
            self._conn = None
            reason = getattr(e, "strerror", None) or str(e) or type(e).__name__
            raise NodeError(f"could not reach node {self.node}: {reason}") from None
        try:
            reply = json.loads(data)
        except ValueError:
            raise NodeError(f"node {self.node} answered HTTP {response.status} with a non-JSON body") from None
        if "error" in reply:
            error = reply["error"]
            if error.get("code") == -32601 and "does not exist/is not available" in str(error.get("message")):
                # geth's words: --node reached an Ethereum JSON-RPC (8545), which has no CometBFT methods.
                raise NodeError(f"--node {self.node} reached port {self._port}, an Ethereum JSON-RPC ({method}: "
                                f"{error['message']}); give the node's CometBFT RPC, {DEFAULT_NODE} by default")
            raise NodeError(f"RPC error {error.get('code')} - {error.get('message')}: {error.get('data', '')}")
        if response.status != 200 or "result" not in reply:
            raise NodeError(f"node {self.node} answered HTTP {response.status} without a result")
        return reply["result"]

    def abci_query(self, path, request, response_class, height=0):
        """The decoded response of a gRPC query method through abci_query; errors as the SDK client prints them."""
        params = {"path": path, "data": request.SerializeToString().hex(), "prove": False}
        if height:
            params["height"] = str(height)
        answer = self.call("abci_query", **params)["response"]
        code = answer.get("code", 0)
        if code:
            log = answer.get("log", "")
            # The node's log is already a gRPC status text, as baseapp writes it; the SDK's client wraps it in
            # another one, which says the same twice.
            if log.startswith("rpc error: code = "):
                raise NodeError(log)
            status = _STATUS_OF_CODE.get(code, "Unknown") if answer.get("codespace") == "sdk" else "Unknown"
            raise NodeError(f"rpc error: code = {status} desc = {log}")
        return response_class.FromString(base64.b64decode(answer.get("value") or ""))

    def query(self, service_module, service, method, at_height=0, **fields):
        """Call `method` of a generated service (e.g. bank query_pb2, "Query", "AllBalances")."""
        descriptor = service_module.DESCRIPTOR.services_by_name[service]
        method_descriptor = descriptor.methods_by_name[method]
        request_class = getattr(service_module, method_descriptor.input_type.name)
        response_class = getattr(service_module, method_descriptor.output_type.name)
        return self.abci_query(f"/{descriptor.full_name}/{method}", request_class(**fields), response_class,
                               at_height)
