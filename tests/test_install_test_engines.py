"""tools/install-test-engines without building anything: its crates.io engine (Hermes) is known, skipped when its
binary is already in the cache, and refused with a clear message where cargo is missing."""

import os
import pathlib
import shutil
import subprocess

import pytest

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
    binary = tmp_path / "hermes-1.13.2" / "bin" / "hermes"
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
                           "is needed to build hermes 1.13.2)\n")
    assert list(tmp_path.iterdir()) == []
    done = run("--path", "hermes", cache=tmp_path)
    assert done.returncode == 1
    assert "hermes 1.13.2 is not built at" in done.stderr


def test_unknown_engines_are_refused_naming_every_known_one(tmp_path):
    done = run("nope", cache=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "install-test-engines: unknown engine 'nope'; known: cometbft geth simd hermes\n"


def bare_path(tmp_path, cargo=True):
    """A PATH of the tools the script uses, and a `cargo` that fails loudly should it run, and nothing else."""
    tools = tmp_path / "tools"
    tools.mkdir()
    for tool in ("bash", "env", "awk", "flock", "mkdir", "rm", "mv", "xargs", "cut", "grep", "sed", "cat"):
        (tools / tool).symlink_to(shutil.which(tool))
    if cargo:
        (tools / "cargo").write_text("#!/bin/sh\necho cargo ran >&2\nexit 3\n")
        (tools / "cargo").chmod(0o755)
    return str(tools)


def install_hermes(tmp_path, **env):
    environment = {name: value for name, value in os.environ.items() if name != "PROTOC"}
    return subprocess.run([str(ENGINES_INSTALLER), "hermes"], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL,
                          env={**environment, "CHAIND_ENGINES": str(tmp_path / "cache"), **env})


@pytest.mark.parametrize("missing", ["libclang", "protoc"])
def test_what_hermes_builds_with_missing_is_refused_before_cargo_runs(tmp_path, missing):
    clang = tmp_path / "clang"
    clang.mkdir()
    if missing != "libclang":
        (clang / "libclang-14.so.1").write_bytes(b"")
    done = install_hermes(tmp_path, PATH=bare_path(tmp_path), LIBCLANG_PATH=str(clang))
    assert done.returncode == 1
    hint = {"libclang": "libclang (bindgen loads it; Debian: apt-get install libclang-dev, or set LIBCLANG_PATH)",
            "protoc": "protoc (prost-build runs it; Debian: apt-get install protobuf-compiler, or set PROTOC)"}
    assert done.stderr == f"install-test-engines: building hermes 1.13.2 needs {hint[missing]}\n"
    assert sorted(path.name for path in (tmp_path / "cache").iterdir()) == ["hermes-1.13.2.lock"]
