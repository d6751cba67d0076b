"""What the tests share: a node built from settings, and clients of its faces (JSON-RPC URLs, gRPC, REST,
CometBFT RPC, bech32 addresses), each blocking call also offered as a Deferred run off the reactor."""

import fcntl
import hashlib
import io
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import attrs
import grpc
from twisted.internet import defer, reactor, task, threads
from twisted.python import failure

from chaind import config
from chaind.chain import registry
from chaind.crypto.addresses import to_bech32
from chaind.events.types import NewBlock
from chaind.home import DEV_API, Home
from chaind.node import Node

HEIGHT = "x-cosmos-block-height"
COSMPY_REQUIREMENTS = pathlib.Path(__file__).parent / "cosmpy_client" / "requirements.txt"


def make_node(home_path, modules=registry.MODULES, upgrade_handlers=None, **sections):
    """A Node on 127.0.0.1, every face on port 0, a dev home (made if missing), serving `modules`;
    `sections` override settings. Every module's invariants are checked at every block ([debug]); a chain
    that stops (a broken invariant, an upgrade without its handler) stops making blocks and keeps the
    message in node.producer.halted, the reactor running."""
    home = Home(home_path)
    if not home.exists():
        home.init("test", dev=True)
    base = {"chain": {"block_interval": 0.0, "empty_blocks": False},
            # The tests' chain is a dev chain: it serves what a dev home's config enables.
            "json_rpc": {"address": "127.0.0.1:0", "ws_address": "127.0.0.1:0", "api": DEV_API},
            "cometbft_rpc": {"address": "127.0.0.1:0"}, "grpc": {"address": "127.0.0.1:0"},
            "rest": {"address": "127.0.0.1:0"}, "debug": {"check_invariants_every": 1},
            # No trace process kept started (each costs a fork and a warm-up): a JavaScript trace forks its own.
            "tracing": {"js_processes": 0}}
    for name, values in sections.items():
        base.setdefault(name, {}).update(values)
    settings = config.Settings().evolve(**base)
    return Node(home, settings, reactor=reactor, out=io.StringIO(), modules=modules,
                upgrade_handlers=upgrade_handlers, on_halt=lambda message: None)


def chaind_process(*args, input=None, timeout=120):
    """The real `chaind` entry point run as a user runs it, in a process of its own: a CompletedProcess."""
    repo = pathlib.Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(repo), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([str(pathlib.Path(sys.executable).parent / "chaind"), *map(str, args)], env=env,
                          input=input, capture_output=True, text=True, timeout=timeout)


def in_thread(fn, *args, **kwargs):
    """Run a blocking client call (web3.py, grpcio, urllib) off the reactor, as a real client process would."""
    return threads.deferToThread(fn, *args, **kwargs)


@attrs.define(eq=False)
class _Wait:
    """One wait for `condition()` to hold: each check runs once the one before it has answered (a condition
    may return a Deferred: a client call), and the first truthy answer, or the deadline, ends it."""

    condition: object
    what: object            # a text, or a function that gives it (read when the deadline passes)
    timeout: float
    done: defer.Deferred = attrs.field(factory=defer.Deferred)
    checking: bool = False
    again: bool = False
    stops: list = attrs.field(factory=list)

    def start(self):
        deadline = reactor.callLater(self.timeout, self.expire)
        self.stops.append(lambda: deadline.active() and deadline.cancel())
        self.check()
        return self.done

    def expire(self):
        what = self.what() if callable(self.what) else self.what
        self.end(AssertionError(f"waited {self.timeout} s for {what}"))

    def check(self, *_):
        if self.done.called:
            return
        if self.checking:
            self.again = True
            return
        self.checking = True
        defer.maybeDeferred(self.condition).addCallbacks(self.answered, self.end)

    def answered(self, value):
        self.checking = False
        if value:
            self.end(value)
        elif self.again:
            self.again = False
            self.check()

    def end(self, outcome):
        if self.done.called:
            return
        for stop in self.stops:
            stop()
        if isinstance(outcome, (Exception, failure.Failure)):
            self.done.errback(outcome)
        else:
            self.done.callback(outcome)


