"""The compiled contracts under tests/solidity/ are their sources': npm's solc (installed once under ~/.cache,
keyed by tests/solidity/package.json) compiles each .sol again and must give the committed .json."""

import hashlib
import json
import os
import pathlib
import shutil
import subprocess

import pytest

from cosmjs_driver import install

HERE = pathlib.Path(__file__).parent / "solidity"
PACKAGE = HERE / "package.json"


@pytest.fixture(scope="session")
def solc():
    """(node executable, node_modules directory) with npm's solc installed."""
    node, npm = shutil.which("node"), shutil.which("npm")
    error = "node and npm are needed to run npm's solc; install Node.js to run this test" if not (node and npm) \
        else None
    if error is None:
        digest = hashlib.sha256(PACKAGE.read_bytes()).hexdigest()[:10]
        cache = pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache")
        path = cache / f"chaind-solc-{digest}"
        error = install(path, npm, PACKAGE)
    if error:
        if os.environ.get("CI") == "true":
            pytest.fail(error)
        pytest.skip(error)
    return node, path / "node_modules"


@pytest.mark.parametrize("name", sorted(p.stem for p in HERE.glob("*.sol")))
def test_the_committed_bytecode_is_the_source_s(solc, name):
    node, modules = solc
    run = subprocess.run([node, str(HERE / "compile.js"), str(HERE / f"{name}.sol")], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "NODE_PATH": str(modules)})
    assert run.returncode == 0, run.stderr
    compiled = json.loads(run.stdout)
    committed = json.loads((HERE / f"{name}.json").read_text())
    assert compiled == committed
