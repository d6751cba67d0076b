"""gRPC (9090) and REST (9091) read throughput, and the cost of a historical read, against a real node.

Bars (issue 6, 2-core box, 32 concurrent clients from a separate process): gRPC
cosmos.bank.v1beta1.Query/AllBalances >= 5,000 calls/s (h2load, one unary call per stream),
REST GET /cosmos/bank/v1beta1/balances/{address} >= 3,000 req/s (wrk); a Balance query with
x-cosmos-block-height 10,000 blocks back costs at most 2x one at the latest height.
Bars that hold on any box (issue 14), measured in the same run against the same server code answering no
query (ceiling.py): AllBalances >= 75% of an empty handler's calls/s, REST balances >= 60% of a constant
route's req/s. The node and the ceiling run in alternating rounds (--rounds, --seconds split among them) and
each ratio is the median of its rounds', so a change in the shared box's load falls on both alike; the calls
each server process serves per CPU-second are printed too (the ratio least moved by other processes' load).
Needs h2load (apt-get install -y nghttp2-client) and wrk.
"""

import argparse
import base64
import contextlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import grpc
from eth_account import Account
from eth_utils import to_checksum_address

from devnode import DEV0, REPO, DevNode, Profile

sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))       # native_txs
from chaind.chain import txs
from chaind.crypto.addresses import to_bech32
from chaind.home import Home
from chaind.pb.cosmos.bank.v1beta1 import query_pb2, query_pb2_grpc
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from native_txs import build_native
from results import Result, run_script

IBC = "ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2"
DEV0_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
PROBE = bytes([0x5A]) * 20          # the account whose balances move while the chain grows
TARGETS = {"grpc": 5_000, "rest": 3_000}
# Share of the ceiling (the same server answering an empty handler / a constant route) each face must reach.
CEILING_SHARES = {"grpc": 0.75, "rest": 0.60}


def announced(node, name):
    """host:port of a face, from the node's start-up lines ("grpc: grpc+http://127.0.0.1:PORT")."""
    for _ in range(100):
        match = re.search(rf"^{name}: \S+://(\S+)$", (node.tmp / "node.log").read_text(), re.M)
        if match:
            return match.group(1)
        time.sleep(0.1)
    raise SystemExit(f"the node did not announce its {name} address")


def grpc_frame(message):
    """A unary gRPC request body: uncompressed flag, 4-byte length, message."""
    data = message.SerializeToString()
    return b"\x00" + len(data).to_bytes(4, "big") + data


def h2load(address, path, frame, connections, seconds, headers=()):
    """(calls/s, mean latency) of h2load POSTing one gRPC frame per stream, one stream per connection."""
    with tempfile.NamedTemporaryFile(suffix=".bin") as body:
        body.write(frame)
        body.flush()
        command = ["h2load", "-c", str(connections), "-m", "1", "-t", "1", "-D", str(seconds),
                   "-d", body.name, "-H", "content-type: application/grpc", "-H", "te: trailers"]
        for header in headers:
            command += ["-H", header]
        out = subprocess.run(command + [f"http://{address}{path}"], capture_output=True, text=True,
                             check=True).stdout
    done = re.search(r"requests: \d+ total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed", out)
    if done is None or int(done.group(3)):
        sys.exit(f"h2load saw failed requests:\n{out}")
    rate = float(re.search(r"finished in [\d.]+\w+, ([\d.]+) req/s", out).group(1))
    mean = re.search(r"time for request:\s+\S+\s+\S+\s+(\S+)", out).group(1)
    return rate, mean


def wrk(url, connections, seconds):
    out = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", url],
                         capture_output=True, text=True, check=True).stdout
    if "Non-2xx" in out or "Socket errors" in out:
        sys.exit(f"wrk saw failed requests:\n{out}")
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    return rate, re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1)


def cpu_seconds(pid):
    """User + system CPU time of a process so far (its threads included), from /proc."""
    fields = open(f"/proc/{pid}/stat").read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Rounds:
    """Figures of interleaved runs: rates[name] per round, the CPU seconds each server spent, the last extra."""

    def __init__(self, names):
        self.rates = {name: [] for name in names}
        self.calls = dict.fromkeys(names, 0.0)
        self.cpu = dict.fromkeys(names, 0.0)
        self.last = {}

    def rate(self, name):
        return statistics.mean(self.rates[name])

    def shares(self, a, b):
        return ", ".join(f"{x / y:.0%}" for x, y in zip(self.rates[a], self.rates[b], strict=True))

    def share(self, a, b):
        """The median over rounds of a's rate over b's: each round's pair ran back to back, under one load."""
        return statistics.median(x / y for x, y in zip(self.rates[a], self.rates[b], strict=True))

    def per_cpu(self, name):
        return self.calls[name] / self.cpu[name] if self.cpu[name] else float("nan")


