"""Tracing bars of issue 3, end to end: debug_traceTransaction over HTTP on a real node, read by a client.

A committed tx loops SLOAD/SSTORE/KECCAK256 and makes a nested CALL (bench/trace_throughput.py's
program); prints entries/s of the raw trace and steps/s of the SLOAD/SSTORE filter tracer (request
to last byte), the node's peak RSS growth while a >= 300 MB raw trace streams to a reading client,
and meanwhile eth_blockNumber p99 latency from another process and the block interval, each with
its ratio to the bar.

    python bench/trace_e2e.py [--iterations 4166] [--big-iterations 31000] [--big-runs 2] [--runs 5]
"""

import argparse
import itertools
import json
import multiprocessing
import pathlib
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

import orjson
from eth_account import Account

from chaind.tracing.js.examples import STORAGE_VALUES
from devnode import DEV0, DevNode, rss_mb
from results import Result, run_script
from trace_throughput import CALLEE, CALLEE_CODE, LOOP_CODE

DEV0_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"   # dev account 0
CHAIN_ID = 9000
ENTRIES_BAR = 150_000           # raw struct-log entries/s, request to last byte
STEPS_BAR = 120_000             # filter tracer steps/s
RSS_BAR = 100.0                 # MB of peak RSS growth while a >= 300 MB trace streams
BIG_TRACE_BYTES = 300_000_000
P99_BAR = 0.050                 # s, eth_blockNumber while that trace streams
INTERVAL = 1.0                  # s, the node's block interval (empty blocks on)
PROBE_EVERY = 0.01              # s between two eth_blockNumber probes
BIG_CONFIG = {"timeout": "60s"}  # the default 5 s bounds a ~4 s trace too closely on a busy box

# The interface document's third filter script (geth's tracing docs), verbatim.
FILTER = STORAGE_VALUES


# -- a minimal HTTP/1.1 client: time to last byte without client-side overhead -------------------

def post(url, method, params, keep=False, on_chunk=None):
    """POST one JSON-RPC request on a fresh connection; (seconds to the last byte, body bytes, body or None).

    The chunked body is decoded as it arrives; with keep=False it is counted, not kept.
    """
    address = urllib.parse.urlsplit(url)
    body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    request = (b"POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
               b"Connection: close\r\n\r\n%s" % (address.netloc.encode(), len(body), body))
    kept = [] if keep else None
    with socket.create_connection((address.hostname, address.port)) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        started = time.perf_counter()
        sock.sendall(request)
        reader = _Reader(sock)
        head = reader.until(b"\r\n\r\n")
        status = head.split(b"\r\n", 1)[0]
        if b" 200 " not in status:
            raise SystemExit(f"HTTP error: {status!r}")
        headers = {k.strip().lower(): v.strip() for k, _, v in
                   (line.partition(b":") for line in head.split(b"\r\n")[1:])}
        total = 0
        if headers.get(b"transfer-encoding") == b"chunked":
            while True:
                size = int(reader.until(b"\r\n").split(b";")[0], 16)
                if size == 0:
                    reader.until(b"\r\n")
                    break
                for piece in reader.exactly(size):
                    total += len(piece)
                    if kept is not None:
                        kept.append(piece)
                    if on_chunk is not None:
                        on_chunk(total)
                reader.until(b"\r\n")
        else:
            for piece in reader.exactly(int(headers[b"content-length"])):
                total += len(piece)
                if kept is not None:
                    kept.append(piece)
        elapsed = time.perf_counter() - started
    return elapsed, total, (b"".join(kept) if kept is not None else None)


class _Reader:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def _more(self):
        data = self.sock.recv(1 << 20)
        if not data:
            raise SystemExit("connection closed mid-response")
        self.buf += data

    def until(self, marker):
        while True:
            end = self.buf.find(marker)
            if end >= 0:
                line, self.buf = self.buf[:end], self.buf[end + len(marker):]
                return line
            self._more()

    def exactly(self, size):
        """Yields the next `size` bytes in pieces as they arrive."""
        while size:
            if not self.buf:
                self._more()
            piece, self.buf = self.buf[:size], self.buf[size:]
            size -= len(piece)
            yield piece


def slow_read(url, method, params, rate, seconds):
    """POST, then read the response at about `rate` bytes/s for `seconds` and hang up; bytes read."""
    address = urllib.parse.urlsplit(url)
    body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    request = (b"POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
               b"Connection: close\r\n\r\n%s" % (address.netloc.encode(), len(body), body))
    total = 0
    with socket.create_connection((address.hostname, address.port)) as sock:
        sock.sendall(request)
        started = time.monotonic()
        while time.monotonic() - started < seconds:
            data = sock.recv(16384)
            if not data:
                break
            total += len(data)
            ahead = total / rate - (time.monotonic() - started)
            if ahead > 0:
                time.sleep(ahead)
    return total


