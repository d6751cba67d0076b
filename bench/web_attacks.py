"""Issue 35's web attacks (items 1, 8, 9) against a real node: its RSS and a normal eth_blockNumber's latency
while each runs, and whether the attack got what it wanted.

    python bench/web_attacks.py [--seconds 10] [--slow 300] [--flood 3000]

Attacks, one after the other, each for --seconds: a cross-site POST (text/plain anvil_setBalance with a page's
Origin) sent in a loop; 3 slow connections on the metrics port (its cap), then --slow connections per HTTP face,
each trickling a request head a byte a second; --flood
connections opened at once on 8545 and held; a bare LF smuggling a Set-Cookie through Origin, in a loop.
A probe sends eth_blockNumber every 50 ms on a connection of its own (kept alive, as a wallet's) and on a new
one each time (as a client arriving during the attack); the RSS is sampled every 0.25 s.
"""

import argparse
import errno
import http.client
import json
import os
import socket
import statistics
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from devnode import DEV0, DevNode, free_ports  # noqa: E402

TARGET = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
STOLEN = hex(7 * 10**30)


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


class Probe:
    """eth_blockNumber every 50 ms, kept-alive and on new connections; RSS and fds every 0.25 s."""

    def __init__(self, node):
        self.node = node
        self.stop = threading.Event()
        self.kept, self.fresh, self.failures, self.rss, self.fds = [], [], [], [], []

    def __enter__(self):
        self.threads = [threading.Thread(target=f, daemon=True) for f in (self._kept, self._fresh, self._sample)]
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join(15)

    def _call(self, conn):
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []})
        start = time.perf_counter()
        conn.request("POST", "/", body, {"content-type": "application/json"})
        answer = json.loads(conn.getresponse().read())
        assert "result" in answer, answer
        return (time.perf_counter() - start) * 1000

    def _kept(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.node.port, timeout=10)
        while not self.stop.wait(0.05):
            try:
                self.kept.append(self._call(conn))
            except Exception as e:       # noqa: BLE001 (counted and shown)
                self.failures.append(f"kept-alive: {e!r}"[:120])
                conn = http.client.HTTPConnection("127.0.0.1", self.node.port, timeout=10)

    def _fresh(self):
        while not self.stop.wait(0.05):
            conn = http.client.HTTPConnection("127.0.0.1", self.node.port, timeout=10)
            try:
                self.fresh.append(self._call(conn))
            except Exception as e:       # noqa: BLE001
                self.failures.append(f"new connection: {e!r}"[:120])
            finally:
                conn.close()

    def _sample(self):
        while not self.stop.wait(0.25):
            self.rss.append(rss_mb(self.node.pid))
            self.fds.append(fds(self.node.pid))

    def report(self, name, outcome):
        def ms(values):
            if not values:
                return "none answered"
            values = sorted(values)
            p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
            return f"p50 {statistics.median(values):.1f} ms, p99 {p99:.1f} ms, max {values[-1]:.1f} ms ({len(values)})"
        print(f"{name}\n  outcome: {outcome}\n  eth_blockNumber kept-alive: {ms(self.kept)}\n"
              f"  eth_blockNumber new connection: {ms(self.fresh)}\n"
              f"  node RSS: {min(self.rss, default=0):.0f}-{max(self.rss, default=0):.0f} MB; "
              f"open fds: max {max(self.fds, default=0)}; probe failures: {len(self.failures)}"
              + (f" (first: {self.failures[0]})" if self.failures else ""), flush=True)


