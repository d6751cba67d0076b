"""JSON-RPC read throughput: eth_blockNumber and eth_getBalance (dev account 0 at latest) with wrk.

Bar (issue 2, 2-core box, 32 keep-alive connections from a separate process):
eth_blockNumber >= 20,000 req/s, eth_getBalance >= 10,000 req/s.

With --ceiling (issue 18): rounds alternate between the ceiling of our own stack (bench/rpc_ceiling.py, a
Twisted protocol answering a constant body) and the node's methods, so a busy box loads both alike; the
medians of the rounds and their ratios are printed. Bars: eth_blockNumber >= 85% of the ceiling,
eth_getBalance at latest >= 70%.

    python bench/rpc_throughput.py --ceiling [--rounds 3] [--seconds 10]
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys

from devnode import DEV0, REPO, DevNode, free_port
from results import Result, run_script

TARGETS = {"eth_blockNumber": ([], 20_000), "eth_getBalance": ([DEV0, "latest"], 10_000)}
CEILING_SHARE = {"eth_blockNumber": 0.85, "eth_getBalance": 0.70}


def wrk(url, connections, seconds, body=None):
    """req/s and p50/p99 latency of `seconds` of wrk (1 thread) against url: POST `body` with jsonrpc.lua,
    or GET without one. Any non-2xx answer or socket error ends the run."""
    script = ["-s", str(REPO / "bench" / "jsonrpc.lua")] if body is not None else []
    tail = ["--", body] if body is not None else []
    out = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", *script, url, *tail],
                         capture_output=True, text=True, check=True).stdout
    if "Non-2xx" in out or "Socket errors" in out:
        sys.exit(f"wrk saw failed requests:\n{out}")
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    latency = {p: re.search(rf"^\s+{p}%\s+(\S+)", out, re.M).group(1) for p in ("50", "99")}
    return rate, latency


def need_wrk():
    if shutil.which("wrk") is None:
        sys.exit("wrk is missing: apt-get install -y wrk")


def read_rates(url, rpc, methods, connections, warmup, seconds, params=None):
    """{method: (req/s, latency)} of each method POSTed by wrk to url; `rpc(method, *params)` checks it first.

    params overrides TARGETS' parameters per method (a peer's own account)."""
    out = {}
    for method in methods:
        method_params = (params or {}).get(method, TARGETS[method][0])
        answer = rpc(method, *method_params)
        if "result" not in answer:
            sys.exit(f"{method} does not answer a result: {answer}")
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": method_params})
        wrk(url, connections, warmup, body)
        out[method] = wrk(url, connections, seconds, body)
    return out


# The node makes no block while it is measured (a dev home makes an empty one each second).
NO_EMPTY_BLOCKS = "[chain]\nempty-blocks = false\n"


class Ceiling:
    """`with Ceiling(body) as ceiling:` bench/rpc_ceiling.py in a process of its own (ceiling.url, .pid)."""

    def __init__(self, body, direct=False):
        self.body = body
        self.direct = direct

    def __enter__(self):
        self.process = subprocess.Popen([sys.executable, str(REPO / "bench" / "rpc_ceiling.py"), "--body", self.body,
                                         *(["--direct"] if self.direct else [])], stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("ceiling: "):
            self.process.kill()
            sys.exit(f"the ceiling server did not start: {line!r}")
        self.url, self.pid = "http://" + line.split()[1], self.process.pid
        return self

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait(timeout=10)


def cpu_seconds(pid):
    """User + system CPU seconds of process `pid` so far (/proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed_wrk(url, pid, connections, seconds, body):
    """(req/s, requests per CPU-second of the server `pid`) of one wrk run."""
    before = cpu_seconds(pid)
    rate, _ = wrk(url, connections, seconds, body)
    return rate, rate * seconds / max(cpu_seconds(pid) - before, 1e-9)


def measure_ceiling(args):
    """Alternating rounds: the ceiling, then each method on the node; medians of rates and of requests per
    CPU-second of the server (which a busy box disturbs less), and their ratios to the ceiling's."""
    methods = args.methods.split(",")
    ceiling_body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []})
    rates = {"ceiling": [], **{m: [] for m in methods}}
    with DevNode(config=NO_EMPTY_BLOCKS) as node, \
            Ceiling('{"jsonrpc":"2.0","id":1,"result":"0x1"}', args.ceiling_direct) as ceiling:
        bodies = {}
        for method in methods:
            params = TARGETS[method][0]
            if "result" not in node.rpc(method, *params):
                sys.exit(f"{method} does not answer a result")
            bodies[method] = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        for round_ in range(args.rounds):
            wrk(ceiling.url, args.connections, args.warmup, ceiling_body)
            rates["ceiling"].append(timed_wrk(ceiling.url, ceiling.pid, args.connections, args.seconds, ceiling_body))
            for method in methods:
                wrk(node.url, args.connections, args.warmup, bodies[method])
                rates[method].append(timed_wrk(node.url, node.process.pid, args.connections, args.seconds,
                                               bodies[method]))
            print(f"round {round_ + 1}: " + ", ".join(f"{k} {v[-1][0]:,.0f} req/s ({v[-1][1]:,.0f}/CPU-s)"
                                                      for k, v in rates.items()), flush=True)
    top = statistics.median(r for r, _ in rates["ceiling"])
    top_cpu = statistics.median(c for _, c in rates["ceiling"])
    print(f"{'ceiling':16} {top:9,.0f} req/s, {top_cpu:9,.0f} req/CPU-s (medians of {args.rounds} rounds)")
    results = [Result("rpc.ceiling", f"constant-body Twisted protocol, wrk {args.connections} connections", "req/s",
                      top, None, issue=18)]
    for method in methods:
        rate = statistics.median(r for r, _ in rates[method])
        per_cpu = statistics.median(c for _, c in rates[method])
        share, bar = rate / top, CEILING_SHARE[method]
        rounds = ", ".join(f"{r / c:.0%}" for (r, _), (c, _) in zip(rates[method], rates["ceiling"], strict=True))
        print(f"{method:16} {rate:9,.0f} req/s  {share:.0%} of the ceiling (bar {bar:.0%}: "
              f"{'pass' if share >= bar else 'fail'}; rounds {rounds}); per CPU-second {per_cpu:,.0f}, "
              f"{per_cpu / top_cpu:.0%} of the ceiling's")
        results.append(Result(f"rpc.{method}.ceiling", f"{method} / ceiling", "ratio", share, bar, issue=18,
                              note=f"per CPU-second {per_cpu / top_cpu:.0%}"))
    return results


