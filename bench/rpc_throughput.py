"""JSON-RPC read throughput: eth_blockNumber and eth_getBalance (dev account 0 at latest) with wrk.

Bar (issue 2, 2-core box, 32 keep-alive connections from a separate process):
eth_blockNumber >= 20,000 req/s, eth_getBalance >= 10,000 req/s.
"""

import argparse
import json
import re
import shutil
import subprocess
import sys

from devnode import DEV0, REPO, DevNode, free_port
from results import Result, run_script

TARGETS = {"eth_blockNumber": ([], 20_000), "eth_getBalance": ([DEV0, "latest"], 10_000)}


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


def measure(args):
    need_wrk()
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
    run_script(parser, measure, argv)


if __name__ == "__main__":
    main()
