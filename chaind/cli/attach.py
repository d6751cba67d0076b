"""`chaind attach`: a JavaScript console (the tracers' QuickJS engine) on a node's EVM JSON-RPC, over HTTP or
its WebSocket (ws://).

eth, net, web3 and debug map onto JSON-RPC calls, as in geth's console: `eth.blockNumber`, `eth.getBlock(n).number`
a number, `eth.sendTransaction({...})`, `web3.fromWei(v, 'ether')`, `debug.traceTransaction(hash, {tracer: '...'})`;
`console.log` and `print` write to the terminal. A REPL (tab completes names), `--exec 'JS'`, or script files.
"""

import contextlib
import json
import re
import sys
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
function num(h) { return h === null || h === undefined ? h : Number(h); }
function big(h) { return h === null || h === undefined ? h : bigInt(h.substring(2), 16); }
function getter(o, name, fn) { Object.defineProperty(o, name, {get: fn, enumerable: true}); }
function fields(o, names, f) {
    if (o === null || o === undefined) return o;
    names.forEach(function (k) { if (o[k] !== undefined) o[k] = f(o[k]); });
    return o;
}
// As web3.js' output formatters in geth's console: quantities as numbers, amounts of wei as big integers.
function outTx(t) {
    if (t === null || typeof t !== "object") return t;
    fields(t, ["blockNumber", "transactionIndex", "nonce", "gas", "type", "chainId", "v"], num);
    return fields(t, ["value", "gasPrice", "maxFeePerGas", "maxPriorityFeePerGas"], big);
}
function outBlock(b) {
    if (b === null) return b;
    fields(b, ["number", "gasLimit", "gasUsed", "size", "timestamp"], num);
    fields(b, ["baseFeePerGas", "difficulty", "totalDifficulty"], big);
    if (b.transactions) b.transactions = b.transactions.map(outTx);
    return b;
}
function outLog(l) { return fields(l, ["blockNumber", "transactionIndex", "logIndex"], num); }
function outReceipt(r) {
    if (r === null) return r;
    fields(r, ["blockNumber", "transactionIndex", "cumulativeGasUsed", "gasUsed", "status", "type"], num);
    fields(r, ["effectiveGasPrice"], big);
    if (r.logs) r.logs = r.logs.map(outLog);
    return r;
}
function hexOf(v) {
    if (typeof v === "number" || bigInt.isInstance(v)) return "0x" + v.toString(16);
    if (typeof v === "string" && /^[0-9]+$/.test(v)) return "0x" + bigInt(v).toString(16);
    return v;
}
// As web3.js' inputTransactionFormatter: numbers (and decimal strings) of quantities go out as hex.
function inTx(tx) {
    var out = {};
    Object.keys(tx || {}).forEach(function (k) { out[k] = tx[k]; });
    return fields(out, ["gas", "gasPrice", "value", "nonce", "maxFeePerGas", "maxPriorityFeePerGas"], hexOf);
}

var UNITS = {noether: 0, wei: 0, kwei: 3, babbage: 3, femtoether: 3, mwei: 6, lovelace: 6, picoether: 6,
             gwei: 9, shannon: 9, nanoether: 9, nano: 9, szabo: 12, microether: 12, micro: 12, finney: 15,
             milliether: 15, milli: 15, ether: 18, kether: 21, grand: 21, mether: 24, gether: 27, tether: 30};
