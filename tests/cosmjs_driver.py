"""tests/cosmjs_client's npm packages (@cosmjs/*), and tests/relayer_client's (@confio/relayer), installed once
under ~/.cache, keyed by the package.json and node's major version, never in the repository."""

import fcntl
import hashlib
import os
import pathlib
import shutil
import subprocess

CLIENT_DIR = pathlib.Path(__file__).parent / "cosmjs_client"
PACKAGE = CLIENT_DIR / "package.json"
RELAYER_DIR = pathlib.Path(__file__).parent / "relayer_client"
RELAYER_PACKAGE = RELAYER_DIR / "package.json"


def _node_major(node):
    run = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30)
    return run.stdout.strip().lstrip("v").split(".")[0]


def install_path(node, package=PACKAGE, name="cosmjs"):
    """Where `package` installs for this node: keyed by its package.json and node's major version."""
    digest = hashlib.sha256(package.read_bytes()).hexdigest()[:10]
    cache = pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache")
    return cache / f"chaind-{name}-node{_node_major(node)}-{digest}"


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
