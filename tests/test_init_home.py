"""`chaind init` without --home makes ~/.chaind (or $CHAIND_HOME), the home the node and the client use by
default, as an SDK chain's init does."""

import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent


def _chaind(tmp_path, *args, **env):
    environment = {name: value for name, value in os.environ.items() if name != "CHAIND_HOME"}
    environment.update(HOME=str(tmp_path), PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
                       **env)
    return subprocess.run([str(pathlib.Path(sys.executable).parent / "chaind"), *args], env=environment,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_init_without_home_makes_the_default_home(tmp_path):
    done = _chaind(tmp_path, "init", "me")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / ".chaind" / "config" / "genesis.json").is_file()
    again = _chaind(tmp_path, "init", "me")
    assert again.returncode != 0 and "already exists; choose another --home" in again.stderr


@pytest.mark.slow
def test_init_takes_chaind_home_from_the_environment(tmp_path):
    done = _chaind(tmp_path, "init", "me", "--dev", CHAIND_HOME=str(tmp_path / "devbox"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "devbox" / "config" / "dev-mnemonic.txt").is_file()
