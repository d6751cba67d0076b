"""tools/install-test-engines without building anything: its crates.io engine (Hermes) is known, skipped when its
binary is already in the cache, and refused with a clear message where cargo is missing."""

import os
import pathlib
import subprocess

from helpers import ENGINES_INSTALLER


def run(*args, cache, path=None):
    env = {**os.environ, "CHAIND_ENGINES": str(cache)}
    if path is not None:
        env["PATH"] = path
    return subprocess.run([str(ENGINES_INSTALLER), *args], capture_output=True, text=True, env=env, timeout=60,
                          stdin=subprocess.DEVNULL)


def without(tool):
    """PATH less the folders that hold `tool`."""
    return os.pathsep.join(folder for folder in os.environ["PATH"].split(os.pathsep)
                           if folder and not (pathlib.Path(folder) / tool).exists())


def test_an_engine_already_in_the_cache_is_not_built_again(tmp_path):
    binary = tmp_path / "hermes-1.10.5" / "bin" / "hermes"
    binary.parent.mkdir(parents=True)
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    done = run("hermes", cache=tmp_path, path=without("cargo"))
    assert (done.returncode, done.stdout, done.stderr) == (0, f"hermes {binary}\n", "")
    done = run("--path", "hermes", cache=tmp_path)
    assert (done.returncode, done.stdout) == (0, f"{binary}\n")


def test_without_cargo_hermes_is_refused_saying_so(tmp_path):
    done = run("hermes", cache=tmp_path, path=without("cargo"))
    assert done.returncode == 1
    assert done.stderr == ("install-test-engines: cargo is not installed (Rust's cargo, e.g. from https://rustup.rs, "
                           "is needed to build hermes 1.10.5)\n")
    assert list(tmp_path.iterdir()) == []
    done = run("--path", "hermes", cache=tmp_path)
    assert done.returncode == 1
    assert "hermes 1.10.5 is not built at" in done.stderr


def test_unknown_engines_are_refused_naming_every_known_one(tmp_path):
    done = run("nope", cache=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "install-test-engines: unknown engine 'nope'; known: cometbft geth simd hermes\n"