def measure(args):
    need_wrk()
    if args.ceiling:
        return measure_ceiling(args)
    results = []
    # --metrics: the node serves /metrics, so every request is counted and timed (the cost to compare).
    config = f'[instrumentation]\nprometheus = true\nprometheus-listen-addr = "127.0.0.1:{free_port()}"\n'
    with DevNode(config=config if args.metrics else "") as node:
        rates = read_rates(node.url, node.rpc, args.methods.split(","), args.connections, args.warmup, args.seconds)
    for method, (rate, latency) in rates.items():
        target = TARGETS[method][1]
        print(f"{method:16} {rate:9,.0f} req/s  p50 {latency['50']:>8}  p99 {latency['99']:>8}  "
              f"target {target:,}  ratio {rate / target:.2f}")
        results.append(Result(f"rpc.{method}", f"{method}, wrk {args.connections} connections", "req/s", rate,
                              target, issue=2, compare=f"rpc.{method}", note=f"p99 {latency['99']}"))
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--warmup", type=int, default=3, help="seconds of load before measuring")
    parser.add_argument("--seconds", type=int, default=10, help="seconds measured")
    parser.add_argument("--methods", default=",".join(TARGETS))
    parser.add_argument("--metrics", action="store_true", help="with [instrumentation] prometheus on")
    parser.add_argument("--ceiling", action="store_true", help="against the ceiling of our stack (issue 18)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds with --ceiling")
    parser.add_argument("--ceiling-direct", action="store_true",
                        help="the stricter ceiling: it too writes answers straight into the socket")
    run_script(parser, measure, argv)


if __name__ == "__main__":
    main()
