"""Issue 4's bars on 26657: tx_search by EVM hash at 10,000 and 100,000 indexed txs, and NewBlock fan-out.

The chain is filled without a node, through the real App: finalize_block and commit with many
signed EVM transfers per block (as tests/chain_driver.py drives it), the node's validator key
signing the commits, in the node's own home; then the node is started on that home and measured.
This process times `GET /tx_search?query="ethereum_tx.ethereumTxHash='0x...'"` on one keep-alive
connection (random hashes of indexed txs); at the biggest size it times the heavy reads (block_results of a
full block, blockchain, block_search over 100 full blocks) and /health on a second connection while
those run, which shows whether they hold the reactor; then 1,000 WebSocket connections each subscribe to
`tm.event='NewBlock'` on /websocket, held on one epoll with a minimal client, and each block
(one transfer sent over HTTP in instant mode) is timed from the send (before the commit, so an
upper bound) to the last subscriber's notification; every subscriber must get that block.

    python bench/cometbft_search.py [--sizes 10000,100000] [--per-block 700]
        [--queries 1000] [--heavy 50] [--subscribers 1000] [--rounds 30] [--profile PREFIX]
"""

import argparse
import hashlib
import http.client
import json
import pathlib
import random
import select
import shutil
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse

from cryptography.hazmat.primitives.asymmetric import ed25519
from eth_account import Account

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from chaind.chain import txs as chain_txs
from chaind.chain.app import App
from chaind.chain.genesis import Genesis
from chaind.chain.options import AppOptions
from chaind.home import Home
from chaind.store.db import Database
from devnode import DevNode, Profile
from rawws import RawWebSocket
from results import Result, run_script

SEARCH_BAR_MS = 5.0
FLAT_BAR = 1.5          # p50 at the biggest size over p50 at the smallest, at most
FANOUT_BAR_MS = 100.0
EVM_CHAIN_ID = 9000
RECIPIENT = "0x0000000000000000000000000000000000000B0b"


def transfer(key, nonce):
    signed = Account.sign_transaction({
        "type": 2, "chainId": EVM_CHAIN_ID, "nonce": nonce, "to": RECIPIENT, "value": 1, "gas": 21000,
        "maxFeePerGas": 100 * 10**9, "maxPriorityFeePerGas": 10**9}, key.private_key)
    return bytes(signed.raw_transaction), "0x" + bytes(signed.hash).hex()


class Filler:
    """Adds blocks of EVM transfers to a home's chain through App.finalize_block/commit."""

    def __init__(self, home):
        self.home = home
        self.genesis = Genesis.load(home.genesis_file)
        self.keys = home.dev_keys()
        self.hashes = []

    def fill(self, target, per_block):
        db = Database(self.home.data_dir / "chain.db")
        try:
            # As the node sets them: its validator signs each block's commit, the next header hashes it.
            validator = self.genesis.validators[0]
            app = App(db, self.genesis, AppOptions(
                vote_key=ed25519.Ed25519PrivateKey.from_private_bytes(self.home.validator_key()),
                validator_address=hashlib.sha256(validator.consensus_pubkey).digest()[:20]))
            proposer = app.options.validator_address
            started, signing = time.monotonic(), 0.0
            while len(self.hashes) < target:
                count = min(per_block, target - len(self.hashes))
                t = time.monotonic()
                # Spread over the dev accounts so no one sender's nonce runs far ahead.
                key = self.keys[app.height % len(self.keys)]
                nonce = app.view().accounts.get_nonce(key.address)
                raws = []
                for i in range(count):
                    raw, evm_hash = transfer(key, nonce + i)
                    raws.append(chain_txs.wrap_evm(raw, EVM_CHAIN_ID, self.genesis.base_denom).raw)
                    self.hashes.append(evm_hash)
                signing += time.monotonic() - t
                block, puts = app.finalize_block(raws, time.time_ns(), proposer)
                bad = [r.log for r in block.results if r.code != 0]
                if bad:
                    raise SystemExit(f"block {block.height}: {len(bad)} txs failed, first: {bad[0]}")
                app.commit(block, puts)
            elapsed = time.monotonic() - started
            print(f"  filled to {len(self.hashes):,} txs at height {app.height} in {elapsed:.0f} s "
                  f"({signing:.0f} s signing, the rest finalize_block + commit)")
        finally:
            db.close()


