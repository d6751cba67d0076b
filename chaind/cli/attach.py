"""`chaind attach`: a JavaScript console (the tracers' QuickJS engine) on a node's EVM JSON-RPC.

eth, net, web3 and debug map onto JSON-RPC calls, as in geth's console: `eth.blockNumber`,
`debug.traceTransaction(hash, {tracer: '...'})`. A REPL, `--exec 'JS'`, or script files.
"""

import json
import re
import urllib.error
import urllib.request

import _quickjs
import click

DEFAULT_URL = "http://127.0.0.1:8545"
RPC_TIMEOUT = 600.0                     # seconds; a trace of a large tx takes a while

# The console's objects. `__chaind_rpc(method, paramsJson)` is the Python side: it answers JSON
# {"result": ...} or {"error": {...}} and never throws.
CONSOLE_JS = r"""
(function () {
var rpcCall = globalThis.__chaind_rpc;
delete globalThis.__chaind_rpc;

function call(method, params) {
    var reply = JSON.parse(rpcCall(method, JSON.stringify(params)));
    if (reply.error !== undefined) {
        var e = new Error(reply.error.message);
        e.code = reply.error.code;
        e.data = reply.error.data;
        throw e;
    }
    return reply.result;
}
function block(b) {
    if (b === undefined || b === null) return "latest";
    if (typeof b === "number") return "0x" + b.toString(16);
    if (bigInt.isInstance(b)) return "0x" + b.toString(16);
    return b;
}
function num(h) { return h === null ? null : Number(h); }
function getter(o, name, fn) { Object.defineProperty(o, name, {get: fn, enumerable: true}); }

var eth = {
    getBalance: function (a, b) { return bigInt(call("eth_getBalance", [a, block(b)]).substring(2), 16); },
    getTransactionCount: function (a, b) { return num(call("eth_getTransactionCount", [a, block(b)])); },
    getCode: function (a, b) { return call("eth_getCode", [a, block(b)]); },
    getStorageAt: function (a, p, b) {
        return call("eth_getStorageAt", [a, typeof p === "number" ? "0x" + p.toString(16) : p, block(b)]);
    },
    getBlock: function (b, full) {
        if (typeof b === "string" && b.length === 66) return call("eth_getBlockByHash", [b, !!full]);
        return call("eth_getBlockByNumber", [block(b), !!full]);
    },
    getTransaction: function (h) { return call("eth_getTransactionByHash", [h]); },
    getTransactionReceipt: function (h) { return call("eth_getTransactionReceipt", [h]); },
    call: function (tx, b) { return call("eth_call", [tx, block(b)]); },
    estimateGas: function (tx, b) { return num(call("eth_estimateGas", b === undefined ? [tx] : [tx, block(b)])); },
    sendRawTransaction: function (raw) { return call("eth_sendRawTransaction", [raw]); },
    getLogs: function (filter) { return call("eth_getLogs", [filter]); },
    chainId: function () { return num(call("eth_chainId", [])); }
};
getter(eth, "blockNumber", function () { return num(call("eth_blockNumber", [])); });
getter(eth, "gasPrice", function () { return bigInt(call("eth_gasPrice", []).substring(2), 16); });
getter(eth, "accounts", function () { return call("eth_accounts", []); });
getter(eth, "syncing", function () { return call("eth_syncing", []); });

var net = {};
getter(net, "version", function () { return call("net_version", []); });
getter(net, "listening", function () { return call("net_listening", []); });
getter(net, "peerCount", function () { return num(call("net_peerCount", [])); });

var web3 = {eth: eth, net: net, sha3: function (data) { return call("web3_sha3", [data]); }};
getter(web3, "clientVersion", function () { return call("web3_clientVersion", []); });

function args(list) { return list.filter(function (x) { return x !== undefined; }); }
var debug = {
    traceTransaction: function (h, cfg) { return call("debug_traceTransaction", args([h, cfg])); },
    traceBlockByNumber: function (b, cfg) { return call("debug_traceBlockByNumber", args([block(b), cfg])); },
    traceBlockByHash: function (h, cfg) { return call("debug_traceBlockByHash", args([h, cfg])); },
    traceCall: function (tx, b, cfg) { return call("debug_traceCall", args([tx, block(b), cfg])); }
};
web3.debug = debug;

globalThis.eth = eth;
globalThis.net = net;
globalThis.web3 = web3;
globalThis.debug = debug;
globalThis.rpc = function (method) { return call(method, Array.prototype.slice.call(arguments, 1)); };
globalThis.__chaind_show = function (v) {
    if (v === undefined) return "undefined";
    if (typeof v === "function") return "function";
    var s = JSON.stringify(v, null, 2);
    return s === undefined ? String(v) : s;
};
})();
"""


