"""Two chains for snapshot restores: a source at height 2 (a contract with storage, a native send) and a fresh copy of
its home before its first block (the `pair` fixture); a snapshot's metadata from its chunks."""

import hashlib
import shutil

import pytest

from chain_driver import PROPOSER, RECIPIENTS, Chain, contract_address
from chaind.chain import snapshot
from contracts import INIT

S = 10**9
BIG = 1 << 30     # bytes a restore may inflate to ([state-sync] max-restore-bytes)
SMALL = 701       # bytes a chunk here: items straddle chunks (format 3's are 10 MB)


def seal_block(chain, raws):
    chain.clock += S
    block, puts = chain.app.finalize_block(raws, chain.clock, PROPOSER)
    assert all(r.code == 0 for r in block.results), [r.log for r in block.results]
    chain.app.commit(block, puts)
    return block


def snapshot_of(chunks, height):
    whole = hashlib.sha256(b"".join(chunks)).digest()
    return snapshot.Snapshot(height, snapshot.FORMAT, len(chunks), whole,
                             tuple(hashlib.sha256(c).digest() for c in chunks))


def contents(db):
    return dict(db.iterate(b""))


@pytest.fixture
def pair(tmp_path):
    """(source chain at height 2, fresh chain before its first block, the source's items at 2)."""
    source = Chain(tmp_path, "home/data/chain.db")
    source.close()
    shutil.copytree(source.home.path, tmp_path / "fresh" / "home")
    source.open()
    source.clock = source.genesis.genesis_time_ns
    contract = contract_address(source.keys[1].address, 0)
    seal_block(source, [source.evm(1, 0, data=INIT), source.native_send(2, RECIPIENTS[0], 10**15)])
    seal_block(source, [source.evm(1, 1, to=contract, data=(3).to_bytes(32, "big"))])
    view = source.db.frozen()
    try:
        items = list(snapshot.items(source.app, view, 2))
    finally:
        view.release()
    fresh = Chain(tmp_path / "fresh", "home/data/chain.db")
    assert fresh.genesis.document == source.genesis.document
    yield source, fresh, items
    source.close()
    fresh.close()