def search_latencies(node, hashes, queries):
    conn = http.client.HTTPConnection("127.0.0.1", node.comet_port, timeout=10)
    rng = random.Random(4)
    sample = [rng.choice(hashes) for _ in range(queries + 100)]
    times = []
    for n, evm_hash in enumerate(sample):
        query = urllib.parse.quote(f"\"ethereum_tx.ethereumTxHash='{evm_hash}'\"")
        t = time.perf_counter()
        conn.request("GET", f"/tx_search?query={query}")
        body = conn.getresponse().read()
        elapsed = time.perf_counter() - t
        result = json.loads(body).get("result")
        if result is None or result["total_count"] != "1":
            raise SystemExit(f"tx_search for {evm_hash} answered {body[:300]!r}")
        if n >= 100:        # warm-up
            times.append(elapsed * 1000)
    conn.close()
    times.sort()
    return times[len(times) // 2], times[int(len(times) * 0.99)]


def timed_get(conn, path):
    t = time.perf_counter()
    conn.request("GET", path)
    response = conn.getresponse()
    body = response.read()
    if response.status != 200:
        raise SystemExit(f"GET {path} answered {response.status}: {body[:300]!r}")
    return (time.perf_counter() - t) * 1000


def heavy_reads(node, height, count):
    """p50 of each heavy route alone, then /health p50/p99 while a second client loops over them."""
    paths = {"block_results (a full block)": f"/block_results?height={height}",
             "blockchain (20 metas)": "/blockchain",
             "block_search (100 full blocks)": "/block_search?per_page=100&query=" +
             urllib.parse.quote('"block.height>=1"')}
    conn = http.client.HTTPConnection("127.0.0.1", node.comet_port, timeout=30)
    alone = {}
    for name, path in paths.items():
        times = sorted(timed_get(conn, path) for _ in range(count))
        alone[name] = times[len(times) // 2]
    stop = threading.Event()

    def load():
        heavy = http.client.HTTPConnection("127.0.0.1", node.comet_port, timeout=30)
        while not stop.is_set():
            for path in paths.values():
                timed_get(heavy, path)
        heavy.close()

    loader = threading.Thread(target=load)
    loader.start()
    time.sleep(0.2)
    try:
        health = sorted(timed_get(conn, "/health") for _ in range(count * 10))
    finally:
        stop.set()
        loader.join()
    conn.close()
    return alone, health[len(health) // 2], health[int(len(health) * 0.99)]


class Subscriber(RawWebSocket):
    """One /websocket connection subscribed to tm.event='NewBlock'."""

    def __init__(self, port):
        super().__init__(f"ws://127.0.0.1:{port}/websocket")
        reply = self.call({"jsonrpc": "2.0", "id": 7, "method": "subscribe",
                           "params": {"query": "tm.event='NewBlock'"}})
        if reply.get("result") != {}:
            raise SystemExit(f"subscribe refused: {str(reply)[:300]}")
        self.sock.setblocking(False)


def fanout_round(node, subscribers, poll, raw_hex, tx_hash):
    by_fd = {s.sock.fileno(): s for s in subscribers}
    arrived, messages = {}, {}
    start = time.monotonic()
    node.rpc("eth_sendRawTransaction", raw_hex)
    deadline = start + 10
    while len(messages) < len(subscribers):
        if time.monotonic() > deadline:
            raise SystemExit(f"only {len(messages)} of {len(subscribers)} subscribers notified within 10 s")
        for fd, _ in poll.poll(1.0):
            sub = by_fd[fd]
            sub.buffer += sub.recv()
            message = sub.next_message()
            if message is not None:
                arrived[fd] = time.monotonic()
                messages[fd] = message
    # Not timed: each subscriber got the NewBlock of the block holding the tx.
    height = str(int(node.rpc("eth_getTransactionReceipt", tx_hash)["result"]["blockNumber"], 16))
    for message in messages.values():
        result = json.loads(message)["result"]
        if result["data"]["type"] != "tendermint/event/NewBlock" or \
                result["data"]["value"]["block"]["header"]["height"] != height:
            raise SystemExit(f"a subscriber got {str(result)[:300]}, not NewBlock {height}")
    times = sorted(arrived.values())
    return (times[-1] - start) * 1000, (times[-1] - times[0]) * 1000, (times[0] - start) * 1000


def fanout(node, home, subscribers_count, rounds, profile):
    key = home.dev_keys()[-1]
    nonce = int(node.rpc("eth_getTransactionCount", "0x" + key.address.hex(), "latest")["result"], 16)
    sends = []
    for i in range(rounds + 3):
        raw, evm_hash = transfer(key, nonce + i)
        sends.append(("0x" + raw.hex(), evm_hash))
    started = time.monotonic()
    subscribers = [Subscriber(node.comet_port) for _ in range(subscribers_count)]
    print(f"  {len(subscribers)} tm.event='NewBlock' subscribers connected in {time.monotonic() - started:.1f} s")
    poll = select.epoll()
    for s in subscribers:
        poll.register(s.sock.fileno(), select.EPOLLIN)
    with Profile(node.pid, profile):
        results = [fanout_round(node, subscribers, poll, *send) for send in sends][3:]    # warm-up blocks
    for s in subscribers:
        s.sock.close()
    return results


def measure(args):
    results = []
    sizes = [int(s) for s in args.sizes.split(",")]
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="chaind-bench-comet-"))
    try:
        home = Home(tmp / "home")
        home.init("bench", dev=True)
        filler = Filler(home)
        p50s = {}
        for size in sizes:
            print(f"{size:,} indexed txs:")
            filler.fill(size, args.per_block)
            with DevNode("[chain]\nblock-interval = 0\n",
                         "max-subscription-clients = 1000\nmax-open-connections = 1100\n", home=home,
                         start_timeout=120) as node:
                with Profile(node.pid, args.profile and f"{args.profile}-search-{size}.txt"):
                    p50, p99 = search_latencies(node, filler.hashes, args.queries)
                p50s[size] = p50
                print(f"  tx_search by ethereum_tx.ethereumTxHash ({args.queries} queries, one keep-alive "
                      f"connection): p50 {p50:.2f} ms  p99 {p99:.2f} ms")
                if size == sizes[-1] and args.heavy:
                    alone, health_p50, health_p99 = heavy_reads(node, 2, args.heavy)
                    for name, p50 in alone.items():
                        print(f"  {name}: p50 {p50:.1f} ms")
                    print(f"  /health while those run on another connection: p50 {health_p50:.2f} ms  "
                          f"p99 {health_p99:.2f} ms")
                if size == sizes[-1] and args.subscribers:
                    rounds = fanout(node, home, args.subscribers, args.rounds,
                                    args.profile and f"{args.profile}-fanout.txt")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    worst = max(p50s.values())
    print(f"bar: tx_search p50 under {SEARCH_BAR_MS:g} ms  ratio worst/bar {worst / SEARCH_BAR_MS:.2f}  "
          f"{'PASS' if worst < SEARCH_BAR_MS else 'FAIL'}")
    results.append(Result("comet.tx_search_p50", "tx_search by EVM hash p50, worst of "
                          + " and ".join(f"{size:,}" for size in sizes) + " txs", "ms",
                          worst, SEARCH_BAR_MS, higher=False, issue=4,
                          note=", ".join(f"{size:,}: {p50:.2f}" for size, p50 in p50s.items())))
    if len(sizes) > 1:
        growth = p50s[sizes[-1]] / p50s[sizes[0]]
        print(f"bar: flat from {sizes[0]:,} to {sizes[-1]:,} txs (p50 ratio at most {FLAT_BAR:g})  "
              f"ratio {growth:.2f}  {'PASS' if growth <= FLAT_BAR else 'FAIL'}")
        results.append(Result("comet.tx_search_flat", f"tx_search p50 at {sizes[-1]:,} / at {sizes[0]:,} txs", "x",
                              growth, FLAT_BAR, higher=False, issue=4))
    if args.subscribers:
        to_last = sorted(r[0] for r in rounds)
        spread = sorted(r[1] for r in rounds)
        to_first = sorted(r[2] for r in rounds)
        print(f"NewBlock fan-out: {len(rounds)} blocks, {args.subscribers} subscribers each:")
        print(f"  send -> first notification: median {statistics.median(to_first):.1f} ms  max {to_first[-1]:.1f} ms")
        print(f"  first -> last notification: median {statistics.median(spread):.1f} ms  max {spread[-1]:.1f} ms")
        print(f"  send -> last notification:  median {statistics.median(to_last):.1f} ms  max {to_last[-1]:.1f} ms "
              f"(commit -> last is at most this)")
        print(f"bar: all notified within {FANOUT_BAR_MS:g} ms of the commit  ratio worst/bar "
              f"{to_last[-1] / FANOUT_BAR_MS:.2f}  {'PASS' if to_last[-1] < FANOUT_BAR_MS else 'FAIL'}")
        results.append(Result("comet.newblock_fanout",
                              f"{args.subscribers:,} NewBlock subscribers: send to last, worst block", "ms",
                              to_last[-1], FANOUT_BAR_MS, higher=False, issue=4,
                              note=f"median {statistics.median(to_last):.1f} ms over {len(to_last)} blocks"))
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="indexed tx counts measured, ascending")
    parser.add_argument("--per-block", type=int, default=700,
                        help="transfers per block while filling (700 stays under the gas target: base fee flat)")
    parser.add_argument("--queries", type=int, default=1000, help="tx_search requests timed per size")
    parser.add_argument("--heavy", type=int, default=50, help="requests timed per heavy route (0: skip)")
    parser.add_argument("--subscribers", type=int, default=1000, help="WebSocket connections, one NewBlock each")
    parser.add_argument("--rounds", type=int, default=30, help="blocks timed for the fan-out, one transfer each")
    parser.add_argument("--profile", metavar="PREFIX", help="record the node with py-spy (PREFIX-search-N.txt, "
                                                            "PREFIX-fanout.txt; collapsed stacks)")
    run_script(parser, measure, argv)


if __name__ == "__main__":
    main()