class Console:
    """One JS context talking to one node."""

    def __init__(self, url):
        from chaind.tracing.js import console_context

        self.url = url
        # The tracer prelude gives the console bigInt and the helpers (toHex, toContract...).
        self._ctx = console_context()
        self._ctx.add_callable("__chaind_rpc", self._rpc)
        self._ctx.eval(CONSOLE_JS)

    def _rpc(self, method, params):
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": json.loads(params)}).encode()
        request = urllib.request.Request(self.url, data=body, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=RPC_TIMEOUT) as response:
                text = response.read()
        except urllib.error.HTTPError as e:
            text = e.read()
        except Exception as e:          # never raise into JS: it would poison the evaluation
            return json.dumps({"error": {"code": -32603, "message": "could not reach %s: %s" % (self.url, e)}})
        try:
            reply = json.loads(text)
        except ValueError:
            return json.dumps({"error": {"code": -32603, "message": "not a JSON-RPC reply: %r" % text[:200]}})
        if not isinstance(reply, dict) or ("result" not in reply and "error" not in reply):
            return json.dumps({"error": {"code": -32603, "message": "not a JSON-RPC reply: %r" % text[:200]}})
        return json.dumps({"error": reply["error"]} if "error" in reply else {"result": reply["result"]})

    def run(self, source):
        """The value of `source` as the console shows it (JSON, or `undefined`); JSException on error."""
        self._ctx.set("__chaind_src", source)
        return self._ctx.eval("__chaind_show((0, eval)(__chaind_src))")


def _message(error):
    """The first line of a JS error, without the "Error: " a plain Error (an RPC error) carries."""
    return str(error).split("\n")[0].removeprefix("Error: ")


@click.command()
@click.argument("args", nargs=-1)
@click.option("--exec", "exec_", default=None, metavar="JS", help="Run one expression, print its JSON value, exit")
def attach(args, exec_):
    """Open a JavaScript console on a node: chaind attach [URL] [SCRIPT...]

    URL defaults to http://127.0.0.1:8545. With script files, run them in order and exit.
    """
    url = DEFAULT_URL
    if args and args[0].startswith(("http://", "https://")):
        url, args = args[0], args[1:]
    console = Console(url)
    if exec_ is not None or args:
        sources = []
        for path in args:
            try:
                with open(path) as f:
                    sources.append(f.read())
            except OSError as e:
                raise click.ClickException("cannot read %s: %s" % (path, e.strerror))
        if exec_ is not None:           # after the scripts, which may define what it uses
            sources.append(exec_)
        for source in sources:
            try:
                shown = console.run(source)
            except _quickjs.JSException as e:
                raise click.ClickException(_message(e))
        if exec_ is not None:
            click.echo(shown)
        return
    _repl(console)


def _unfinished(error, source):
    """Whether a syntax error is where the input stops (or an open string), so the REPL reads on."""
    text = str(error)
    if not text.startswith("SyntaxError"):
        return False
    if "unexpected end of" in text.split("\n")[0]:
        return True
    where = re.search(r"at <input>:(\d+):(\d+)", text)
    return where is not None and int(where.group(1)) > source.rstrip().count("\n") + 1


def _repl(console):
    import readline  # noqa: F401  (line editing and history for input())

    click.echo("chaind JavaScript console on %s; eth, net, web3, debug. Ctrl-D to quit." % console.url)
    pending = ""
    while True:
        try:
            line = input("... " if pending else "> ")
        except EOFError:
            click.echo()
            return
        except KeyboardInterrupt:
            click.echo()
            pending = ""
            continue
        source = pending + line + "\n"
        if not source.strip():
            continue
        try:
            click.echo(console.run(source))
            pending = ""
        except _quickjs.JSException as e:
            if _unfinished(e, source):
                pending = source
            else:
                click.echo("Error: " + _message(e), err=True)
                pending = ""
