"""Issue 19's bars: the commit of a block changing 10,000 native keys, and abci_query with proof at the head.

commit: an App on a temp LevelDB (no node) commits blocks whose end blocker sets 10,000 bank balances of
fresh addresses (the stores grow by 10,000 keys a block); finalize_block + commit is timed per block (wall and
CPU), the median over --blocks. `--before PATH` measures the same with the checkout at PATH, a commit before
the IAVL stores (`git worktree add --detach PATH e1c9212^`), whose App predates the module registry: there
the end blocker joins `registry.END_BLOCKERS`, the API that tree had. Before and after run in turns, each in
its own process, --rounds times; the difference is the median of the rounds' differences. Bar: at most
150 ms added.

proof: a real node (twistd, temp dev home); abci_query GET /abci_query?path="/store/bank/key"&prove=true
for dev account 0's base-denom balance at the head, one keep-alive connection, --samples sequential
calls; p50 and p99 of the round trip. Bar: p50 under 2 ms.

    python bench/store_commit.py [--blocks 5] [--keys 10000] [--samples 1000] [--before PATH]
        [--rounds 3]
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
        if hasattr(registry, "MODULES"):
            from chaind.chain.module import Module
            app = App(db, genesis, modules=registry.MODULES + (Module("bench", end_block=write_balances),))
        else:
            # The tree before the IAVL stores: end blockers were a tuple of functions the App reads each block.
            registry.END_BLOCKERS = (*registry.END_BLOCKERS, write_balances)
            app = App(db, genesis)
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


def _commit_in_process(args, repo):
    """(median wall ms, median CPU ms) of the commit measured by a fresh process on the checkout at `repo`."""
    run = subprocess.run([sys.executable, __file__, "--only", "commit", "--repo", repo, "--json",
                          "--blocks", str(args.blocks), "--keys", str(args.keys)],
                         capture_output=True, text=True, check=True)
    wall, cpu = (r["measured"] for r in json.loads(run.stdout)[:2])
    return wall, cpu


def compare_commits(args):
    from results import Result
    rounds = []
    for _ in range(args.rounds):
        # In turns, so that both sides see the same load.
        before = _commit_in_process(args, args.before)
        after = _commit_in_process(args, args.repo)
        rounds.append((before, after))
        print(f"  round: before {before[0]:.0f} ms (CPU {before[1]:.0f}), after {after[0]:.0f} ms "
              f"(CPU {after[1]:.0f}): +{after[0] - before[0]:.0f} ms (CPU +{after[1] - before[1]:.0f})")
    wall = statistics.median(a[0] - b[0] for b, a in rounds)
    cpu = statistics.median(a[1] - b[1] for b, a in rounds)
    after_wall = statistics.median(a[0] for _, a in rounds)
    after_cpu = statistics.median(a[1] for _, a in rounds)
    print(f"commit of a block setting {args.keys:,} native keys: {after_wall:.0f} ms (CPU {after_cpu:.0f}) on "
          f"{args.repo}; the IAVL stores add {wall:.0f} ms wall, {cpu:.0f} ms CPU against {args.before} "
          f"(median of {args.rounds} alternating rounds; bar 150 ms)")
    return [Result("store.commit_10k_keys", f"commit of a block setting {args.keys:,} native keys", "ms",
                   round(after_wall, 1), None, False, 19),
            Result("store.commit_10k_keys_cpu", "CPU time of that commit", "ms", round(after_cpu, 1), None, False, 19),
            Result("store.commit_10k_keys_added", "commit time the IAVL stores add (10,000 keys)", "ms",
                   round(wall, 1), 150.0, False, 19),
            Result("store.commit_10k_keys_added_cpu", "commit CPU time the IAVL stores add (10,000 keys)", "ms",
                   round(cpu, 1), 150.0, False, 19)]


def measure(args):
    sys.path.insert(0, args.repo)
    sys.path.insert(0, str(ROOT / "bench"))
    from results import Result
    out = []
    if args.only != "proof" and args.before:
        out += compare_commits(args)
    elif args.only != "proof":
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
    parser.add_argument("--rounds", type=int, default=3, help="alternating before/after rounds with --before")
    parser.add_argument("--only", choices=("commit", "proof"))
    run_script(parser, measure)


if __name__ == "__main__":
    main()
