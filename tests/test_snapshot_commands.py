"""`chaind snapshots list|export|restore|dump|load|delete` as the SDK v0.50's: a stopped node's height exported to
its snapshot store, dumped to an archive, loaded into a fresh home and restored there to the same app hash and state;
bad heights, archives and a home with blocks refused with the SDK's words."""

import io
import shutil
import tarfile

import pytest

import staking_msgs as m
from chain_driver import PROPOSER, RECIPIENTS, Chain, contract_address
from chaind.store.db import Database
from chaind.store.versioned import VersionedReader
from cli_driver import cli, failed, ok
from contracts import INIT

S = 10**9


def _block(chain, raws):
    chain.clock += S
    block, puts = chain.app.finalize_block(raws, chain.clock, PROPOSER)
    assert all(r.code == 0 for r in block.results), [r.log for r in block.results]
    chain.app.commit(block, puts)
    return block


def _native(path, height):
    db = Database(path)
    try:
        return dict(VersionedReader(db, height).iterate(b""))
    finally:
        db.close()


@pytest.fixture
def chained(tmp_path):
    """A chain of three blocks (a contract with storage, bank sends, a delegation) in `home`, and `fresh`: a copy
    of its home before the first block. (chain, fresh home path, app hash at 3)"""
    chain = Chain(tmp_path, "home/data/chain.db")
    chain.close()
    shutil.copytree(chain.home.path, tmp_path / "fresh")
    chain.open()
    chain.clock = chain.genesis.genesis_time_ns
    k = [key.address for key in chain.keys]
    contract = contract_address(k[1], 0)
    _block(chain, [chain.evm(1, 0, data=INIT), chain.native_send(2, RECIPIENTS[0], 10**15)])
    _block(chain, [chain.evm(1, 1, to=contract, data=(5).to_bytes(32, "big")),
                   chain.native(chain.keys[4], [m.delegate(chain.genesis.bech32_prefix, k[4], k[0], 5 * 10**18)],
                                gas=400000)])
    app_hash = _block(chain, [chain.native_send(3, RECIPIENTS[1], 7)]).meta.app_hash
    chain.close()
    return chain, tmp_path / "fresh", app_hash


def test_export_dump_load_restore_gives_the_same_state(chained, tmp_path):
    chain, fresh, app_hash = chained
    home = chain.home.path
    assert ok(cli("snapshots", "export", "--home", home)).stdout == \
        "Exporting snapshot for height 3\nSnapshot created at height 3, format 3, chunks 1\n"
    ok(cli("snapshots", "export", "--height", 2, "--home", home))
    assert ok(cli("snapshots", "list", "--home", home)).stdout == \
        "height: 3 format: 3 chunks: 1\nheight: 2 format: 3 chunks: 1\n"
    archive = tmp_path / "three.tar.gz"
    ok(cli("snapshots", "dump", 3, 3, "-o", archive, "--home", home))
    with tarfile.open(archive) as tar:
        assert tar.getnames() == ["_snapshot", "0"]
    ok(cli("snapshots", "load", archive, "--home", fresh))
    assert ok(cli("snapshots", "list", "--home", fresh)).stdout == "height: 3 format: 3 chunks: 1\n"
    assert ok(cli("snapshots", "restore", 3, 3, "--home", fresh)).stdout == ""
    chain.path = fresh / "data" / "chain.db"
    chain.open()
    try:
        assert chain.app.height == 3 and chain.app.head[1].app_hash == app_hash
    finally:
        chain.close()
    assert _native(fresh / "data" / "chain.db", 3) == _native(home / "data" / "chain.db", 3)
    failed(cli("snapshots", "restore", 3, 3, "--home", fresh), "cannot restore a snapshot into a node with blocks")
    ok(cli("snapshots", "delete", 2, 3, "--home", home))
    assert ok(cli("snapshots", "list", "--home", home)).stdout == "height: 3 format: 3 chunks: 1\n"


def test_bad_heights_archives_and_snapshots_are_refused(chained, tmp_path):
    chain, fresh, _ = chained
    home = chain.home.path
    failed(cli("snapshots", "export", "--height", 9, "--home", home), "cannot export snapshot at height 9")
    failed(cli("snapshots", "dump", 3, 3, "--home", home), "snapshot doesn't exist")
    failed(cli("snapshots", "restore", 3, 3, "--home", fresh), "snapshot 3 format 3 not found")
    failed(cli("snapshots", "delete", 3, 2**32, "--home", home), "out of range")
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"not an archive")
    failed(cli("snapshots", "load", junk, "--home", fresh), "failed to open archive file")
    # An archive whose chunk was changed: saved, it is not the snapshot its header describes.
    ok(cli("snapshots", "export", "--home", home))
    good, forged = tmp_path / "good.tar.gz", tmp_path / "forged.tar.gz"
    ok(cli("snapshots", "dump", 3, 3, "-o", good, "--home", home))
    with tarfile.open(good) as tar, tarfile.open(forged, "w:gz") as out:
        for member in tar.getmembers():
            data = tar.extractfile(member).read()
            if member.name == "0":
                data = data[:-1] + bytes([data[-1] ^ 1])
            out.addfile(member, io.BytesIO(data))
    failed(cli("snapshots", "load", forged, "--home", fresh),
           "invalid archive, the saved snapshot is not equal to the original one")
    assert ok(cli("snapshots", "list", "--home", fresh)).stdout == ""
