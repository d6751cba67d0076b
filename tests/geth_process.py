"""A real geth `--dev` node in a temp dir, for tests that hold our traces against the reference's.

Built once by tools/install-test-engines; started with HTTP JSON-RPC on a free port of 127.0.0.1, mining a
block as each tx arrives, no peers, no IPC. Its chain is geth's dev genesis with the forks and accounts a test
asks for (dev_genesis), written into the datadir before the start, which --dev then keeps.
"""

import json
import socket
import subprocess
import time
import urllib.request


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def dev_genesis(binary, last_fork, alloc):
    """geth's dev genesis without the forks after `last_fork` (e.g. "prague"), with `alloc` ({address: wei})
    added to its system contracts."""
    dumped = subprocess.run([str(binary), "--dev", "dumpgenesis"], capture_output=True, text=True, timeout=60,
                            check=True, stdin=subprocess.DEVNULL)
    genesis = json.loads(dumped.stdout)
    config = genesis["config"]
    forks = [key for key in config if key.endswith("Time")]
    for key in forks[forks.index(f"{last_fork}Time") + 1:]:
        del config[key]
    genesis["alloc"].update({address[2:].lower(): {"balance": hex(wei)} for address, wei in alloc.items()})
    return genesis


class Geth:
    """`with Geth(binary, datadir, genesis) as geth:` a running dev node; `geth.rpc(method, *params)` its
    results."""

    def __init__(self, binary, datadir, genesis, timeout=60):
        self.binary, self.datadir, self.genesis, self.timeout = binary, datadir, genesis, timeout
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = None

    def __enter__(self):
        (self.datadir / "genesis.json").write_text(json.dumps(self.genesis))
        subprocess.run([str(self.binary), "--datadir", str(self.datadir / "data"), "init",
                        str(self.datadir / "genesis.json")], capture_output=True, timeout=self.timeout, check=True,
                       stdin=subprocess.DEVNULL)
        self.log = open(self.datadir / "geth.log", "wb")
        self.process = subprocess.Popen(
            [str(self.binary), "--dev", "--dev.period", "0", "--datadir", str(self.datadir / "data"),
             "--http", "--http.addr", "127.0.0.1", "--http.port", str(self.port),
             "--http.api", "eth,net,web3,debug", "--nodiscover", "--maxpeers", "0", "--port", "0",
             "--authrpc.port", str(_free_port()), "--ipcdisable", "--verbosity", "2"],
            stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                self.rpc("eth_blockNumber")
                return self
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.__exit__(None, None, None)
                    log = (self.datadir / "geth.log").read_text(errors="replace")[-3000:]
                    raise RuntimeError(f"geth did not start within {self.timeout} s:\n{log}") from None
                time.sleep(0.1)

    def __exit__(self, *exc):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()

    def post(self, method, *params):
        """The whole reply object of one call."""
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}).encode()
        request = urllib.request.Request(self.url, data=body, headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            return json.loads(response.read())

    def rpc(self, method, *params):
        reply = self.post(method, *params)
        if "error" in reply:
            raise RuntimeError(f"geth {method}: {reply['error']}")
        return reply["result"]
