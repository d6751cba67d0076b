"""The node's process asks glibc for two malloc arenas, unless the operator set MALLOC_ARENA_MAX."""

import platform
import subprocess
import sys

import pytest

from chaind.malloc import limit_arenas

PROBE = "import sys; from chaind.malloc import limit_arenas; sys.exit(0 if limit_arenas() else 3)"


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_glibc_agrees_in_a_fresh_process():
    assert subprocess.run([sys.executable, "-c", PROBE], env={"PATH": ""}).returncode == 0


def test_the_operators_setting_wins(monkeypatch):
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert limit_arenas() is False