function unitExponent(unit) {
    var name = (unit === undefined ? "ether" : String(unit)).toLowerCase();
    if (!UNITS.hasOwnProperty(name))
        throw new Error("This unit doesn't exists, please use the one of the following units " +
                        JSON.stringify(UNITS));
    return UNITS[name];
}
function decimalOf(v) {
    if (bigInt.isInstance(v)) return v.toString();
    if (typeof v === "number") {
        if (!isFinite(v)) throw new Error("invalid number " + v);
        var text = String(v);
        if (text.indexOf("e") < 0) return text;
        return bigInt(v.toLocaleString("fullwide", {useGrouping: false})).toString();
    }
    var s = String(v).trim();
    if (/^-?0x[0-9a-f]+$/i.test(s)) return (s[0] === "-" ? "-" : "") + bigInt(s.replace(/^-?0x/i, ""), 16).toString();
    if (!/^-?[0-9]+(\.[0-9]*)?$/.test(s)) throw new Error("invalid number value " + JSON.stringify(v));
    return s;
}
function shift(text, places) {
    // A decimal string times 10^places (places may be negative), exact; trailing fraction zeros dropped.
    var negative = text[0] === "-";
    var digits = negative ? text.substring(1) : text;
    var parts = digits.split("."), whole = parts[0], fraction = parts[1] || "";
    if (places >= 0) {
        fraction = fraction + "0".repeat(Math.max(0, places - fraction.length));
        whole = whole + fraction.substring(0, places);
        fraction = fraction.substring(places);
    } else {
        whole = "0".repeat(Math.max(0, -places - whole.length)) + whole;
        fraction = whole.substring(whole.length + places) + fraction;
        whole = whole.substring(0, whole.length + places);
    }
    whole = whole.replace(/^0+(?=[0-9])/, "") || "0";
    fraction = fraction.replace(/0+$/, "");
    var out = fraction ? whole + "." + fraction : whole;
    return negative && out !== "0" ? "-" + out : out;
}
function fromWei(v, unit) { return shift(decimalOf(v), -unitExponent(unit)); }
function toWei(v, unit) {
    var wei = shift(decimalOf(v), unitExponent(unit));
    if (wei.indexOf(".") >= 0) throw new Error("toWei: " + JSON.stringify(v) + " " + (unit || "ether") +
                                               " is a fraction of a wei");
    return bigInt.isInstance(v) ? bigInt(wei) : wei;
}

