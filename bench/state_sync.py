"""State-sync snapshot figures (chain/snapshot.py): time to take one while blocks go on (and the longest block
meanwhile), its size beside the LevelDB directory's, and the time to restore it into a fresh App.

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
from chaind.chain.options import AppOptions
from chaind.store.db import Database
from transfer_chain import TransferChain, unsigned_blocks_genesis

PER_BLOCK = 500


def _size(path):
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def run(accounts):
    tmp = Path(tempfile.mkdtemp(prefix="bench-state-sync-"))
    genesis, home = unsigned_blocks_genesis(tmp / "home")
    fresh_db = Database(tmp / "fresh")
    fresh = App(fresh_db, genesis, AppOptions())
    chain = TransferChain(tmp / "db", genesis, home.dev_keys()[0].private_key, AppOptions())
    app, db = chain.app, chain.db
    chain.fill(accounts, PER_BLOCK)
    height = app.height
    # The snapshot on a thread, as the node takes it, while 20-tx blocks go on here.
    view = db.frozen()
    out = {}

    def take():
        started = time.perf_counter()
        out["chunks"] = list(snapshot.chunks(snapshot.items(app, view, height)))
        out["seconds"] = time.perf_counter() - started
    taker = threading.Thread(target=take)
    taker.start()
    blocks = []
    while taker.is_alive():
        blocks.append(chain.block(chain.among(accounts)))
    taker.join()
    view.release()
    chunks = out["chunks"]
    size = sum(len(c) for c in chunks)
    print(f"accounts={accounts} height={height}: snapshot {out['seconds']:.2f} s, {len(chunks)} chunk(s), "
          f"{size / 2**20:.1f} MiB; LevelDB dir {_size(tmp / 'db') / 2**20:.1f} MiB; "
          f"{len(blocks)} 20-tx blocks meanwhile, longest {1000 * max(blocks, default=0):.0f} ms")
    meta = snapshot.Snapshot(height, snapshot.FORMAT, len(chunks), hashlib.sha256(b"".join(chunks)).digest(),
                             tuple(hashlib.sha256(c).digest() for c in chunks))
    started = time.perf_counter()
    restore = snapshot.Restore(fresh, meta, app.block_at(height)[1].app_hash, 1 << 40)
    for c in chunks:
        restore.apply_chunk(c)
    same = fresh.head[1].app_hash == app.block_at(height)[1].app_hash
    print(f"  restored in {time.perf_counter() - started:.2f} s into a fresh App (same app hash: {same})")
    db.close()
    fresh_db.close()
    shutil.rmtree(tmp)


if __name__ == "__main__":
    for n in [int(a) for a in sys.argv[1:]] or [10000]:
        run(n)
