"""Key files and homes as CometBFT makes them: keys 0600 from the moment they exist (never written looser and
chmod'ed after), home directories 0700."""

import os
import stat
import sys

import pytest

from chaind.cli import testnet
from chaind.home import DEV_MARKER, Home
from helpers import chaind_process

_watching = []      # while a test watches: [chmod'ed paths]


def _audit(event, args):
    if _watching and event == "os.chmod":
        _watching[0].append(str(args[0]))


sys.addaudithook(_audit)


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def loose_umask():
    """A umask that leaves new files world-readable: only the mode a file is created with protects it."""
    old = os.umask(0)
    yield
    os.umask(old)


@pytest.fixture
def chmods():
    seen = []
    _watching.append(seen)
    yield seen
    _watching.clear()


def test_a_new_home_keeps_its_keys_private_from_the_start(tmp_path, loose_umask, chmods):
    home = Home(tmp_path / "a" / "home").init("test", dev=True)
    assert chmods == []
    for key in ("priv_validator_key.json", DEV_MARKER):
        assert _mode(home.config_dir / key) == 0o600, key
    for directory in (tmp_path / "a", home.path, home.config_dir, home.data_dir):
        assert _mode(directory) == 0o700, directory
    # No temporary file is left behind.
    assert not list(home.config_dir.glob("*.tmp"))


def test_testnet_homes_keep_their_keys_private_from_the_start(tmp_path, loose_umask, chmods):
    homes = testnet.build(tmp_path / "net", 2, None, 36000, 0)
    assert chmods == []
    for home in homes:
        assert _mode(home / "config" / "priv_validator_key.json") == 0o600
        assert _mode(home / "config" / "node_key.json") == 0o600
        assert _mode(home / "data" / "priv_validator_state.json") == 0o600
        assert _mode(home) == _mode(home / "config") == _mode(home / "data") == 0o700


def test_chaind_init_makes_a_private_home(tmp_path):
    done = chaind_process("init", "test", "--home", str(tmp_path / "home"), "--dev")
    assert done.returncode == 0, done.stderr
    assert _mode(tmp_path / "home") == _mode(tmp_path / "home" / "config") == 0o700
    assert _mode(tmp_path / "home" / "config" / "priv_validator_key.json") == 0o600