def until_block(node, condition, what, timeout=30):
    """A Deferred that fires with `condition()`'s first truthy value, checked now and after every block `node`
    commits (its bus announces each one, once app.height names it); the test fails, saying it waited for `what`
    (a text, or a function that gives it), when `timeout` s pass first. For conditions no block brings about:
    `until`."""
    wait = _Wait(condition, what, timeout)

    def cancelled(reason):
        wait.check()                        # the node stopped: one last look, then the deadline decides
    sub = node.bus.subscribe(lambda event: True, capacity=sys.maxsize, kind=NewBlock, on_cancel=cancelled,
                             on_event=lambda: (sub.drain(), wait.check()))
    wait.stops.append(lambda: node.bus.unsubscribe(sub))
    return wait.start()


def until_height(node, height, timeout=30):
    """until_block for `node`'s head reaching `height`."""
    return until_block(node, lambda: node.app.height >= height,
                       lambda: f"height {height} (the head is at {node.app.height})", timeout)


def until_tx(node, tx_hash, evm=False, timeout=30):
    """until_block for the tx of `tx_hash` (bytes, or hex with or without 0x; `evm`: an EVM tx hash) being in a
    committed block: its (height, index)."""
    if isinstance(tx_hash, str):
        tx_hash = bytes.fromhex(tx_hash.removeprefix("0x"))
    return until_block(node, lambda: node.app.tx_position(tx_hash, evm=evm), f"tx {tx_hash.hex()} committed",
                       timeout)


def until(condition, what, timeout=30, every=0.05):
    """until_block's shape for what is not a block of an in-process node (a process ended, a file appeared, a
    node halted): `condition()` checked every `every` s, the first truthy value fired, the test failed after
    `timeout` s. Code that holds the thread while it waits: wait_until."""
    wait = _Wait(condition, what, timeout)
    poll = task.LoopingCall(wait.check)
    wait.stops.append(lambda: poll.running and poll.stop())
    wait.start()
    if not wait.done.called:
        poll.start(every, now=False)
    return wait.done


def on_reactor(fn, *args, **kwargs):
    """From a client thread (in_thread's), call `fn` on the reactor and block until its Deferred fires: a wait
    (until_height, until_block, until) inside a blocking scenario."""
    return threads.blockingCallFromThread(reactor, fn, *args, **kwargs)


def wait_until(condition, what, timeout=30, every=0.05):
    """`until` for code that holds the thread while it waits, with no reactor turning under it (a synchronous
    test against a node in a process of its own): `condition()`'s first truthy value, or the same failure."""
    deadline = time.monotonic() + timeout
    while not (found := condition()):
        if time.monotonic() >= deadline:
            raise AssertionError(f"waited {timeout} s for {what() if callable(what) else what}")
        time.sleep(every)
    return found


def url(node):
    return f"http://127.0.0.1:{node.port_of('json-rpc')}"


def ws_url(node):
    return f"ws://127.0.0.1:{node.port_of('websocket')}"


def b32(node, address):
    """The bech32 form, with the node's prefix, of a 0x address or 20 raw bytes."""
    raw = bytes.fromhex(address[2:]) if isinstance(address, str) else address
    return to_bech32(node.genesis.bech32_prefix, raw)


def grpc_sync(node, stub_class, method, request, height=None, credentials=None):
    """(response, response header metadata) or (None, (status code, message)), over a fresh channel."""
    target = f"127.0.0.1:{node.port_of('grpc')}"
    channel = grpc.secure_channel(target, credentials) if credentials else grpc.insecure_channel(target)
    with channel:
        metadata = ((HEIGHT, str(height)),) if height is not None else None
        try:
            response, call = getattr(stub_class(channel), method).with_call(request, metadata=metadata, timeout=10)
        except grpc.RpcError as e:
            return None, (e.code(), e.details())
        return response, dict(call.initial_metadata())


def call(node, stub_class, method, request, height=None):
    """grpc_sync as a Deferred."""
    return in_thread(grpc_sync, node, stub_class, method, request, height)


