"""A dev home writes its blocks without fsync ([storage] fsync = false in the config it is made with) and its tables
uncompressed ([storage] compression = "none"), a chain of one's own keeps fsync and snappy, the banner says whether
blocks are fsync'd, and a killed dev node still loses nothing it committed."""

import os
import pathlib
import subprocess
import sys

import pytest

from chaind import config
from chaind.home import Home
from chaind.store.db import Database
from crash_load import kill_cycles
from node_process import REPO

EVERY_FACE_ON_PORT_0 = [arg for option in ("--json-rpc-address", "--ws-address", "--cometbft-address",
                                           "--grpc-address", "--rest-address", "--explorer-address",
                                           "--metrics-address")
                        for arg in (option, "127.0.0.1:0")]


def test_a_dev_home_is_made_without_fsync_and_any_other_home_with_it(tmp_path):
    dev = Home(tmp_path / "dev").init("dev", dev=True)
    own = Home(tmp_path / "own").init("own")
    assert config.load(dev.config_file).storage.fsync is False
    assert config.load(own.config_file).storage.fsync is True
    assert config.Settings().storage.fsync is True
    with pytest.raises(config.ConfigError, match=r"\[storage\] fsync must be bool, got 'no'"):
        config.load(text='[storage]\nfsync = "no"\n')
    assert config.load(dev.config_file).storage.compression == "none"
    assert config.load(own.config_file).storage.compression == "snappy" == config.Settings().storage.compression
    with pytest.raises(config.ConfigError, match=r"\[storage\] compression must be one of snappy, none, "
                                                 r"got 'zstd'"):
        config.load(text='[storage]\ncompression = "zstd"\n')


def _table_bytes(path):
    return sum(f.stat().st_size for f in pathlib.Path(path).glob("*.ldb"))


@pytest.mark.parametrize("compression", ["snappy", "none"])
def test_a_stores_tables_are_compressed_as_set_and_read_either_way(tmp_path, compression):
    """What `compression` writes (tables of repetitive values: a tenth the size with snappy), and a store written
    one way reads every key when reopened the other."""
    path = tmp_path / "chain.db"
    db = Database(path, compression=compression)
    db.write({b"k%06d" % i: b"value " * 20 for i in range(5000)})
    db._db.compact_range()
    written = _table_bytes(path)
    assert (written < 120_000) if compression == "snappy" else (written > 600_000), written
    db.close()
    db = Database(path, compression="none" if compression == "snappy" else "snappy")
    assert db.get(b"k004999") == b"value " * 20 and len(list(db.keys(b"k"))) == 5000
    db.close()


def _banner(env, *args, until):
    """`chaind start ARGS` as a user runs it, every face on a port of its own: its stdout up to the line
    containing `until`, then the node is stopped."""
    process = subprocess.Popen([sys.executable, "-m", "chaind.cli.main", "start", *args, *EVERY_FACE_ON_PORT_0],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    try:
        for line in process.stdout:
            lines.append(line)
            if until in line:
                break
    finally:
        process.terminate()
        process.wait(60)
    return "".join(lines)


@pytest.mark.slow
def test_the_banner_says_whether_blocks_are_fsyncd(tmp_path):
    path = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "HOME": str(tmp_path), "PYTHONPATH": path}
    env.pop("CHAIND_HOME", None)
    # The dev chain `chaind start` makes under ~/.chaind when there is none.
    banner = _banner(env, until="dev accounts")
    assert (pathlib.Path(tmp_path) / ".chaind" / "config" / "genesis.json").is_file()
    assert ("storage: blocks written without fsync ([storage] fsync = false, a dev home's default): a killed node "
            "loses none, an OS crash could lose the last ones\n") in banner, banner
    # A chain of one's own keeps fsync (as the first test shows its config); a dev home set so says it.
    home = Home(tmp_path / "fsyncd").init("fsyncd", dev=True)
    home.config_file.write_text(home.config_file.read_text().replace("\nfsync = false\n", "\nfsync = true\n"))
    banner = _banner(env, "--home", str(home.path), until="json-rpc namespaces")
    assert "storage: each block fsync'd before it counts as committed ([storage] fsync = true)\n" in banner, banner


@pytest.mark.slow
def test_kill_9_of_a_node_without_fsync_loses_nothing_committed(tmp_path):
    stats = kill_cycles(tmp_path, "[storage]\nfsync = false\n", 2, seed=20261128)
    assert stats["receipts"] > 20 and stats["commits"] > 3


def test_a_node_opens_its_store_with_its_storage_settings(node_factory):
    plain = node_factory(home="plain", storage={"compression": "none", "fsync": False})
    compressed = node_factory(home="compressed")
    assert (plain.db.compression, plain.db.sync) == ("none", False)
    assert (compressed.db.compression, compressed.db.sync) == ("snappy", True)
