"""Send-to-newHeads latency bar of issue 5: instant-block mode, one signed transfer at a time.

A client subscribed to newHeads sends each transfer over HTTP (keep-alive) and times from the send to
the newHeads notification of the block holding it; each such block is checked afterwards over HTTP.

    python bench/ws_latency.py [--samples 200] [--warmup 20]
"""

import argparse
import asyncio
import json
import pathlib
import statistics
import sys
import time

import websockets
from eth_account import Account

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from chaind.home import Home
from devnode import DevNode
from results import Result, run_script

BAR_MS = 5.0
PEERS_MS = (2.5, 13.9)
EVM_CHAIN_ID = 9000
RECIPIENT = "0x0000000000000000000000000000000000000B0b"


def sign_transfers(key, count, chain_id=EVM_CHAIN_ID, first_nonce=0):
    raws = []
    for nonce in range(first_nonce, first_nonce + count):
        signed = Account.sign_transaction({
            "type": 2, "chainId": chain_id, "nonce": nonce, "to": RECIPIENT, "value": 1, "gas": 21000,
            "maxFeePerGas": 100 * 10**9, "maxPriorityFeePerGas": 10**9}, key.private_key)
        raws.append(("0x" + bytes(signed.raw_transaction).hex(), "0x" + bytes(signed.hash).hex()))
    return raws


class Http:
    """JSON-RPC POSTs on one keep-alive connection; `send` returns once the request is written."""

    def __init__(self, port):
        self.port = port

    async def open(self):
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)

    def send(self, method, *params):
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}).encode()
        self.writer.write(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                          b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    async def answer(self):
        length = None
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        reply = json.loads(await self.reader.readexactly(length))
        if "error" in reply:
            raise SystemExit(f"node refused a request: {reply['error']}")
        return reply["result"]

    async def call(self, method, *params):
        self.send(method, *params)
        return await self.answer()


async def latencies(port, ws_url, raws):
    """Send-to-newHeads ms of each (raw, hash), sent one at a time over HTTP to `port`; any EVM node."""
    http = Http(port)
    await http.open()
    async with websockets.connect(ws_url, compression=None) as ws:
        await ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_subscribe", "params": ["newHeads"]}))
        json.loads(await ws.recv())["result"]
        samples = []
        for raw, tx_hash in raws:
            start = time.perf_counter()
            http.send("eth_sendRawTransaction", raw)
            head = json.loads(await ws.recv())["params"]["result"]
            samples.append((time.perf_counter() - start, head["hash"], tx_hash))
            if await http.answer() != tx_hash:
                raise SystemExit("eth_sendRawTransaction answered another hash")
        # Not timed: the notified block is the one holding the tx.
        for _, block_hash, tx_hash in samples:
            receipt = await http.call("eth_getTransactionReceipt", tx_hash)
            if receipt is None or receipt["blockHash"] != block_hash or receipt["status"] != "0x1":
                raise SystemExit(f"newHeads {block_hash} is not the block holding {tx_hash}: {receipt}")
    http.writer.close()
    return [s[0] * 1000 for s in samples]


def percentile(sorted_values, q):
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def summary(times):
    times = sorted(times)
    return statistics.median(times), percentile(times, 0.9), percentile(times, 0.99), times[-1]


def measure(args):
    with DevNode("[chain]\nblock-interval = 0\n") as node:
        key = Home(str(node.tmp / "home")).dev_keys()[0]
        raws = sign_transfers(key, args.warmup + args.samples)
        asyncio.run(latencies(node.port, node.ws_url, raws[:args.warmup]))
        times = asyncio.run(latencies(node.port, node.ws_url, raws[args.warmup:]))
    median, p90, p99, worst = summary(times)
    print(f"send-to-newHeads, instant blocks, {len(times)} transfers one at a time: "
          f"median {median:.2f} ms  p90 {p90:.2f} ms  p99 {p99:.2f} ms  max {worst:.2f} ms")
    print(f"bar: median < {BAR_MS:g} ms  ratio median/bar {median / BAR_MS:.2f}  "
          f"(peers {PEERS_MS[0]:g} ms and {PEERS_MS[1]:g} ms: ratio {median / PEERS_MS[0]:.2f} and "
          f"{median / PEERS_MS[1]:.2f})  {'PASS' if median < BAR_MS else 'FAIL'}")
    return [Result("ws.newheads_latency", "send-to-newHeads median, instant blocks", "ms", median, BAR_MS,
                   higher=False, issue=5, compare="ws.newheads_latency", note=f"p99 {p99:.1f} ms")]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200, help="timed transfers")
    parser.add_argument("--warmup", type=int, default=20, help="transfers sent first, not timed")
    run_script(parser, measure, argv)


if __name__ == "__main__":
    main()