def rpc(url, method, *params):
    _, _, body = post(url, method, list(params), keep=True)
    reply = orjson.loads(body)
    if "error" in reply:
        raise SystemExit(f"{method}: {reply['error']}")
    return reply["result"]


# -- the chain side ------------------------------------------------------------------------------

class Sender:
    def __init__(self, url):
        self.url = url
        self.nonce = int(rpc(url, "eth_getTransactionCount", DEV0, "pending"), 16)

    def send(self, to=None, data=b"", gas=1_000_000):
        tx = {"type": 2, "chainId": CHAIN_ID, "nonce": self.nonce, "gas": gas, "maxFeePerGas": 100 * 10**9,
              "maxPriorityFeePerGas": 10**9, "value": 0, "data": data}
        if to is not None:
            tx["to"] = to
        self.nonce += 1
        signed = Account.sign_transaction(tx, DEV0_KEY)
        tx_hash = rpc(self.url, "eth_sendRawTransaction", "0x" + bytes(signed.raw_transaction).hex())
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            receipt = rpc(self.url, "eth_getTransactionReceipt", tx_hash)
            if receipt is not None:
                if receipt["status"] != "0x1":
                    raise SystemExit(f"tx {tx_hash} failed: {receipt}")
                return receipt
            time.sleep(0.05)
        raise SystemExit(f"tx {tx_hash} not committed in 30 s")


def deploy(sender, runtime):
    # PUSH2 len DUP1 PUSH1 12 PUSH1 0 CODECOPY PUSH1 0 RETURN, then the runtime code.
    init = bytes([0x61]) + len(runtime).to_bytes(2, "big") + bytes([0x80, 0x60, 12, 0x60, 0, 0x39, 0x60, 0, 0xF3])
    return sender.send(data=init + runtime, gas=2_000_000)["contractAddress"]


def loop_call(sender, loop, iterations, gas):
    return sender.send(to=loop, data=iterations.to_bytes(32, "big"), gas=gas)


# -- measurements --------------------------------------------------------------------------------

def ratio(value, bar, lower_is_better=False):
    meets = value <= bar if lower_is_better else value >= bar
    return f"x{value / bar:.2f} of the bar ({'meets' if meets else 'MISSES'})"


def timed_traces(url, tx_hash, config, runs, profile=None):
    """Median and best seconds, request to last byte, of `runs` traces of the tx with `config`.

    profile: (node pid, output path) to record the node with py-spy meanwhile (collapsed stacks).
    """
    spy = None
    if profile:
        py_spy = shutil.which("py-spy") or str(pathlib.Path(sys.executable).with_name("py-spy"))
        spy = subprocess.Popen([py_spy, "record", "--nonblocking", "--threads", "-r", "250", "-f", "raw",
                                "-p", str(profile[0]), "-o", profile[1]],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)
    times = [post(url, "debug_traceTransaction", [tx_hash, config])[0] for _ in range(runs)]
    if spy is not None:
        spy.send_signal(signal.SIGINT)
        spy.wait(timeout=60)
    return statistics.median(times), min(times)


def probe(url, stop, out):
    """Another client: eth_blockNumber every PROBE_EVERY s on one keep-alive connection until `stop`."""
    import http.client

    address = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(address.hostname, address.port, timeout=30)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []})
    samples = []      # (sent at, latency, height)
    while not stop.is_set():
        sent = time.monotonic()
        conn.request("POST", "/", body, {"content-type": "application/json"})
        height = int(json.loads(conn.getresponse().read())["result"], 16)
        samples.append((sent, time.monotonic() - sent, height))
        pause = PROBE_EVERY - (time.monotonic() - sent)
        if pause > 0:
            time.sleep(pause)
    out.put(samples)


def p99(values):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * 0.99))]


def block_intervals(samples, start, end):
    """Seconds between the first sightings of consecutive heights seen within [start, end]."""
    seen = []
    last = None
    for sent, latency, height in samples:
        if height != last:
            if last is not None and start <= sent <= end:
                seen.append(sent + latency)
            last = height
    return [b - a for a, b in itertools.pairwise(seen)]


