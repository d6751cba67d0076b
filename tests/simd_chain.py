"""ibc-go v8's test chain `simd` as a process (one validator, fast blocks, every listener on a free port) for the
external IBC tests, with the mnemonic whose keys relay and pay on both sides."""

import concurrent.futures
import json
import re
import subprocess
import urllib.error
import urllib.request

from dev_chain_nodes import DevChain
from helpers import free_ports, wait_until

MNEMONIC = "test test test test test test test test test test test junk"
SIMD_CHAIN_ID = "simd-1"


class SimdChain:
    """A single-validator simd chain in `home`: init, genesis accounts (the validator's and the relayer's key from
    MNEMONIC), gentx, collect-gentxs; blocks every ~200 ms; every listener on its own 127.0.0.1 port."""

    def __init__(self, binary, home):
        self.binary, self.home = str(binary), home
        self.rpc, p2p, self.grpc, grpc_web, api = free_ports(5)
        self.cli("init", "simd", "--chain-id", SIMD_CHAIN_ID)
        self.cli("keys", "add", "val", "--keyring-backend", "test")
        self.cli("keys", "add", "relayer", "--recover", "--keyring-backend", "test", input=MNEMONIC + "\n")
        self.cli("keys", "add", "user", "--keyring-backend", "test")
        for key in ("val", "relayer", "user"):
            self.cli("genesis", "add-genesis-account", self.address(key), "10000000000000stake",
                     "--keyring-backend", "test")
        self.cli("genesis", "gentx", "val", "1000000000stake", "--chain-id", SIMD_CHAIN_ID, "--keyring-backend", "test")
        self.cli("genesis", "collect-gentxs")
        config = home / "config" / "config.toml"
        text = config.read_text()
        for key, value in (("timeout_propose", "1s"), ("timeout_commit", "200ms"), ("pprof_laddr", "")):
            text = re.sub(rf'(?m)^{key} = ".*"$', f'{key} = "{value}"', text)
        text = re.sub(r'(?m)^laddr = "tcp://127\.0\.0\.1:26657"$', f'laddr = "tcp://127.0.0.1:{self.rpc}"', text)
        text = re.sub(r'(?m)^laddr = "tcp://0\.0\.0\.0:26656"$', f'laddr = "tcp://127.0.0.1:{p2p}"', text)
        config.write_text(text)
        app = home / "config" / "app.toml"
        text = app.read_text()
        text = re.sub(r'(?m)^minimum-gas-prices = ".*"$', 'minimum-gas-prices = "0stake"', text)
        text = re.sub(r'(?m)^address = "localhost:9090"$', f'address = "127.0.0.1:{self.grpc}"', text)
        text = re.sub(r'(?m)^address = "localhost:9091"$', f'address = "127.0.0.1:{grpc_web}"', text)
        text = re.sub(r'(?m)^address = "tcp://localhost:1317"$', f'address = "tcp://127.0.0.1:{api}"', text)
        app.write_text(text)
        self.log = open(home / "simd.log", "w")  # noqa: SIM115 - closed in stop()
        self.process = None

    def cli(self, *args, input=None, check=True):
        done = subprocess.run([self.binary, *map(str, args), "--home", str(self.home)], input=input,
                              capture_output=True, text=True, timeout=120)
        assert not check or done.returncode == 0, (args, done.stdout, done.stderr[-3000:])
        return done

    def address(self, key):
        return self.cli("keys", "show", key, "-a", "--keyring-backend", "test").stdout.strip()

    def url(self):
        return f"http://127.0.0.1:{self.rpc}"

    def grpc_url(self):
        return f"http://127.0.0.1:{self.grpc}"

    def start(self):
        self.process = subprocess.Popen([self.binary, "start", "--home", str(self.home)], stdout=self.log,
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        wait_until(lambda: self.height() >= 2, "simd's second block", 60, every=0.2)

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(30)
        self.log.close()

    def comet(self, path):
        with urllib.request.urlopen(f"{self.url()}/{path}", timeout=20) as response:
            return json.loads(response.read())["result"]

    def height(self):
        try:
            return int(self.comet("status")["sync_info"]["latest_block_height"])
        except (urllib.error.URLError, ConnectionError):
            assert self.process.poll() is None, (self.home / "simd.log").read_text()[-3000:]
            return 0

    def query(self, *args):
        return json.loads(self.cli("q", *args, "--node", f"tcp://127.0.0.1:{self.rpc}", "-o", "json").stdout)

    def balance(self, address, denom):
        return int(self.query("bank", "balance", address, denom)["balance"]["amount"])

    def tx(self, *args):
        """`simd tx ARGS` signed and broadcast, waited into its block and successful there."""
        done = self.cli("tx", *args, "--keyring-backend", "test", "--chain-id", SIMD_CHAIN_ID, "--node",
                        f"tcp://127.0.0.1:{self.rpc}", "--gas", "500000", "-y", "-o", "json")
        sent = json.loads(done.stdout)
        assert sent["code"] == 0, sent
        result = wait_until(lambda: self._tx(sent["txhash"]), f"tx {sent['txhash']}", 60, every=0.2)
        assert result["tx_result"]["code"] == 0, result["tx_result"]
        return result

    def _tx(self, txhash):
        try:
            return self.comet(f"tx?hash=0x{txhash}")
        except urllib.error.HTTPError:
            return None


def chaind_and_simd(tmp_path, simd_binary, block_interval):
    """A chaind dev chain (dev chain 1, blocks every `block_interval` s) and a SimdChain, made side by side under
    tmp_path; neither started yet."""
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        made = pool.submit(DevChain, tmp_path / "chaind", 1, block_interval)
        simd = SimdChain(simd_binary, tmp_path / "simd")
        return made.result(), simd


def start_both(chaind, simd):
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda chain: chain.start(), (chaind, simd)))
