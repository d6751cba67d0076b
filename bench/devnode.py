"""Shared by the bench scripts: a real node (`twistd -n chaind`) in a subprocess with a temp dev home.

The node gets its own config (JSON-RPC on a free loopback port, defaults otherwise) and is stopped on exit.
"""

import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

REPO = pathlib.Path(__file__).resolve().parent.parent
DEV0 = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"


def free_port():
    return free_ports(1)[0]


def free_ports(count):
    """`count` distinct free ports: each socket stays bound until all are picked, or the OS may hand out
    one port twice."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def json_rpc(url, method, *params, timeout=5):
    """One JSON-RPC call over HTTP: the decoded answer (result or error)."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}).encode()
    request = urllib.request.Request(url, data=body, headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


class DevNode:
    """`with DevNode() as node:` a started node; node.url, node.ws_url, node.pid, and the other faces' ports
    (comet_port, grpc_port, rest_port).

    `config` is appended to the file after the [json-rpc] settings, so it may add json-rpc keys first;
    `comet_config` goes into the [cometbft-rpc] section. With `home` (a chaind.home.Home), the node runs
    on that existing home, which is kept on exit; else on a new dev home in a temp dir.
    """

    def __init__(self, config="", comet_config="", home=None, start_timeout=30):
        self.port, self.ws_port, self.comet_port, self.grpc_port, self.rest_port = free_ports(5)
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.ws_port}"
        self.extra_config = config
        self.comet_config = comet_config
        self.home = home
        self.start_timeout = start_timeout

    def __enter__(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="chaind-bench-"))
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        if self.home is not None:
            home = self.home.path
        else:
            home = self.tmp / "home"
            subprocess.run([sys.executable, "-c", "import sys; from chaind.home import Home; "
                            "Home(sys.argv[1]).init('bench', dev=True)", str(home)], env=env, check=True)
        config = self.tmp / "chaind.toml"
        # extra_config may go on with [json-rpc] keys, so that section comes last.
        config.write_text(f'[cometbft-rpc]\naddress = "127.0.0.1:{self.comet_port}"\n{self.comet_config}'
                          f'[grpc]\naddress = "127.0.0.1:{self.grpc_port}"\n'
                          f'[rest]\naddress = "127.0.0.1:{self.rest_port}"\n'
                          f'[json-rpc]\naddress = "127.0.0.1:{self.port}"\n'
                          f'ws-address = "127.0.0.1:{self.ws_port}"\n{self.extra_config}')
        twistd = pathlib.Path(sys.executable).parent / "twistd"
        self.log = open(self.tmp / "node.log", "wb")
        self.process = subprocess.Popen(
            [str(twistd), "-n", "--pidfile=", "chaind", "--home", str(home), "--config", str(config)],
            cwd=self.tmp, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        try:
            self._wait_ready(self.start_timeout)
        except BaseException:
            # `with` calls __exit__ only once __enter__ has returned: stop a node that never got ready here.
            self.__exit__(None, None, None)
            raise
        return self

    @property
    def pid(self):
        return self.process.pid

    def rpc(self, method, *params):
        return json_rpc(self.url, method, *params)

    def _wait_ready(self, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"node exited at start:\n{(self.tmp / 'node.log').read_text()}")
            try:
                self.rpc("eth_blockNumber")
                return
            except OSError:
                time.sleep(0.1)
        raise SystemExit(f"node did not answer within {timeout} s")

    def __exit__(self, *exc):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


class Profile:
    """`with Profile(pid, path):` py-spy records the process into `path` (collapsed stacks; no-op if path is None)."""

    def __init__(self, pid, path):
        self.pid, self.path = pid, path

    def __enter__(self):
        if self.path:
            spy = shutil.which("py-spy") or str(pathlib.Path(sys.executable).with_name("py-spy"))
            # --gil: only the thread holding the GIL, where the node's one core of Python goes.
            self.process = subprocess.Popen([spy, "record", "--nonblocking", "--gil", "-r", "500", "-f", "raw",
                                             "-p", str(self.pid), "-o", self.path],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1)
        return self

    def __exit__(self, *exc):
        if self.path:
            self.process.send_signal(signal.SIGINT)
            self.process.wait(timeout=60)


def rss_mb(pid):
    """Resident set size of a process in MB (VmRSS from /proc)."""
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise LookupError(f"no VmRSS for pid {pid}")
