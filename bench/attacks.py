"""Issue 35's starvation attacks on a real node, each with the node's RSS and a normal eth_blockNumber's latency
(probed every 20 ms from another process's thread) while it runs.

calls: a batch of 10 eth_calls of an endless loop (evm-timeout 5 s), and meanwhile a normal eth_call's latency.
ws:    50 EVM WebSocket clients that subscribe 1,000 times to newHeads (blocks every 50 ms) and never read;
       RSS before, at the peak, and 3 s after they leave.
js:    two debug_traceCall JavaScript tracers whose result() searches 120M indexes in C (~5 s, past a 0.5 s
       timeout); then one that never ends (2**53 indexes), and the seconds SIGTERM takes to stop the node.

    python bench/attacks.py [--only calls,ws,js]
"""

import argparse
import base64
import json
import os
import socket
import statistics
import subprocess
import threading
import time
import urllib.request

from devnode import DevNode, rss_mb

EMPTY = "0x" + "33" * 20
LOOP = "0x5b600056"        # JUMPDEST PUSH1 0 JUMP
SEARCH = "Array.prototype.indexOf.call({length: %s}, 1)"


def post(url, payload, timeout=120):
    request = urllib.request.Request(url, data=json.dumps(payload).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


class Probe:
    """eth_blockNumber every 20 ms and the node's RSS, on a thread, until stopped."""

    def __init__(self, node):
        self.node = node
        self.latencies, self.rss = [], []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def _run(self):
        while not self.stop.is_set():
            start = time.monotonic()
            try:
                post(self.node.url, {"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []}, 30)
                self.latencies.append(time.monotonic() - start)
            except OSError:
                self.latencies.append(float("inf"))
            try:
                self.rss.append(rss_mb(self.node.pid))
            except OSError:
                pass
            time.sleep(0.02)

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()

    def report(self, name):
        lat = sorted(self.latencies)
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
        print(f"  {name}: eth_blockNumber p50 {statistics.median(lat) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
              f"max {lat[-1] * 1000:.1f} ms ({len(lat)} probes); RSS peak {max(self.rss):.0f} MB")


def timed(fn, *args):
    start = time.monotonic()
    value = fn(*args)
    return value, time.monotonic() - start


def attack_calls(args):
    with DevNode() as node:
        before = rss_mb(node.pid)
        loops = [{"jsonrpc": "2.0", "id": i, "method": "eth_call",
                  "params": [{"to": EMPTY}, "latest", {EMPTY: {"code": LOOP}}]} for i in range(10)]
        with Probe(node) as probe:
            result = {}
            batch = threading.Thread(target=lambda: result.update(answer=timed(post, node.url, loops)))
            batch.start()
            time.sleep(0.5)
            normal, took = timed(post, node.url, {"jsonrpc": "2.0", "id": 1, "method": "eth_call",
                                                  "params": [{"to": EMPTY}, "latest"]})
            batch.join()
        answers, batch_took = result["answer"]
        print(f"calls: RSS before {before:.0f} MB; a normal eth_call during the batch: {took:.2f} s "
              f"({'ok' if 'result' in normal else normal}); the batch: {batch_took:.1f} s, "
              f"{sum('error' in a for a in answers)} errors")
        probe.report("calls")


def non_reader(port):
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    payload = json.dumps([{"jsonrpc": "2.0", "id": i, "method": "eth_subscribe", "params": ["newHeads"]}
                          for i in range(1000)]).encode()
    mask = os.urandom(4)
    header = bytes([0x81, 0x80 | 127]) + len(payload).to_bytes(8, "big")
    sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
    return sock


def attack_ws(args):
    with DevNode(f'[chain]\nblock-interval = {args.ws_block_interval}\nempty-blocks = true\n') as node:
        time.sleep(2)
        before = rss_mb(node.pid)
        with Probe(node) as probe:
            sockets = [non_reader(node.ws_port) for _ in range(50)]
            time.sleep(args.ws_seconds)
            for sock in sockets:
                sock.close()
            time.sleep(3)
        after = rss_mb(node.pid)
        print(f"ws: RSS before {before:.0f} MB, peak {max(probe.rss):.0f} MB, 3 s after they left {after:.0f} MB")
        probe.report("ws")


def trace_call(url, tracer, timeout=120):
    return post(url, {"jsonrpc": "2.0", "id": 1, "method": "debug_traceCall",
                      "params": [{"to": EMPTY}, "latest", {"tracer": tracer, "timeout": "0.5s"}]}, timeout)


def attack_js(args):
    tracer = "{result: function() { %s; return 1; }, fault: function() {}}"
    with DevNode('api = "eth,net,web3,debug"\n') as node:
        before = rss_mb(node.pid)
        with Probe(node) as probe:
            out = []
            runs = [threading.Thread(target=lambda: out.append(timed(trace_call, node.url, tracer % (SEARCH % 120e6))))
                    for _ in range(2)]
            for run in runs:
                run.start()
            for run in runs:
                run.join()
        print(f"js: RSS before {before:.0f} MB; two ~5 s searches past a 0.5 s timeout answered in "
              f"{', '.join(f'{t:.1f} s' for _, t in out)}: {out[0][0].get('error', out[0][0].get('result'))}")
        probe.report("js")
        forever = threading.Thread(target=lambda: _ignore(trace_call, node.url, tracer % (SEARCH % "2**53-1"), 10),
                                   daemon=True)
        forever.start()
        time.sleep(2)
        start = time.monotonic()
        node.process.terminate()
        try:
            node.process.wait(timeout=15)
            print(f"js: SIGTERM with a never-ending search running: the node exited in "
                  f"{time.monotonic() - start:.1f} s")
        except subprocess.TimeoutExpired:
            print("js: SIGTERM with a never-ending search running: the node had not exited 15 s later (killed)")


def _ignore(fn, *args):
    try:
        fn(*args)
    except OSError:
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="calls,ws,js")
    parser.add_argument("--ws-seconds", type=float, default=10.0, help="seconds the non-readers stay connected")
    parser.add_argument("--ws-block-interval", type=float, default=0.05, help="seconds between blocks (ws)")
    args = parser.parse_args()
    for name in args.only.split(","):
        {"calls": attack_calls, "ws": attack_ws, "js": attack_js}[name](args)


if __name__ == "__main__":
    main()
