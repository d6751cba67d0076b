"""The long crash run of issue 8: mixed load, SIGKILL at random moments (50 times by default),
restart and check after each, then replay the whole chain from genesis.

    python bench/crash_run.py [--kills 50] [--seed N] [--pruning]

It runs tests/crash_load.py's harness, as tests/test_persistence.py does (5 + 2 kills in CI), and prints
what survived and how long restarts took.
"""

import argparse
import pathlib
import statistics
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests"))

from crash_load import kill_cycles


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--pruning", action="store_true", help="run the node with pruning = 30")
    args = parser.parse_args()
    storage = "[storage]\npruning = 30\nprune-interval = 3\n" if args.pruning else ""
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="chaind-crash-") as tmp:
        stats = kill_cycles(pathlib.Path(tmp), storage, args.kills, args.seed)
    restarts = stats["restart_seconds"]
    print(f"kills: {stats['kills']} (seed {args.seed}), final height {stats['height']}, "
          f"{stats['receipts']} EVM receipts and {stats['commits']} broadcast_tx_commit results seen, all "
          f"found unchanged after every restart; replay from genesis: same block and app hashes")
    print(f"restart to serving: median {statistics.median(restarts):.2f} s, max {max(restarts):.2f} s; "
          f"run took {time.monotonic() - began:.0f} s")


if __name__ == "__main__":
    main()