var eth = {
    getBalance: function (a, b) { return bigInt(call("eth_getBalance", [a, block(b)]).substring(2), 16); },
    getTransactionCount: function (a, b) { return num(call("eth_getTransactionCount", [a, block(b)])); },
    getCode: function (a, b) { return call("eth_getCode", [a, block(b)]); },
    getStorageAt: function (a, p, b) {
        return call("eth_getStorageAt", [a, typeof p === "number" ? "0x" + p.toString(16) : p, block(b)]);
    },
    getBlock: function (b, full) {
        if (typeof b === "string" && b.length === 66) return outBlock(call("eth_getBlockByHash", [b, !!full]));
        return outBlock(call("eth_getBlockByNumber", [block(b), !!full]));
    },
    getTransaction: function (h) { return outTx(call("eth_getTransactionByHash", [h])); },
    getTransactionReceipt: function (h) { return outReceipt(call("eth_getTransactionReceipt", [h])); },
    call: function (tx, b) { return call("eth_call", [inTx(tx), block(b)]); },
    estimateGas: function (tx, b) {
        return num(call("eth_estimateGas", b === undefined ? [inTx(tx)] : [inTx(tx), block(b)]));
    },
    sendTransaction: function (tx) { return call("eth_sendTransaction", [inTx(tx)]); },
    sendRawTransaction: function (raw) { return call("eth_sendRawTransaction", [raw]); },
    getLogs: function (filter) { return call("eth_getLogs", [filter]).map(outLog); },
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

var web3 = {eth: eth, net: net, sha3: function (data) { return call("web3_sha3", [data]); },
            fromWei: fromWei, toWei: toWei, toHex: hexOf};
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
function show(v) {
    if (v === undefined) return "undefined";
    if (typeof v === "function") return "function";
    var s = JSON.stringify(v, null, 2);
    return s === undefined ? String(v) : s;
}
globalThis.__chaind_show = show;
var printLine = globalThis.__chaind_print;
delete globalThis.__chaind_print;
function log() {
    printLine(Array.prototype.map.call(arguments, function (v) {
        if (typeof v === "string") return v;
        var s = v === undefined || typeof v === "function" ? undefined : JSON.stringify(v);
        return s === undefined ? String(v) : s;
    }).join(" "));
}
globalThis.console = {log: log, info: log, warn: log, error: log, debug: log};
globalThis.print = log;
// The names a REPL completes after `expr.` (own and inherited, getters not run); [] when expr is not a name path.
globalThis.__chaind_names = function (expr) {
    var o;
    try { o = expr ? (0, eval)(expr) : globalThis; } catch (e) { return "[]"; }
    if (o === null || o === undefined) return "[]";
    var seen = {};
    for (var p = Object(o); p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p))
        Object.getOwnPropertyNames(p).forEach(function (n) { seen[n] = true; });
    return JSON.stringify(Object.keys(seen));
};
})();
"""

_NAME_PATH = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\Z")


class _Http:
    """JSON-RPC over HTTP: one POST a call."""

    def __init__(self, url):
        self.url = url

    def send(self, body):
        request = urllib.request.Request(self.url, data=body, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=RPC_TIMEOUT) as response:
                return response.read()
        except urllib.error.HTTPError as e:
            return e.read()


class _WebSocket:
    """JSON-RPC over the node's WebSocket: one connection, opened on the first call; a reply is the message
    carrying the call's id (a subscription's notifications are not)."""

    def __init__(self, url):
        self.url = url
        self._connection = None
        self._open = contextlib.ExitStack()
        self._next_id = 0

    def send(self, body):
        from websockets.sync.client import connect

        if self._connection is None:
            self._connection = self._open.enter_context(connect(self.url, max_size=None, open_timeout=30))
        self._next_id += 1
        message = json.loads(body)
        message["id"] = self._next_id
        self._connection.send(json.dumps(message))
        while True:
            text = self._connection.recv(timeout=RPC_TIMEOUT)
            try:
                reply = json.loads(text)
            except ValueError:
                return text
            if not isinstance(reply, dict) or reply.get("id") == self._next_id:
                return text

    def close(self):
        self._open.close()


class Console:
    """One JS context talking to one node."""

    def __init__(self, url, out=None):
        from chaind.tracing.js import console_context

        self.url = url
        self.out = out or sys.stdout
        self._transport = _WebSocket(url) if url.startswith(("ws://", "wss://")) else _Http(url)
        # The tracer prelude gives the console bigInt and the helpers (toHex, toContract...).
        self._ctx = console_context()
        self._ctx.add_callable("__chaind_rpc", self._rpc)
        self._ctx.add_callable("__chaind_print", self._print)
        self._ctx.eval(CONSOLE_JS)
        self._completions = ("", [])

    def _print(self, line):
        self.out.write(line + "\n")
        self.out.flush()

    def close(self):
        if isinstance(self._transport, _WebSocket):
            self._transport.close()

    def _rpc(self, method, params):
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": json.loads(params)}).encode()
        try:
            text = self._transport.send(body)
        except Exception as e:  # noqa: BLE001 (never raise into JS: it would poison the evaluation)
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

    def complete(self, text, state):
        """readline's completer: the names of the console's objects that continue `text` (`eth.getB`)."""
        if state == 0 or self._completions[0] != text:
            head, dot, tail = text.rpartition(".")
            found = []
            if not head or _NAME_PATH.match(head):
                self._ctx.set("__chaind_src", head)
                try:
                    names = json.loads(self._ctx.eval("__chaind_names(__chaind_src)"))
                except Exception:  # noqa: BLE001 (readline silently drops a completer that raises)
                    names = []
                found = sorted(head + dot + n for n in names if n.startswith(tail) and not n.startswith("__chaind"))
            self._completions = (text, found)
        found = self._completions[1]
        return found[state] if state < len(found) else None


def _message(error):
    """The first line of a JS error, without the "Error: " a plain Error (an RPC error) carries."""
    return str(error).split("\n")[0].removeprefix("Error: ")


@click.command()
@click.argument("args", nargs=-1)
@click.option("--exec", "exec_", default=None, metavar="JS", help="Run one expression, print its JSON value, exit")
def attach(args, exec_):
    """Open a JavaScript console on a node: chaind attach [URL] [SCRIPT...]

    URL (http:// or ws://) defaults to http://127.0.0.1:8545. With script files, run them in order and exit.
    """
    url = DEFAULT_URL
    if args and args[0].startswith(("http://", "https://", "ws://", "wss://")):
        url, args = args[0], args[1:]
    console = Console(url)
    try:
        _run(console, args, exec_)
    finally:
        console.close()


def _run(console, args, exec_):
    if exec_ is not None or args:
        sources = []
        for path in args:
            try:
                with open(path) as f:
                    sources.append(f.read())
            except OSError as e:
                raise click.ClickException("cannot read %s: %s" % (path, e.strerror)) from None
        if exec_ is not None:           # after the scripts, which may define what it uses
            sources.append(exec_)
        for source in sources:
            try:
                shown = console.run(source)
            except _quickjs.JSException as e:
                raise click.ClickException(_message(e)) from None
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
    import readline  # line editing and history for input(), and tab completion

    readline.set_completer(console.complete)
    # A name path (`eth.getBlock`) is one word to complete.
    readline.set_completer_delims(" \t\n`~!@#%^&*()-=+[{]}\\|;:'\",<>/?")
    readline.parse_and_bind("tab: complete")
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
