"""Anvil 1.7.1 (npm `@foundry-rs/anvil`) for tests that hold the dev namespace against it: installed once into
~/.cache/chaind-peers/anvil (never the repo), run on a free port of 127.0.0.1; `post` calls it.
"""

import contextlib
import fcntl
import json
import os
import pathlib
import shutil
import socket
import subprocess
import tempfile
import urllib.request

from helpers import wait_until

ANVIL_VERSION = "1.7.1"


def anvil_binary():
    """Anvil's binary, installed once (a lock keeps two test runs from installing together); (path, None) or
    (None, an error text)."""
    cache = pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache") / "chaind-peers" / "anvil"
    binary = cache / "node_modules" / "@foundry-rs" / "anvil-linux-amd64" / "bin" / "anvil"
    package = cache / "node_modules" / "@foundry-rs" / "anvil" / "package.json"
    cache.mkdir(parents=True, exist_ok=True)
    with open(f"{cache}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if binary.is_file() and package.is_file() and json.loads(package.read_text())["version"] == ANVIL_VERSION:
            return binary, None
        if shutil.which("npm") is None:
            return None, "npm is missing (apt-get install -y nodejs npm)"
        if not (cache / "package.json").exists():
            (cache / "package.json").write_text(json.dumps({"name": "chaind-peer-anvil", "private": True}))
        try:
            run = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error",
                                  f"@foundry-rs/anvil@{ANVIL_VERSION}"], cwd=cache, capture_output=True, text=True,
                                 timeout=300, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return None, "npm install @foundry-rs/anvil timed out"
        if run.returncode != 0 or not binary.is_file():
            return None, f"npm install @foundry-rs/anvil@{ANVIL_VERSION} failed: {run.stderr[-500:]}"
        return binary, None


@contextlib.contextmanager
def running_anvil(binary):
    """An Anvil process on a free port; its address. Its home is a temp directory removed afterwards: Anvil keeps
    the states of all but its last 500 blocks under ~/.foundry/anvil/tmp and never removes them."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    home = tempfile.mkdtemp(prefix="chaind-anvil-home-")
    process = subprocess.Popen([str(binary), "--host", "127.0.0.1", "--port", str(port), "--silent"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "HOME": home})
    address = f"http://127.0.0.1:{port}"
    try:

        def answers():
            try:
                return post(address, "eth_chainId")
            except OSError:         # not listening yet
                return None
        wait_until(answers, f"anvil to answer at {address}", timeout=10, every=0.1)
        yield address
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(home, ignore_errors=True)


def post(address, method, *params):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}).encode()
    request = urllib.request.Request(address, data=body, headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())