def rest_sync(node, path, body=None, height=None):
    """(HTTP status, headers, JSON body) of a GET on the REST gateway (a POST when `body` is given)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{node.port_of('rest')}{path}", data=data,
                                     headers={"content-type": "application/json"})
    if height is not None:
        request.add_header(HEIGHT, str(height))
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), json.loads(e.read())


def rest(node, path, body=None, height=None):
    """rest_sync as a Deferred."""
    return in_thread(rest_sync, node, path, body, height)


def comet(node, method, **params):
    """The JSON-RPC reply object of a CometBFT RPC call (POST to 26657's root)."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{node.port_of('cometbft')}/", data=body,
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=20) as response:
        return json.loads(response.read())


def cosmpy_venv_path():
    """Where the cosmpy venv lives: kept between runs, one per requirements file and Python version."""
    pins = [line.strip() for line in COSMPY_REQUIREMENTS.read_text().splitlines()
            if line.strip() and line[0] != "#"]
    digest = hashlib.sha256("\n".join(pins + [sys.version]).encode()).hexdigest()[:10]
    version = next(p.split("==")[1] for p in pins if p.startswith("cosmpy=="))
    cache = pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache")
    return cache / f"chaind-cosmpy-{version}-py{sys.version_info.major}{sys.version_info.minor}-{digest}"


def build_cosmpy_venv(path):
    """Create the venv once (a lock keeps two test runs from building it together); its python, or an error text."""
    path.parent.mkdir(parents=True, exist_ok=True)
    done = path / "installed.txt"
    with open(f"{path}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.is_file():
            return path / "bin" / "python", None
        shutil.rmtree(path, ignore_errors=True)
        steps = [[sys.executable, "-m", "venv", str(path)],
                 [str(path / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q",
                  "-r", str(COSMPY_REQUIREMENTS)],
                 [str(path / "bin" / "python"), "-m", "pip", "freeze"]]
        for step in steps:
            try:
                run = subprocess.run(step, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
            except subprocess.TimeoutExpired:
                return None, f"{' '.join(step)} timed out after 600 s"
            if run.returncode != 0:
                return None, f"{' '.join(step)} exited {run.returncode}:\n{run.stderr[-3000:]}"
        done.write_text(run.stdout)
        return path / "bin" / "python", None


def free_ports(count):
    """`count` distinct ports free on 127.0.0.1 a moment ago (for processes that take their ports as flags)."""
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


ENGINES_INSTALLER = pathlib.Path(__file__).parent.parent / "tools" / "install-test-engines"


def install_test_engine(name):
    """The path of a real engine (tools/install-test-engines builds it once into a cache outside the repo),
    or an error text."""
    try:
        run = subprocess.run([str(ENGINES_INSTALLER), name], capture_output=True, text=True, timeout=1800,
                             stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, f"{ENGINES_INSTALLER} {name} timed out after 1800 s"
    if run.returncode != 0:
        return None, f"{ENGINES_INSTALLER} {name} exited {run.returncode}:\n{run.stderr[-3000:]}"
    return pathlib.Path(run.stdout.split()[-1]), None


ICS23_CLIENT = pathlib.Path(__file__).parent / "ics23_client"


def ics23_client_path():
    """Where tests/ics23_client is installed: kept between runs, one per package.json."""
    manifest = (ICS23_CLIENT / "package.json").read_bytes()
    cache = pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache")
    return cache / f"chaind-ics23-client-{hashlib.sha256(manifest).hexdigest()[:10]}"


def install_ics23_client(path):
    """npm install of tests/ics23_client at `path` once (a lock keeps two runs from installing together), its
    scripts copied in fresh; None, or an error text."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{path}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (path / "installed").is_file():
            shutil.rmtree(path, ignore_errors=True)
            path.mkdir()
            shutil.copy(ICS23_CLIENT / "package.json", path)
            run = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=path,
                                 capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
            if run.returncode != 0:
                return f"npm install exited {run.returncode}:\n{run.stderr[-3000:]}"
            (path / "installed").write_text(run.stdout)
    for script in ICS23_CLIENT.glob("*.js"):
        shutil.copy(script, path)
    return None
