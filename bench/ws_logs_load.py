"""logs-subscription load bar of issue 5: 10,000 `logs` subscriptions with distinct filters slow block
commit by no more than 10%.

One node in instant-block mode; a contract whose every call emits one log (its address, the call's
32-byte word as topic 0). Phases alternate without and with the subscriptions, held by this process on
10 WebSocket connections (1,000 each, the per-connection default): one follows the contract (and must
get every log), the others have distinct filters that match none of them (other addresses, one or
several; topics at positions 0 and 1; both). Each phase measures, on the same node:

- block time: one call at a time over HTTP, timed from the send to its block's newHeads notification
  on another connection. The node writes that notification out only once the publish of the block to
  every subscriber has returned, so this is check + finalize + commit + publish of a one-call block,
  where a per-block cost of the subscriptions weighs most. The bar is judged on its median.
- throughput: calls from 8 senders (JSON-RPC batches, as fast as the node takes them), timed from the
  first send to the commit of the last (blocks then hold many logs). Shown, but noisier: how calls fall
  into blocks varies from run to run.

    python bench/ws_logs_load.py [--subscriptions 10000] [--probes 100] [--calls 1000] [--runs 3]
"""

import argparse
import asyncio
import json
import pathlib
import statistics
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import websockets
from eth_account import Account

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from chaind.home import Home
from devnode import DevNode, Profile
from results import Result, run_script
from ws_latency import Http

BAR = 0.10                     # at most 10% slower
EVM_CHAIN_ID = 9000
SENDERS = 8
PER_CONNECTION = 1000
FEES = {"maxFeePerGas": 100 * 10**9, "maxPriorityFeePerGas": 10**9}
# Runtime: LOG1(topic0 = calldata word 0, no data); creation code copies the 9 runtime bytes and returns them.
RUNTIME = "600035" "6000" "6000" "a1" "00"
INIT = "0x" + "6009" "80" "600b" "6000" "39" "6000" "f3" + RUNTIME