def interleaved(runs, args):
    """runs: {name: (server pid, run(seconds) -> (rate, extra))}. Each is warmed up, then the runs alternate for
    args.rounds rounds of args.seconds / rounds each, so a change in the box's load falls on every one alike."""
    rounds = Rounds(runs)
    for _, run in runs.values():
        run(args.warmup)
    seconds = max(1, round(args.seconds / args.rounds))
    for _ in range(args.rounds):
        for name, (pid, run) in runs.items():
            before = cpu_seconds(pid)
            rate, extra = run(seconds)
            rounds.cpu[name] += cpu_seconds(pid) - before
            rounds.calls[name] += rate * seconds
            rounds.rates[name].append(rate)
            rounds.last[name] = extra
    return rounds


@contextlib.contextmanager
def ceiling(rest_body):
    """(gRPC address, REST address, pid) of ceiling.py: the node's server classes answering no query."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "bench")])}
    process = subprocess.Popen([sys.executable, str(REPO / "bench" / "ceiling.py"),
                                "--body", base64.b64encode(rest_body).decode()],
                               env=env, stdout=subprocess.PIPE, text=True)
    try:
        lines = [process.stdout.readline() for _ in range(2)]
        found = dict(line.strip().split(": ", 1) for line in lines if ": " in line)
        if set(found) != {"grpc", "rest"}:
            sys.exit(f"ceiling.py did not start: {lines}")
        yield found["grpc"], found["rest"], process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def throughput(args):
    with DevNode() as node:
        grpc_address, rest_address = announced(node, "grpc"), announced(node, "rest")
        address = to_bech32("chain", bytes.fromhex(DEV0[2:]))
        request = query_pb2.QueryAllBalancesRequest(address=address)
        with grpc.insecure_channel(grpc_address) as channel:
            reply = query_pb2_grpc.QueryStub(channel).AllBalances(request, timeout=5)
        if len(reply.balances) != 3:
            sys.exit(f"AllBalances does not answer the dev balances: {reply}")
        url = f"http://{rest_address}/cosmos/bank/v1beta1/balances/{address}"
        with urllib.request.urlopen(url, timeout=5) as response:
            rest_body = response.read()
        if len(json.loads(rest_body)["balances"]) != 3:
            sys.exit("REST balances does not answer the dev balances")
        path = "/cosmos.bank.v1beta1.Query/AllBalances"
        # The ceiling's SpendableBalances (ceiling.WITH_HEADER) answers the same empty response with the height
        # header every state query sends; its request has AllBalances' fields, so the same frame serves.
        header_path = "/cosmos.bank.v1beta1.Query/SpendableBalances"
        frame = grpc_frame(request)
        with ceiling(rest_body) as (empty_grpc, empty_rest, ceiling_pid):
            constant_url = f"http://{empty_rest}/ceiling/constant/{address}"
            grpc_runs = {
                "node": (node.pid, lambda seconds: h2load(grpc_address, path, frame, args.connections, seconds)),
                "empty": (ceiling_pid, lambda seconds: h2load(empty_grpc, path, frame, args.connections, seconds)),
                "header": (ceiling_pid,
                           lambda seconds: h2load(empty_grpc, header_path, frame, args.connections, seconds)),
            }
            with Profile(node.pid, args.profile and f"{args.profile}-grpc.txt"):
                grpc_rounds = interleaved(grpc_runs, args)
            rate, mean = grpc_rounds.rate("node"), grpc_rounds.last["node"]
            share, empty_rate = grpc_rounds.share("node", "empty"), grpc_rounds.rate("empty")
            header_rate = grpc_rounds.rate("header")
            print(f"gRPC AllBalances      {rate:9,.0f} calls/s  mean {mean:>8}  target {TARGETS['grpc']:,}  "
                  f"ratio {rate / TARGETS['grpc']:.2f}")
            print(f"gRPC empty handler    {empty_rate:9,.0f} calls/s  mean {grpc_rounds.last['empty']:>8}  "
                  f"AllBalances/empty {share:.0%} (rounds {grpc_rounds.shares('node', 'empty')})  "
                  f"(bar >= {CEILING_SHARES['grpc']:.0%})")
            print(f"gRPC empty + header   {header_rate:9,.0f} calls/s  header/empty "
                  f"{grpc_rounds.share('header', 'empty'):.0%}  AllBalances/(empty + header) "
                  f"{grpc_rounds.share('node', 'header'):.0%}")
            print(f"  per CPU-second of each server process: AllBalances {grpc_rounds.per_cpu('node'):,.0f}, "
                  f"empty {grpc_rounds.per_cpu('empty'):,.0f}, with header {grpc_rounds.per_cpu('header'):,.0f} "
                  f"calls: AllBalances/empty {grpc_rounds.per_cpu('node') / grpc_rounds.per_cpu('empty'):.0%}")
            results = [
                Result("grpc.all_balances", f"gRPC AllBalances, h2load {args.connections} clients", "calls/s",
                       rate, TARGETS["grpc"], issue=6, note=f"mean {mean}"),
                Result("grpc.all_balances_share", "gRPC AllBalances / the same server's empty handler", "% of ceiling",
                       100 * share, 100 * CEILING_SHARES["grpc"], issue=14,
                       note=f"empty handler {empty_rate:,.0f} calls/s, with the height header {header_rate:,.0f}"),
            ]
            rest_runs = {
                "node": (node.pid, lambda seconds: wrk(url, args.connections, seconds)),
                "constant": (ceiling_pid, lambda seconds: wrk(constant_url, args.connections, seconds)),
            }
            with Profile(node.pid, args.profile and f"{args.profile}-rest.txt"):
                rest_rounds = interleaved(rest_runs, args)
            rate, p50 = rest_rounds.rate("node"), rest_rounds.last["node"]
            share, constant_rate = rest_rounds.share("node", "constant"), rest_rounds.rate("constant")
            print(f"REST balances         {rate:9,.0f} req/s    p50  {p50:>8}  target {TARGETS['rest']:,}  "
                  f"ratio {rate / TARGETS['rest']:.2f}")
            # The constant route serves the bytes the balances route just answered.
            print(f"REST constant route   {constant_rate:9,.0f} req/s    p50  {rest_rounds.last['constant']:>8}  "
                  f"balances/constant {share:.0%} (rounds {rest_rounds.shares('node', 'constant')})  "
                  f"(bar >= {CEILING_SHARES['rest']:.0%})")
            print(f"  per CPU-second of each server process: balances {rest_rounds.per_cpu('node'):,.0f}, "
                  f"constant {rest_rounds.per_cpu('constant'):,.0f} requests: balances/constant "
                  f"{rest_rounds.per_cpu('node') / rest_rounds.per_cpu('constant'):.0%}")
            results += [
                Result("rest.balances", f"REST balances, wrk {args.connections} clients", "req/s", rate,
                       TARGETS["rest"], issue=6, note=f"p50 {p50}"),
                Result("rest.balances_share", "REST balances / the same stack's constant route", "% of ceiling",
                       100 * share, 100 * CEILING_SHARES["rest"], issue=14,
                       note=f"constant route {constant_rate:,.0f} req/s"),
            ]
    return results


class Mover(threading.Thread):
    """Moves PROBE's balances (an EVM transfer of the base denom, a native send of the IBC coin) while blocks pass."""

    def __init__(self, node, comet_address):
        super().__init__(daemon=True)
        self.node, self.comet = node, comet_address
        self.key = Home(node.tmp / "home").dev_keys()[1]
        self.stop = threading.Event()
        self.sent = 0
        self.error = None

    def run(self):
        try:
            self._move()
        except Exception as e:  # noqa: BLE001 (the thread's error, re-raised by whoever joins it)
            self.error = e

    def _move(self):
        nonce = 0
        while not self.stop.is_set():
            signed = Account.sign_transaction({"chainId": 9000, "gas": 21000, "maxFeePerGas": 10**10,
                                               "maxPriorityFeePerGas": 1, "nonce": nonce,
                                               "to": to_checksum_address(PROBE), "value": 1}, DEV0_KEY)
            answer = self.node.rpc("eth_sendRawTransaction", "0x" + signed.raw_transaction.hex())
            if "result" not in answer:
                raise RuntimeError(f"eth_sendRawTransaction: {answer}")
            msg = bank_tx.MsgSend(from_address=to_bech32("chain", self.key.address),
                                  to_address=to_bech32("chain", PROBE), amount=[coin_pb2.Coin(denom=IBC, amount="1")])
            raw = build_native([(txs.MSG_SEND, msg)], self.key, "chain_9000-1", 1, nonce,
                               [("achain", 10**10 * 200000)], 200000)
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "broadcast_tx_sync",
                               "params": {"tx": base64.b64encode(raw).decode()}}).encode()
            with urllib.request.urlopen(urllib.request.Request(f"http://{self.comet}/", data=body), timeout=5) as reply:
                answer = json.loads(reply.read())
            if answer.get("result", {}).get("code") != 0:
                raise RuntimeError(f"broadcast_tx_sync: {answer}")
            nonce += 1
            self.sent += 2
            time.sleep(0.02)