class HighWater:
    """The node's peak RSS while something runs: VmHWM reset at start (clear_refs 5) and VmRSS sampled."""

    def __init__(self, pid):
        self.pid = pid
        self.peak = 0.0
        self._stop = threading.Event()

    def __enter__(self):
        try:
            with open(f"/proc/{self.pid}/clear_refs", "w") as f:
                f.write("5")
            self.reset = True
        except OSError:
            self.reset = False
        self.before = rss_mb(self.pid)
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, rss_mb(self.pid))

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        if self.reset:
            with open(f"/proc/{self.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        self.peak = max(self.peak, int(line.split()[1]) / 1024)

    @property
    def growth(self):
        return max(0.0, self.peak - self.before)


def stream_big(node, big_hash, runs, parallel):
    """(c) and (d): a >= 300 MB raw trace, `runs` times, to a client reading it as fast as it comes;
    meanwhile another process asks eth_blockNumber every PROBE_EVERY s."""
    spawn = multiprocessing.get_context("spawn")
    stop, out = spawn.Event(), spawn.Queue()
    prober = spawn.Process(target=probe, args=(node.url, stop, out))
    prober.start()
    time.sleep(3)          # a baseline before the trace
    with HighWater(node.pid) as memory:
        trace_start = time.monotonic()
        for _ in range(runs):
            results = []
            readers = [threading.Thread(target=lambda results=results: results.append(
                post(node.url, "debug_traceTransaction", [big_hash, BIG_CONFIG]))) for _ in range(parallel)]
            for reader in readers:
                reader.start()
            for reader in readers:
                reader.join()
            seconds, size, _ = max(results)
        trace_end = time.monotonic()
    time.sleep(1)
    stop.set()
    samples = out.get(timeout=30)
    prober.join()
    # The same trace to a client reading 10 MB/s that hangs up after 3 s: back-pressure, then cancel.
    with HighWater(node.pid) as slow_memory:
        read = slow_read(node.url, "debug_traceTransaction", [big_hash, BIG_CONFIG], 10e6, 3)
    if size < BIG_TRACE_BYTES:
        print(f"warning: the big trace is only {size / 1e6:.0f} MB; raise --big-iterations")
    print(f"big tx {big_hash}: raw trace {size / 1e6:.0f} MB in {seconds:.1f} s ({size / 1e6 / seconds:.0f} MB/s), "
          f"streamed {runs} times to {parallel} client(s) at once in this process")
    print(f"(c) node peak RSS growth: {memory.growth:.1f} MB (RSS before {memory.before:.1f} MB, peak "
          f"{memory.peak:.1f} MB)  {ratio(memory.growth, RSS_BAR, True)} of < {RSS_BAR:.0f} MB")
    print(f"    to a client reading 10 MB/s ({read / 1e6:.0f} MB in 3 s, then it hangs up): peak RSS growth "
          f"{slow_memory.growth:.1f} MB  {ratio(slow_memory.growth, RSS_BAR, True)}")
    during = [latency for sent, latency, _ in samples if trace_start <= sent <= trace_end]
    before = [latency for sent, latency, _ in samples if sent < trace_start]
    print(f"(d) eth_blockNumber every {PROBE_EVERY * 1000:.0f} ms from another process while it streams: "
          f"p99 {p99(during) * 1000:.1f} ms, max {max(during) * 1000:.1f} ms over {len(during)} calls  "
          f"{ratio(p99(during), P99_BAR, True)} of < {P99_BAR * 1000:.0f} ms "
          f"(idle before: p99 {p99(before) * 1000:.1f} ms)")
    intervals = block_intervals(samples, trace_start, trace_end)
    if intervals:
        print(f"    block interval while it streams: mean {statistics.mean(intervals):.2f} s, "
              f"max {max(intervals):.2f} s over {len(intervals)} blocks (block-interval {INTERVAL:g} s)  "
              f"max {ratio(max(intervals), INTERVAL * 1.5, True)} of < {INTERVAL * 1.5:g} s")
    else:
        print("    block interval: MISSES: no new block while it streamed")
    # No block while it streamed counts as an interval as long as the stream.
    worst_interval = max(intervals) if intervals else trace_end - trace_start
    return [
        Result("trace.big_rss", f"node peak RSS growth, {size / 1e6:.0f} MB raw trace streaming", "MB",
               memory.growth, RSS_BAR, higher=False, issue=3, note=f"slow reader: {slow_memory.growth:.1f} MB"),
        Result("trace.big_p99", "eth_blockNumber p99 while it streams", "ms", p99(during) * 1000, P99_BAR * 1000,
               higher=False, issue=3),
        Result("trace.big_interval", f"block interval while it streams (block-interval {INTERVAL:g} s), max", "s",
               worst_interval, INTERVAL * 1.5, higher=False, issue=3),
    ]


def measure(args):
    results = []
    config = (f'api = "eth,net,web3,txpool,debug"\n[chain]\nblock-interval = {INTERVAL}\nempty-blocks = true\n'
              + args.config)
    with DevNode(config) as node:
        sender = Sender(node.url)
        callee = bytes.fromhex(deploy(sender, CALLEE_CODE)[2:])
        loop = deploy(sender, LOOP_CODE.replace(CALLEE, callee))
        small = loop_call(sender, loop, args.iterations, gas=10_000_000)
        per_iteration = int(small["gasUsed"], 16) / args.iterations
        block_gas = int(rpc(node.url, "eth_getBlockByNumber", "latest", False)["gasLimit"], 16)
        big_gas = min(block_gas, int(per_iteration * args.big_iterations * 1.2) + 100_000)
        big = loop_call(sender, loop, args.big_iterations, gas=big_gas)
        tx_hash, big_hash = small["transactionHash"], big["transactionHash"]
        if not args.skip_big:
            # first, on a node that has traced nothing yet
            results += stream_big(node, big_hash, args.big_runs, args.parallel)

        # The whole raw trace once, parsed: its entry count and size, and a check it is the tx's.
        _, size, body = post(node.url, "debug_traceTransaction", [tx_hash, {}], keep=True)
        trace = orjson.loads(body)["result"]
        entries = len(trace["structLogs"])
        assert trace["gas"] == int(small["gasUsed"], 16) and not trace["failed"], trace["gas"]
        assert any(e["op"] == "CALL" for e in trace["structLogs"]) and any(e["depth"] == 2 for e in trace["structLogs"])
        del trace, body
        print(f"tx {tx_hash}: {entries:,} opcodes (nested CALL included), raw trace {size / 1e6:.1f} MB; "
              f"median of {args.runs} runs, request to last byte, client in another process")

        seconds, best = timed_traces(node.url, tx_hash, {}, args.runs,
                                     args.profile and (node.pid, args.profile + "-raw.txt"))
        print(f"(a) raw struct-log trace: {seconds:.3f} s  {entries / seconds:,.0f} entries/s "
              f"(best {entries / best:,.0f})  {ratio(entries / seconds, ENTRIES_BAR)} of {ENTRIES_BAR:,}/s")
        results.insert(0, Result("trace.raw_entries", "raw struct-log trace, ~100,000 ops, request to last byte",
                                 "entries/s", entries / seconds, ENTRIES_BAR, issue=3,
                                 compare="trace.raw_entries", note=f"median of {args.runs}"))

        _, _, body = post(node.url, "debug_traceTransaction", [tx_hash, {"tracer": FILTER}], keep=True)
        lines = orjson.loads(body)["result"]     # the callee SLOADs once too
        assert len(lines) == 2 * args.iterations + 1 and lines[0].split(": ")[1].startswith("SLOAD"), lines[:2]
        seconds, best = timed_traces(node.url, tx_hash, {"tracer": FILTER}, args.runs,
                                     args.profile and (node.pid, args.profile + "-filter.txt"))
        print(f"(b) SLOAD/SSTORE filter tracer: {seconds:.3f} s  {entries / seconds:,.0f} steps/s "
              f"(best {entries / best:,.0f})  {ratio(entries / seconds, STEPS_BAR)} of {STEPS_BAR:,}/s "
              f"({len(lines):,} lines)")
        results.insert(1, Result("trace.filter_steps", "SLOAD/SSTORE filter JS tracer, request to last byte",
                                 "steps/s", entries / seconds, STEPS_BAR, issue=3, note=f"median of {args.runs}"))
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=4166, help="loop iterations of the ~100,000-op tx")
    parser.add_argument("--big-iterations", type=int, default=31000, help="loop iterations of the >= 300 MB trace")
    parser.add_argument("--big-runs", type=int, default=2, help="times the big trace streams (more blocks seen)")
    parser.add_argument("--parallel", type=int, default=1, help="clients reading the big trace at once")
    parser.add_argument("--runs", type=int, default=5, help="timed traces per figure; the median counts")
    parser.add_argument("--config", default="", help="extra node config (TOML lines)")
    parser.add_argument("--profile", metavar="PREFIX", help="record the node with py-spy during (a) and (b) "
                        "into PREFIX-raw.txt and PREFIX-filter.txt (collapsed stacks, per thread)")
    parser.add_argument("--skip-big", action="store_true", help="measure (a) and (b) only")
    run_script(parser, measure, argv)


if __name__ == "__main__":
    main()