def rpc(url, calls):
    body = json.dumps([{"jsonrpc": "2.0", "id": i, "method": m, "params": p} for i, (m, p) in enumerate(calls)])
    request = urllib.request.Request(url, body.encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        answers = sorted(json.loads(response.read()), key=lambda a: a["id"])
    errors = [a["error"] for a in answers if "error" in a]
    if errors:
        raise SystemExit(f"node refused a request: {errors[0]}")
    return [a["result"] for a in answers]


def sign(key, nonce, **tx):
    signed = Account.sign_transaction({"type": 2, "chainId": EVM_CHAIN_ID, "nonce": nonce, **FEES, **tx},
                                      key.private_key)
    return "0x" + bytes(signed.raw_transaction).hex()


def word(n):
    return "0x" + n.to_bytes(32, "big").hex()


def filters(count, contract):
    """`count` distinct filters: the first follows `contract`, no other matches a log of the bench."""
    def address(i):
        return "0x" + (0xA0 << 152 | i).to_bytes(20, "big").hex()

    def topic(i):
        return "0x" + (0xEE << 248 | i).to_bytes(32, "big").hex()

    out = [{"address": contract}]
    for i in range(1, count):
        shape = i % 5
        out.append([{"address": address(i)},
                    {"address": [address(i), address(i + count)]},
                    {"topics": [topic(i)]},
                    {"topics": [None, [topic(i), topic(i + count)]]},
                    {"address": address(i), "topics": [topic(i)]}][shape])
    return out


class Subscribers:
    """The subscriptions, on their own asyncio loop in a thread; counts the logs they are sent."""

    def __init__(self, ws_url, all_filters):
        self.ws_url, self.filters = ws_url, all_filters
        self.logs = 0
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def open(self):
        self.run(self._open())

    def close(self):
        self.run(self._close())

    async def _open(self):
        self.connections = []
        for start in range(0, len(self.filters), PER_CONNECTION):
            ws = await websockets.connect(self.ws_url, compression=None, max_size=None)
            chunk = self.filters[start:start + PER_CONNECTION]
            for i, criteria in enumerate(chunk):
                await ws.send(json.dumps({"jsonrpc": "2.0", "id": i, "method": "eth_subscribe",
                                          "params": ["logs", criteria]}))
            for _ in chunk:
                reply = json.loads(await ws.recv())
                if "result" not in reply:
                    raise SystemExit(f"eth_subscribe refused: {reply}")
            self.connections.append((ws, asyncio.ensure_future(self._count(ws))))

    async def _count(self, ws):
        async for message in ws:
            if json.loads(message)["method"] == "eth_subscription":
                self.logs += 1

    async def probe(self, port, raws):
        """Send-to-newHeads times in ms of `raws`, sent one at a time."""
        http = Http(port)
        await http.open()
        times = []
        async with websockets.connect(self.ws_url, compression=None) as ws:
            await ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_subscribe", "params": ["newHeads"]}))
            await ws.recv()
            for raw in raws:
                start = time.perf_counter()
                http.send("eth_sendRawTransaction", raw)
                await ws.recv()
                times.append((time.perf_counter() - start) * 1000)
                await http.answer()
        http.writer.close()
        return times

    async def _close(self):
        for ws, reader in self.connections:
            await ws.close()
            await reader


def phase(node, senders, calls):
    """Send `calls` signed calls; (calls/s, blocks, ms per block)."""
    height = int(rpc(node.url, [("eth_blockNumber", [])])[0], 16)
    finals = {address: nonce for address, _, nonce in senders}
    start = time.monotonic()

    def send(sender):
        _, raws, _ = sender
        for i in range(0, len(raws), 50):
            rpc(node.url, [("eth_sendRawTransaction", [raw]) for raw in raws[i:i + 50]])

    with ThreadPoolExecutor(len(senders)) as pool:
        sent = [pool.submit(send, s) for s in senders]
        while True:
            nonces = rpc(node.url, [("eth_getTransactionCount", [a, "latest"]) for a in finals])
            if [int(n, 16) for n in nonces] == list(finals.values()):
                break
            for f in sent:
                if f.done() and f.exception():
                    raise f.exception()
            time.sleep(0.005)
    elapsed = time.monotonic() - start
    blocks = int(rpc(node.url, [("eth_blockNumber", [])])[0], 16) - height
    return calls / elapsed, blocks, elapsed * 1000 / blocks


def measure(args):
    with DevNode("[chain]\nblock-interval = 0\n") as node:
        keys = Home(str(node.tmp / "home")).dev_keys()
        deployed = rpc(node.url, [("eth_sendRawTransaction", [sign(keys[0], 0, data=INIT, gas=100000)])])[0]
        while (receipt := rpc(node.url, [("eth_getTransactionReceipt", [deployed])])[0]) is None:
            time.sleep(0.01)
        contract = receipt["contractAddress"]
        per_sender = args.calls // SENDERS
        calls = per_sender * SENDERS
        # Pre-signed: every phase's calls, each sender's nonces running on across phases.
        batches = []
        for run in range(2 * (args.runs + 1)):
            batches.append([("0x" + k.address.hex(),
                             [sign(k, run * per_sender + n, to=contract, gas=30000,
                                   data=word(run * calls + s * per_sender + n + 1)) for n in range(per_sender)],
                             (run + 1) * per_sender) for s, k in enumerate(keys[1:SENDERS + 1])])
        prober = keys[SENDERS + 1]
        probes = [sign(prober, n, to=contract, gas=30000, data=word(10**9 + n))
                  for n in range(len(batches) * args.probes)]
        subscribers = Subscribers(node.ws_url, filters(args.subscriptions, contract))
        phase(node, batches.pop(0), calls)          # warm-up
        started = time.monotonic()
        subscribers.open()
        print(f"{args.subscriptions} logs subscriptions opened in {time.monotonic() - started:.1f} s "
              f"on {len(subscribers.connections)} connections")
        subscribers.close()
        phase(node, batches.pop(0), calls)          # warm-up
        results = {"without": [], "with": []}
        block_times = {"without": [], "with": []}
        for _ in range(args.runs):
            for kind in ("without", "with"):
                if kind == "with":
                    subscribers.open()
                    before = subscribers.logs
                with Profile(node.pid, args.profile if kind == "with" else None):
                    times = subscribers.run(subscribers.probe(node.port, probes[:args.probes]))
                    del probes[:args.probes]
                    rate, blocks, per_block = phase(node, batches.pop(0), calls)
                if kind == "with":
                    deadline = time.monotonic() + 10
                    while subscribers.logs - before < calls + len(times) and time.monotonic() < deadline:
                        time.sleep(0.01)
                    got = subscribers.logs - before
                    subscribers.close()
                    if got != calls + len(times):
                        raise SystemExit(f"the contract's subscription got {got} logs of {calls + len(times)}")
                results[kind].append(rate)
                block_times[kind] += times
                print(f"  {kind:>7} subscriptions: block time median {statistics.median(times):5.2f} ms  "
                      f"throughput {rate:5.0f} calls/s in {blocks:3d} blocks ({per_block:5.1f} ms/block)", flush=True)
    without, with_ = statistics.median(block_times["without"]), statistics.median(block_times["with"])
    slowdown = with_ / without - 1
    rate_without, rate_with = statistics.median(results["without"]), statistics.median(results["with"])
    print(f"block time (one-call blocks, send to newHeads), median of {len(block_times['with'])}: without "
          f"{without:.2f} ms, with {args.subscriptions} subscriptions {with_:.2f} ms")
    print(f"throughput ({calls} calls a phase), median: without {rate_without:.0f} calls/s, with {rate_with:.0f} "
          f"calls/s ({rate_without / rate_with - 1:+.1%} time)")
    print(f"bar: block commit no more than {BAR:.0%} slower  slowdown {slowdown:+.1%}  ratio to bar "
          f"{max(slowdown, 0) / BAR:.2f}  {'PASS' if slowdown <= BAR else 'FAIL'}")
    return [Result("ws.logs_load", f"block time with {args.subscriptions:,} logs subscriptions: slowdown", "%",
                   slowdown * 100, BAR * 100, higher=False, issue=5,
                   note=f"median {without:.2f} -> {with_:.2f} ms")]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subscriptions", type=int, default=10000, help="logs subscriptions, distinct filters")
    parser.add_argument("--probes", type=int, default=100, help="calls sent one at a time per phase")
    parser.add_argument("--calls", type=int, default=1000, help="log-emitting calls per phase, as fast as taken")
    parser.add_argument("--runs", type=int, default=3, help="phases of each kind (alternating); medians count")
    parser.add_argument("--profile", metavar="FILE",
                        help="record the node with py-spy during the phases with subscriptions")
    run_script(parser, measure, argv)


if __name__ == "__main__":
    main()
