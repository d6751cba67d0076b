"""@cosmjs/tendermint-rpc (npm, unmodified) against a running node's CometBFT RPC: genesis() decodes.

The package is installed once under ~/.cache (keyed by tests/cosmjs_client/package.json and node's major
version), never in the repository, and tests/cosmjs_client/client.js runs it through node in a subprocess.
Without node and npm the test is skipped, saying so.
"""

import fcntl
import hashlib
import json
import os
import pathlib
import shutil
import subprocess

import pytest
import pytest_twisted

from chaind.chain import valset
from helpers import in_thread

CLIENT_DIR = pathlib.Path(__file__).parent / "cosmjs_client"
PACKAGE = CLIENT_DIR / "package.json"


def _node_major(node):
    run = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30)
    return run.stdout.strip().lstrip("v").split(".")[0]


def install_path(node):
    digest = hashlib.sha256(PACKAGE.read_bytes()).hexdigest()[:10]
    cache = pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache")
    return cache / f"chaind-cosmjs-node{_node_major(node)}-{digest}"


def install(path, npm, package=PACKAGE):
    """npm install of `package` once (a lock keeps two test runs from installing together); None, or an error
    text."""
    path.parent.mkdir(parents=True, exist_ok=True)
    done = path / "installed.txt"
    with open(f"{path}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.is_file():
            return None
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir()
        shutil.copy(package, path / "package.json")
        step = [npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--omit=dev"]
        try:
            run = subprocess.run(step, cwd=path, capture_output=True, text=True, timeout=600,
                                 stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return f"{' '.join(step)} timed out after 600 s"
        if run.returncode != 0:
            return f"{' '.join(step)} exited {run.returncode}:\n{run.stderr[-3000:]}"
        done.write_text(run.stdout)
        return None


@pytest.fixture(scope="session")
def cosmjs():
    """(node executable, node_modules directory) with @cosmjs/tendermint-rpc installed."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        message = "node and npm are needed to run @cosmjs/tendermint-rpc; install Node.js to run this test"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    path = install_path(node)
    error = install(path, npm)
    if error:
        message = f"cannot install @cosmjs/tendermint-rpc at {path}: {error}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return node, path / "node_modules"


def run_client(cosmjs, url, calls):
    node, modules = cosmjs
    run = subprocess.run([node, str(CLIENT_DIR / "client.js")], input=json.dumps({"url": url, "calls": calls}),
                         capture_output=True, text=True, timeout=120, env={**os.environ, "NODE_PATH": str(modules)})
    assert run.returncode == 0, f"cosmjs client failed:\n{run.stderr}"
    return json.loads(run.stdout)


@pytest_twisted.inlineCallbacks
def test_cosmjs_reads_genesis(node, cosmjs):
    url = f"http://127.0.0.1:{node.port_of('cometbft')}"
    answer = yield in_thread(run_client, cosmjs, url, ["genesis"])
    genesis = answer["genesis"]
    g = node.genesis
    assert genesis["chainId"] == g.chain_id
    assert genesis["appHash"] == ""         # an empty initial state: CometBFT's empty app_hash
    assert genesis["consensusParams"]["block"]["maxGas"] == g.max_gas
    assert [(v["address"], v["pubkey"]["algorithm"], v["votingPower"]) for v in genesis["validators"]] == \
        [(valset.address_of(v.consensus_pubkey).hex(), "ed25519", str(v.power)) for v in g.validators]
    assert genesis["appState"] == g.document["app_state"]