def historical(args):
    # Blocks every millisecond (empty ones too) to reach 10,000 heights quickly.
    with DevNode("[chain]\nblock-interval = 0.001\n") as node:
        grpc_address = announced(node, "grpc")
        mover = Mover(node, announced(node, "cometbft"))
        mover.start()
        started = time.monotonic()
        while int(node.rpc("eth_blockNumber")["result"], 16) < args.depth + 200 and mover.is_alive():
            time.sleep(0.5)
        mover.stop.set()
        mover.join()
        if mover.error is not None:
            sys.exit(f"moving the probe's balances failed: {mover.error}")
        head = int(node.rpc("eth_blockNumber")["result"], 16)
        past = head - args.depth
        print(f"chain of {head} blocks built in {time.monotonic() - started:.0f} s, {mover.sent} txs moving the "
              f"probe's balances; reading height {past} against the latest (blocks still come every ms)")
        path = "/cosmos.bank.v1beta1.Query/Balance"
        results = []
        for denom in ("achain", IBC):
            request = query_pb2.QueryBalanceRequest(address=to_bech32("chain", PROBE), denom=denom)
            with grpc.insecure_channel(grpc_address) as channel:
                old = query_pb2_grpc.QueryStub(channel).Balance(
                    request, metadata=(("x-cosmos-block-height", str(past)),), timeout=5)
                now = query_pb2_grpc.QueryStub(channel).Balance(request, timeout=5)
            if not 0 < int(old.balance.amount) < int(now.balance.amount):
                sys.exit(f"the probe's {denom} balance did not move between {past} and the head: {old} {now}")
            frame = grpc_frame(request)
            rates = {"latest": [], "past": []}
            h2load(grpc_address, path, frame, args.connections, args.warmup)
            # Interleaved rounds: both see the same background load.
            for _ in range(args.rounds):
                rates["latest"].append(h2load(grpc_address, path, frame, args.connections, args.round_seconds)[0])
                rates["past"].append(h2load(grpc_address, path, frame, args.connections, args.round_seconds,
                                            [f"x-cosmos-block-height: {past}"])[0])
            latest, old_rate = statistics.median(rates["latest"]), statistics.median(rates["past"])
            print(f"Balance {denom[:12]:12}  latest {latest:8,.0f} calls/s  {args.depth:,} back {old_rate:8,.0f} "
                  f"calls/s  cost ratio {latest / old_rate:.2f}  (bar <= 2)")
            results.append(Result(f"grpc.historical.{'evm' if denom == 'achain' else 'ibc'}",
                                  f"gRPC Balance ({'achain' if denom == 'achain' else 'ibc/...'}) {args.depth:,} "
                                  f"blocks back: cost / latest's", "x", latest / old_rate, 2.0, higher=False,
                                  issue=6, note=f"latest {latest:,.0f}, past {old_rate:,.0f} calls/s"))
    return results


def measure(args):
    for tool in ("h2load", "wrk"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is missing: apt-get install -y nghttp2-client wrk")
    results = []
    if args.only != "historical":
        results += throughput(args)
    if args.only != "throughput":
        results += historical(args)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--warmup", type=int, default=3, help="seconds of load before measuring")
    parser.add_argument("--seconds", type=int, default=10, help="seconds measured")
    parser.add_argument("--depth", type=int, default=10_000, help="blocks back for the historical read")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--round-seconds", type=int, default=4)
    parser.add_argument("--only", choices=("throughput", "historical"))
    parser.add_argument("--profile", help="py-spy the node into PREFIX-grpc.txt / PREFIX-rest.txt")
    run_script(parser, measure, argv)


if __name__ == "__main__":
    main()
