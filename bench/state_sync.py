"""State-sync snapshot figures (chain/snapshot.py) at the issue's sizes: a chain of ACCOUNTS funded accounts, 1,000
contracts with storage and 100 validators; the time to take a snapshot on a thread while blocks go on at their 1 s
interval (and the longest interval meanwhile), its size beside the LevelDB directory's, the time to restore it into
a fresh App (an empty home), and the time `chaind export` takes for the same state.

Each time is printed as wall-clock and as the CPU time of the thread that did it: on a shared machine the first
counts the other processes' load too.

Usage: python bench/state_sync.py [ACCOUNTS ...]   (default 10000; prints figures, asserts nothing)
"""

import hashlib
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

from chaind.chain import snapshot
from chaind.chain.app import App
from chaind.chain.genesis import export_document
from chaind.chain.options import AppOptions
from chaind.store.db import Database
from transfer_chain import TransferChain, unsigned_blocks_genesis

PER_BLOCK = 500
CONTRACTS, SLOTS, CONTRACTS_PER_BLOCK = 1000, 10, 25
VALIDATORS = 100
INTERVAL = 1.0      # seconds between blocks while the snapshot is taken, as a node's


def _size(path):
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def run(accounts):
    tmp = Path(tempfile.mkdtemp(prefix="bench-state-sync-"))
    genesis, home = unsigned_blocks_genesis(tmp / "home", VALIDATORS)
    chain = TransferChain(tmp / "db", genesis, home.dev_keys()[0].private_key, AppOptions())
    app, db = chain.app, chain.db
    started = time.perf_counter()
    deployed = chain.contracts(CONTRACTS, SLOTS, CONTRACTS_PER_BLOCK)
    chain.fill(accounts, PER_BLOCK)
    height = app.height
    print(f"accounts={accounts} contracts={CONTRACTS}x{SLOTS} slots (all deployed: {deployed}) "
          f"validators={len(app.keepers['staking'].validators(app.view()))} height={height}: built in "
          f"{time.perf_counter() - started:.0f} s")
    # The snapshot on a thread, as the node takes it, while 20-tx blocks go on here one a second.
    view = db.frozen()
    out = {}

    def take():
        began, cpu = time.perf_counter(), time.thread_time()
        out["chunks"] = list(snapshot.chunks(snapshot.item_bytes(app, view, height)))
        out["seconds"], out["cpu"] = time.perf_counter() - began, time.thread_time() - cpu
    taker = threading.Thread(target=take)
    taker.start()
    starts = []
    while taker.is_alive():
        starts.append(time.perf_counter())
        chain.block(chain.among(accounts))
        time.sleep(max(0.0, starts[-1] + INTERVAL - time.perf_counter()))
    taker.join()
    view.release()
    intervals = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    chunks = out["chunks"]
    size = sum(len(c) for c in chunks)
    print(f"  snapshot {out['seconds']:.2f} s ({out['cpu']:.2f} s of CPU), {len(chunks)} chunk(s), "
          f"{size / 2**20:.1f} MiB; LevelDB dir "
          f"{_size(tmp / 'db') / 2**20:.1f} MiB; {len(starts)} 20-tx blocks meanwhile, longest interval "
          f"{max(intervals, default=0):.2f} s")
    meta = snapshot.Snapshot(height, snapshot.FORMAT, len(chunks), hashlib.sha256(b"".join(chunks)).digest(),
                             tuple(hashlib.sha256(c).digest() for c in chunks))
    fresh_db = Database(tmp / "fresh")
    fresh = App(fresh_db, genesis, AppOptions())
    began, cpu = time.perf_counter(), time.thread_time()
    restore = snapshot.Restore(fresh, meta, app.block_at(height)[1].app_hash, 1 << 40)
    for c in chunks:
        restore.apply_chunk(c)
    same = fresh.head[1].app_hash == app.block_at(height)[1].app_hash
    print(f"  restored in {time.perf_counter() - began:.2f} s ({time.thread_time() - cpu:.2f} s of CPU) into a "
          f"fresh App (same app hash: {same})")
    fresh_db.close()
    began, cpu = time.perf_counter(), time.thread_time()
    doc = export_document(app, height)
    print(f"  exported (chaind export's document) in {time.perf_counter() - began:.2f} s "
          f"({time.thread_time() - cpu:.2f} s of CPU): "
          f"{len(doc['app_state']['bank']['balances'])} balances, {len(doc['app_state']['evm']['accounts'])} "
          f"EVM accounts with code or storage")
    db.close()
    shutil.rmtree(tmp)


if __name__ == "__main__":
    for n in [int(a) for a in sys.argv[1:]] or [10000]:
        run(n)
