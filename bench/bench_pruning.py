"""Cost of one pruning pass (chaind/store/pruning.py) against the state size, beside the cost of a block.

Usage: python bench/bench_pruning.py [ACCOUNTS ...]   (default 1000 10000; prints figures, asserts nothing)
"""

import sys
import tempfile
import time
from pathlib import Path

from eth_account import Account

from chaind.chain import txs
from chaind.chain.app import App
from chaind.chain.genesis import Genesis
from chaind.chain.options import AppOptions
from chaind.home import Home
from chaind.store import keys
from chaind.store.db import Database

PER_BLOCK = 500


def run(accounts):
    tmp = Path(tempfile.mkdtemp(prefix="bench-pruning-"))
    home = Home(tmp / "home")
    home.init("bench", dev=True)
    genesis = Genesis.load(home.genesis_file)
    # Its blocks carry no signatures: the validator must not be jailed for downtime (x/slashing) meanwhile.
    genesis.document["app_state"]["slashing"]["params"]["min_signed_per_window"] = "0"
    genesis = Genesis.from_document(genesis.document)
    db = Database(tmp / "db")
    # pruning=10, prune_interval large: passes only run when called below.
    app = App(db, genesis, AppOptions(pruning=10, prune_interval=10**9))
    key = home.dev_keys()[0].private_key

    def block(raws):
        height = app.height + 1
        started = time.perf_counter()
        committed, puts = app.finalize_block(raws, genesis.genesis_time_ns + height * 10**9, b"\x01" * 20)
        app.commit(committed, puts)
        return time.perf_counter() - started

    def transfer(nonce, to):
        signed = Account.sign_transaction({"chainId": 9000, "gas": 21000, "maxFeePerGas": 10**10,
                                           "maxPriorityFeePerGas": 1, "nonce": nonce, "to": to, "value": 1}, key)
        return txs.wrap_evm(signed.raw_transaction, 9000, genesis.base_denom).raw

    nonce = 0
    for start in range(0, accounts, PER_BLOCK):
        count = min(PER_BLOCK, accounts - start)
        raws = [transfer(nonce + i, (0x1000 + start + i).to_bytes(20, "big")) for i in range(count)]
        nonce += len(raws)
        block(raws)
    # 30 blocks of 20 transfers each among the existing accounts: garbage for the pass to find.
    times = []
    for _ in range(30):
        raws = [transfer(nonce + i, (0x1000 + (nonce + i) * 7 % accounts).to_bytes(20, "big")) for i in range(20)]
        nonce += len(raws)
        times.append(block(raws))
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
