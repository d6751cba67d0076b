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

from eth_account import Account

from chaind.chain import snapshot, txs
from chaind.chain.app import App
from chaind.chain.genesis import Genesis
from chaind.chain.options import AppOptions
from chaind.home import Home
from chaind.store.db import Database

PER_BLOCK = 500


def _size(path):
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def run(accounts):
    tmp = Path(tempfile.mkdtemp(prefix="bench-state-sync-"))
    home = Home(tmp / "home")
    home.init("bench", dev=True)
    genesis = Genesis.load(home.genesis_file)
    # Its blocks carry no signatures: the validator must not be jailed for downtime (x/slashing) meanwhile.
    genesis.document["app_state"]["slashing"]["params"]["min_signed_per_window"] = "0"
    genesis = Genesis.from_document(genesis.document)
    fresh_db = Database(tmp / "fresh")
    fresh = App(fresh_db, genesis, AppOptions())
    db = Database(tmp / "db")
    app = App(db, genesis, AppOptions())
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
        block([transfer(nonce + i, (0x1000 + start + i).to_bytes(20, "big")) for i in range(count)])
        nonce += count
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
        raws = [transfer(nonce + i, (0x1000 + (nonce + i) * 7 % accounts).to_bytes(20, "big")) for i in range(20)]
        nonce += len(raws)
        blocks.append(block(raws))
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
