"""Issue 35's attacks on a dev node (items 2-4) and on the ABCI socket (item 10), each while a client asks
eth_blockNumber every 50 ms: the node's RSS (before, peak) and that call's latency (p50, max) during the attack,
the attack's answer, and whether blocks kept coming after it.

    python bench/dev_attacks.py [--only time,mine,mine_cap,load_state,abci]
"""

import argparse
import gzip
import http.client
import json
import socket
import statistics
import threading
import time
import zlib

from devnode import DevNode, free_port, rss_mb

DEV_CONFIG = 'api = "eth,net,web3,dev"\n[chain]\nblock-interval = 1.0\nempty-blocks = true\n'


class Watch:
    """`with Watch(node) as w:` eth_blockNumber every 50 ms on its own connection, and the node's RSS."""

    def __init__(self, node):
        self.node = node
        self.latencies, self.rss = [], []
        self.errors = 0

    def __enter__(self):
        self.before = rss_mb(self.node.pid)
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._ask), threading.Thread(target=self._rss)]
        for t in self.threads:
            t.start()
        return self

    def _ask(self):
        host, port = self.node.url.split("//")[1].split(":")
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []})
        while not self.stop.is_set():
            began = time.perf_counter()
            try:
                connection = http.client.HTTPConnection(host, int(port), timeout=30)
                connection.request("POST", "/", body, {"Content-Type": "application/json"})
                json.loads(connection.getresponse().read())["result"]
                connection.close()
                self.latencies.append(time.perf_counter() - began)
            except (OSError, KeyError, ValueError):
                self.errors += 1
            self.stop.wait(0.05)

    def _rss(self):
        while not self.stop.is_set():
            try:
                self.rss.append(rss_mb(self.node.pid))
            except OSError:
                return
            self.stop.wait(0.05)

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join()

    def line(self):
        ms = sorted(x * 1000 for x in self.latencies) or [float("nan")]
        return (f"RSS {self.before:.0f} -> peak {max(self.rss, default=self.before):.0f} MB; eth_blockNumber "
                f"p50 {statistics.median(ms):.1f} ms, max {ms[-1]:.1f} ms over {len(ms)} calls, {self.errors} errors")


def call(node, method, *params, timeout=600):
    host, port = node.url.split("//")[1].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)})
    connection.request("POST", "/", body, {"Content-Type": "application/json"})
    return json.loads(connection.getresponse().read())


def short(answer):
    text = json.dumps(answer.get("error") or answer.get("result"))
    return text if len(text) < 300 else text[:300] + "..."


def blocks_keep_coming(node, wait=3.0):
    before = int(call(node, "eth_blockNumber")["result"], 16)
    time.sleep(wait)
    after = int(call(node, "eth_blockNumber")["result"], 16)
    return f"blocks {before} -> {after} in {wait:g} s"


def attack(node, name, method, *params, after=None):
    with Watch(node) as watch:
        began = time.perf_counter()
        answer = call(node, method, *params)
        took = time.perf_counter() - began
        if after:
            time.sleep(after)
    print(f"{name}: {method}{list(params)!r:.60} -> {short(answer)} in {took:.2f} s", flush=True)
    print(f"    {watch.line()}; {blocks_keep_coming(node)}", flush=True)


def gzip_bomb(size):
    """A gzip of `size` blank bytes, made a piece at a time."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, 31)
    piece, out = b" " * (1 << 20), []
    for _ in range(size >> 20):
        out.append(deflate.compress(piece))
    out.append(deflate.flush())
    return b"".join(out)


def dev_attacks(only):
    with DevNode(config=DEV_CONFIG) as node:
        time.sleep(2)
        if "time" in only:
            attack(node, "item 2", "evm_increaseTime", "0xe8d4a51000")
            attack(node, "item 2", "evm_setNextBlockTimestamp", "0x44b82fa09")
        if "mine" in only:
            attack(node, "item 3", "anvil_mine", "0x3b9aca00")
            attack(node, "item 3", "anvil_mine", hex(10_000))
        if "mine_cap" in only:
            attack(node, "item 3", "anvil_mine", hex(100_000))
        if "load_state" in only:
            bomb = gzip_bomb(1500 << 20)
            print(f"item 4: a gzip of {len(bomb):,} bytes holding {1500 << 20:,} blank bytes", flush=True)
            attack(node, "item 4", "anvil_loadState", "0x" + bomb.hex())
            dump = call(node, "anvil_dumpState")["result"]
            print(f"item 4: this chain's own dump, {len(dump) // 2:,} bytes of gzip, "
                  f"{len(gzip.decompress(bytes.fromhex(dump[2:]))):,} decompressed", flush=True)
            attack(node, "item 4", "anvil_loadState", dump)


def abci_attack(connections=8, held=40 << 20):
    port = free_port()
    config = f'[abci]\nmode = "socket"\naddress = "127.0.0.1:{port}"\n'
    with DevNode(config=config) as node:
        time.sleep(2)
        with Watch(node) as watch:
            sockets, dropped = [], 0
            for _ in range(connections):
                s = socket.create_connection(("127.0.0.1", port))
                length = 60 << 20
                header = bytearray()
                while length >= 0x80:
                    header.append((length & 0x7F) | 0x80)
                    length >>= 7
                header.append(length)
                try:
                    s.sendall(bytes(header) + b"\x00" * held)
                    sockets.append(s)
                except OSError:
                    dropped += 1
                    s.close()
            time.sleep(15)      # past [abci] idle-timeout
            for s in sockets:
                s.settimeout(0.1)
                try:
                    if s.recv(1) == b"":
                        dropped += 1
                except socket.timeout:
                    pass
                except OSError:
                    dropped += 1
                s.close()
        print(f"item 10: {connections} connections each sending {held >> 20} MB of a 60 MB ABCI frame, then silent "
              f"15 s: {dropped} closed by the node", flush=True)
        print(f"    {watch.line()}; RSS after {rss_mb(node.pid):.0f} MB", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="time,mine,mine_cap,load_state,abci")
    only = set(parser.parse_args().only.split(","))
    dev_attacks(only)
    if "abci" in only:
        abci_attack()


if __name__ == "__main__":
    main()