def raw(port, data, timeout=5):
    """Send `data` on a new connection; the first response line (b"" if the server closed without one)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        return sock.makefile("rb").readline()


def balance(node):
    return node.rpc("eth_getBalance", TARGET, "latest")["result"]


def cross_site(node, seconds):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "anvil_setBalance", "params": [TARGET, STOLEN]}).encode()
    request = (b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\nContent-Type: text/plain\r\n"
               b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
    statuses, end = {}, time.monotonic() + seconds
    while time.monotonic() < end:
        line = raw(node.port, request)
        status = line.split(b" ")[1].decode() if line else "closed"
        statuses[status] = statuses.get(status, 0) + 1
    got = balance(node)
    return f"answers {statuses}; balance set: {'YES' if got == STOLEN else 'no'}"


def smuggle(node, origin, seconds):
    """`origin`: one the node admits (the explorer's), so that its CORS header echoes it."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []}).encode()
    request = (b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               b"Origin: %s/\nSet-Cookie: session=stolen\r\nConnection: close\r\n"
               b"Content-Length: %d\r\n\r\n%s" % (origin.encode(), len(body), body))
    statuses, injected, end = {}, 0, time.monotonic() + seconds
    while time.monotonic() < end:
        with socket.create_connection(("127.0.0.1", node.port), timeout=5) as sock:
            sock.sendall(request)
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        status = answer.split(b" ", 2)[1].decode() if answer else "closed"
        statuses[status] = statuses.get(status, 0) + 1
        injected += b"\nSet-Cookie" in answer.split(b"\r\n\r\n", 1)[0]
    return f"answers {statuses}; Set-Cookie injected into {injected}"


def slowloris(node, ports, count, seconds):  # noqa: C901 (one attack, read top to bottom)
    """`count` connections per face, each sending a request head a byte a second; how many the node dropped."""
    head = b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 4096
    socks = []
    for face, port in ports.items():
        for _ in range(count):
            sock = socket.socket()
            sock.setblocking(False)     # beyond a face's cap and backlog the connect waits: the others go on
            sock.connect_ex(("127.0.0.1", port))
            socks.append([face, sock, 0])
    time.sleep(0.5)
    dropped = dict.fromkeys(ports, 0)
    scrape = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for entry in socks:
            face, sock, sent = entry
            if sock is None:
                continue
            try:
                if sock.recv(1) == b"":
                    raise ConnectionResetError
            except BlockingIOError:
                pass
            except OSError as e:
                if e.errno == errno.ENOTCONN:   # still waiting to be accepted
                    continue
                dropped[face] += 1
                sock.close()
                entry[1] = None
                continue
            try:
                entry[2] = sent + sock.send(head[sent:sent + 1])
            except BlockingIOError:
                pass                    # not connected yet (waiting in the backlog)
            except OSError:
                dropped[face] += 1
                sock.close()
                entry[1] = None
        if "metrics" in ports:
            start = time.perf_counter()
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{ports['metrics']}/metrics", timeout=1).read()
                scrape.append(f"{(time.perf_counter() - start) * 1000:.0f}")
            except OSError:
                scrape.append("timeout")
        time.sleep(1.0)
    for _, sock, _ in socks:
        if sock is not None:
            sock.close()
    started = {face: sum(1 for f, _, sent in socks if f == face and sent) for face in ports}
    return (f"{count} per face; began sending {started}; dropped by the node within {seconds} s: {dropped}"
            + (f"; /metrics scrapes (ms, 1 s timeout): {' '.join(scrape)}" if scrape else ""))


def flood(node, count, seconds):
    """`count` connections to 8545 opened at once and held (sending nothing) for `seconds`."""
    socks = []
    for _ in range(count):
        sock = socket.socket()
        sock.setblocking(False)
        sock.connect_ex(("127.0.0.1", node.port))
        socks.append(sock)
    peak = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        peak = max(peak, fds(node.pid))
        time.sleep(0.25)
    for sock in socks:
        sock.close()
    return f"{count} connections held; node's open fds at most {peak}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--slow", type=int, default=300, help="slow connections per HTTP face")
    parser.add_argument("--flood", type=int, default=3000, help="connections held open on 8545")
    parser.add_argument("--only", default="cross-site,metrics,slow,flood,smuggle",
                        help="attacks to run, comma separated (default: all)")
    args = parser.parse_args()
    metrics_port, explorer_port = free_ports(2)
    extra = (f'api = "eth,net,web3,debug,txpool,dev"\n[instrumentation]\nprometheus = true\n'
             f'prometheus-listen-addr = "127.0.0.1:{metrics_port}"\n'
             f'[explorer]\nenable = true\naddress = "127.0.0.1:{explorer_port}"\n')
    with DevNode(extra) as node:
        assert node.rpc("eth_getBalance", DEV0, "latest")["result"] != "0x0"
        print(f"node pid {node.pid}; RSS at start {rss_mb(node.pid):.0f} MB", flush=True)
        only = set(args.only.split(","))
        ports = {"json-rpc": node.port, "cometbft": node.comet_port, "rest": node.rest_port,
                 "explorer": explorer_port, "metrics": metrics_port}
        attacks = [
            ("baseline", "baseline (no attack)", lambda: time.sleep(args.seconds) or "-"),
            ("cross-site", "item 1: cross-site text/plain anvil_setBalance with a page's Origin, in a loop",
             lambda: cross_site(node, args.seconds)),
            ("metrics", "item 8: 3 slow connections on the metrics port (max-open-connections 3)",
             lambda: slowloris(node, {"metrics": metrics_port}, 3, max(args.seconds, 25))),
            # 35 s: 8545's read-timeout is geth's 30 s, the others' 10 s.
            ("slow", f"item 8: {args.slow} slow connections per HTTP face, a byte a second",
             lambda: slowloris(node, ports, args.slow, max(args.seconds, 35))),
            ("flood", f"item 8: {args.flood} connections held open on 8545",
             lambda: flood(node, args.flood, args.seconds)),
            ("smuggle", "item 9: an admitted Origin (the explorer's) with a bare LF and a Set-Cookie line, in a loop",
             lambda: smuggle(node, f"http://127.0.0.1:{explorer_port}", args.seconds)),
        ]
        for key, title, attack in attacks:
            if key == "baseline" or key in only:
                with Probe(node) as probe:
                    outcome = attack()
                probe.report(title, outcome)


if __name__ == "__main__":
    main()
