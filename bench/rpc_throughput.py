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

from devnode import DEV0, REPO, DevNode

TARGETS = {"eth_blockNumber": ([], 20_000), "eth_getBalance": ([DEV0, "latest"], 10_000)}


def wrk(url, body, connections, seconds):
    out = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency",
                          "-s", str(REPO / "bench" / "jsonrpc.lua"), url, "--", body],
                         capture_output=True, text=True, check=True).stdout
    if "Non-2xx" in out or "Socket errors" in out:
        sys.exit(f"wrk saw failed requests:\n{out}")
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    latency = {p: re.search(rf"^\s+{p}%\s+(\S+)", out, re.M).group(1) for p in ("50", "99")}
    return rate, latency


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--warmup", type=int, default=3, help="seconds of load before measuring")
    parser.add_argument("--seconds", type=int, default=10, help="seconds measured")
    parser.add_argument("--methods", default=",".join(TARGETS))
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is missing: apt-get install -y wrk")
    with DevNode() as node:
        for method in args.methods.split(","):
            params, target = TARGETS[method]
            answer = node.rpc(method, *params)
            if "result" not in answer:
                sys.exit(f"{method} does not answer a result: {answer}")
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
            wrk(node.url, body, args.connections, args.warmup)
            rate, latency = wrk(node.url, body, args.connections, args.seconds)
            print(f"{method:16} {rate:9,.0f} req/s  p50 {latency['50']:>8}  p99 {latency['99']:>8}  "
                  f"target {target:,}  ratio {rate / target:.2f}")


if __name__ == "__main__":
    main()
