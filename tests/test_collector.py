"""`twistd chaind` sets the garbage collector's young threshold from [node] gc-young-threshold; 0 keeps Python's."""

import subprocess
import sys

import pytest

PROBE = """
import gc, sys
from twisted.python import usage
from chaind import tap
options = tap.Options()
options.parseOptions(["--home", sys.argv[1], "--config", sys.argv[2]])
tap.makeService(options)
print(gc.get_threshold())
"""


@pytest.mark.parametrize("setting, expected", [
    ("", (20000, 10, 10)), ("gc-young-threshold = 50000\n", (50000, 10, 10)), ("gc-young-threshold = 0\n", None)])
def test_the_node_service_sets_the_young_threshold(tmp_path, setting, expected):
    from chaind.home import Home
    home = Home(tmp_path / "home")
    home.init("gc", dev=True)
    config = tmp_path / "chaind.toml"
    config.write_text(f"[node]\n{setting}")
    default = subprocess.run([sys.executable, "-c", "import gc; print(gc.get_threshold())"], capture_output=True,
                             text=True, check=True).stdout
    found = subprocess.run([sys.executable, "-c", PROBE, str(home.path), str(config)], capture_output=True,
                           text=True, check=True).stdout.splitlines()[-1]
    assert found == (default.strip() if expected is None else str(expected))
