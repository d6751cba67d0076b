"""Issue 19's bars: the commit of a block changing 10,000 native keys, and abci_query with proof at the head.

commit: an App on a temp LevelDB (no node) commits blocks whose end blocker sets 10,000 bank balances of
fresh addresses (the stores grow by 10,000 keys a block); finalize_block + commit is timed per block, the
median over --blocks. `--before PATH` measures the same with the checkout at PATH (a commit before the
IAVL stores) and reports the difference. Bar: at most 150 ms added.

proof: a real node (twistd, temp dev home); abci_query GET /abci_query?path="/store/bank/key"&prove=true
for dev account 0's base-denom balance at the head, one keep-alive connection, --samples sequential
calls; p50 and p99 of the round trip. Bar: p50 under 2 ms.

    /work/venv/bin/python bench/store_commit.py [--blocks 5] [--keys 10000] [--samples 1000] [--before PATH]
"""

import argparse
import http.client
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def measure_commit(args):
    from chaind.chain import registry
    from chaind.chain.app import App
    from chaind.chain.genesis import Genesis
    from chaind.chain.module import Module
    from chaind.home import Home
    from chaind.store.db import Database
    from chaind.store.keys import compose

    counter = [0]

    def write_balances(app, ctx):
        start = counter[0]
        counter[0] += args.keys
        for i in range(start, start + args.keys):
            ctx.store.set(compose("bank", "bal", i.to_bytes(20, "big"), "ibc/BENCH"), str(i + 1).encode())

    with tempfile.TemporaryDirectory(prefix="chaind-bench-") as tmp:
        home = Home(pathlib.Path(tmp) / "home")
        home.init("bench", dev=True)
        genesis = Genesis.load(home.genesis_file)
        db = Database(pathlib.Path(tmp) / "chain.db")
        app = App(db, genesis, modules=registry.MODULES + (Module("bench", end_block=write_balances),))
        times, cpu = [], []
        for _ in range(args.blocks):
            begin, begin_cpu = time.perf_counter(), time.process_time()
            block, puts = app.finalize_block([], genesis.genesis_time_ns + (app.height + 1) * 10**9, bytes(20))
            app.commit(block, puts)
            times.append(time.perf_counter() - begin)
            cpu.append(time.process_time() - begin_cpu)
        db.close()
    return times, cpu


def measure_proof(args):
    sys.path.insert(0, str(ROOT / "bench"))
    from devnode import DEV0, DevNode
    with DevNode() as node:
        deadline = time.monotonic() + 30
        while int(node.rpc("eth_blockNumber")["result"], 16) < 3 and time.monotonic() < deadline:
            time.sleep(0.2)
        key = b"\x02\x14" + bytes.fromhex(DEV0[2:]) + b"achain"
        path = f'/abci_query?path="/store/bank/key"&data=0x{key.hex()}&prove=true'
        conn = http.client.HTTPConnection("127.0.0.1", node.comet_port)
        samples = []
        for i in range(args.samples + 50):
            begin = time.perf_counter()
            conn.request("GET", path)
            answer = json.loads(conn.getresponse().read())["result"]["response"]
            elapsed = time.perf_counter() - begin
            assert answer["code"] == 0 and answer["value"] and len(answer["proofOps"]["ops"]) == 2, answer
            if i >= 50:
                samples.append(elapsed)
        conn.close()
    samples.sort()
    return samples


def measure(args):
    sys.path.insert(0, args.repo)
    sys.path.insert(0, str(ROOT / "bench"))
    from results import Result
    out = []
    if args.only != "proof":
        times, cpu = measure_commit(args)
        median = statistics.median(times) * 1000
        # CPU time too: on a shared box the wall time of this pure-Python work moves with the load.
        print(f"commit of a block setting {args.keys:,} native keys ({args.repo}): median {median:.0f} ms over "
              f"{args.blocks} blocks ({', '.join(f'{t * 1000:.0f}' for t in times)} ms), "
              f"CPU {statistics.median(cpu) * 1000:.0f} ms")
        out.append(Result("store.commit_10k_keys", f"commit of a block setting {args.keys:,} native keys", "ms",
                          round(median, 1), None, False, 19))
        out.append(Result("store.commit_10k_keys_cpu", "CPU time of that commit", "ms",
                          round(statistics.median(cpu) * 1000, 1), None, False, 19))
        if args.before:
            run = subprocess.run([sys.executable, __file__, "--only", "commit", "--repo", args.before, "--json",
                                  "--blocks", str(args.blocks), "--keys", str(args.keys)],
                                 capture_output=True, text=True, check=True)
            before, before_cpu = (r["measured"] for r in json.loads(run.stdout)[:2])
            print(f"the same before ({args.before}): median {before:.0f} ms, CPU {before_cpu:.0f} ms; the IAVL "
                  f"stores add {median - before:.0f} ms (CPU {statistics.median(cpu) * 1000 - before_cpu:.0f} ms)")
            out.append(Result("store.commit_10k_keys_added", "commit time the IAVL stores add (10,000 keys)", "ms",
                              round(median - before, 1), 150.0, False, 19))
    if args.only != "commit":
        samples = measure_proof(args)
        p50, p99 = samples[len(samples) // 2], samples[int(len(samples) * 0.99)]
        print(f"abci_query /store/bank/key prove=true at the head: p50 {p50 * 1000:.2f} ms, "
              f"p99 {p99 * 1000:.2f} ms over {len(samples)} calls (bar: p50 < 2 ms)")
        out.append(Result("store.proof_p50", "abci_query with proof of a bank balance at the head, p50", "ms",
                          round(p50 * 1000, 3), 2.0, False, 19))
    return out


def main():
    sys.path.insert(0, str(ROOT / "bench"))
    from results import run_script
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=5)
    parser.add_argument("--keys", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--repo", default=str(ROOT), help="the checkout whose chaind is measured")
    parser.add_argument("--before", metavar="PATH", help="also measure the commit with the checkout at PATH")
    parser.add_argument("--only", choices=("commit", "proof"))
    run_script(parser, measure)


if __name__ == "__main__":
    main()
