"""Cost of one pruning pass (chaind/store/pruning.py) against the state size, beside the cost of a block.

Usage: python bench/bench_pruning.py [ACCOUNTS ...]   (default 1000 10000; prints figures, asserts nothing)
"""

import sys
import tempfile
import time
from pathlib import Path

from chaind.chain.app import App
from chaind.chain.options import AppOptions
from chaind.store import keys
from transfer_chain import TransferChain, unsigned_blocks_genesis

PER_BLOCK = 500


def run(accounts):
    tmp = Path(tempfile.mkdtemp(prefix="bench-pruning-"))
    genesis, home = unsigned_blocks_genesis(tmp / "home")
    # pruning=10, prune_interval large: passes only run when called below.
    chain = TransferChain(tmp / "db", genesis, home.dev_keys()[0].private_key,
                          AppOptions(pruning=10, prune_interval=10**9))
    db = chain.db
    chain.fill(accounts, PER_BLOCK)
    # 30 blocks of 20 transfers each among the existing accounts: garbage for the pass to find.
    times = [chain.block(chain.among(accounts)) for _ in range(30)]
    before = sum(1 for _ in db.keys(keys.EVM_NODE)), sum(1 for _ in db.keys(keys.VERSIONED))
    # The same store under an App whose pass trails the window by one block.
    app = App(db, genesis, AppOptions(pruning=10, prune_interval=1))
    started = time.perf_counter()
    stats = app.prune()
    elapsed = time.perf_counter() - started
    after = sum(1 for _ in db.keys(keys.EVM_NODE)), sum(1 for _ in db.keys(keys.VERSIONED))
    print(f"accounts={accounts} heights kept={app.height - stats.horizon + 1} "
          f"s: keys {before[0]} -> {after[0]} (live {stats.nodes_kept}, deleted {stats.nodes_deleted}) "
          f"v: keys {before[1]} -> {after[1]} (deleted {stats.versions_deleted})")
    block_ms = 1000 * sorted(times)[len(times) // 2]
    print(f"  pass {elapsed * 1000:.0f} ms; a 20-tx block {block_ms:.0f} ms (median); "
          f"pass / block = {elapsed * 1000 / block_ms:.1f}")
    db.close()


if __name__ == "__main__":
    for n in [int(a) for a in sys.argv[1:]] or [1000, 10000]:
        run(n)
