"""Dev chains (`chaind init --dev --dev-chain N`) as real `chaind start` processes on free ports, and the steps a test
takes with them: the CLI against a home, a tx waited into its block, CometBFT RPC, gRPC, REST and JSON-RPC."""

import json
import os
import pathlib
import re
import subprocess
import sys
import urllib.error
import urllib.request

import grpc

from chaind.pb.cosmos.bank.v1beta1 import query_pb2 as bank_q
from chaind.pb.cosmos.bank.v1beta1 import query_pb2_grpc as bank_grpc
from chaind.pb.ibc.applications.transfer.v1 import query_pb2 as transfer_q
from chaind.pb.ibc.applications.transfer.v1 import query_pb2_grpc as transfer_grpc
from helpers import wait_until
from node_process import NodeProcess

REPO = pathlib.Path(__file__).resolve().parent.parent
CHAIND = pathlib.Path(sys.executable).parent / "chaind"
FACES = ("json-rpc-address", "ws-address", "cometbft-address", "grpc-address", "rest-address", "explorer-address",
         "metrics-address")


class DevChain:
    """The Nth dev chain in `home`: made by `chaind init`, its blocks every `interval` seconds, run by `chaind
    start` with every face on a free port (the home's client.toml pointed at its CometBFT RPC)."""

    def __init__(self, home, number, interval):
        self.home, self.number = pathlib.Path(home), number
        self.env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
        self.cli("init", f"dev{number}", "--dev", "--dev-chain", str(number), home=True)
        config = self.home / "config" / "chaind.toml"
        config.write_text(re.sub(r"(?m)^block-interval = .*$", f"block-interval = {interval}", config.read_text(),
                                 count=1))
        self.process = NodeProcess(None, None, self.home, [str(CHAIND), "start", "--home", str(self.home),
                                                           *(f"--{face}=127.0.0.1:0" for face in FACES)], self.env)
        self.ports = {}

    def start(self):
        self.ports = self.process.start(timeout=120)
        client = self.home / "config" / "client.toml"
        client.write_text(re.sub(r"tcp://127\.0\.0\.1:\d+", f"tcp://127.0.0.1:{self.ports['cometbft']}",
                                 client.read_text()))
        wait_until(lambda: self.height() >= 1, "the first block", 60, every=0.2)

    def stop(self):
        if self.process.process is not None and self.process.process.poll() is None:
            self.process.stop()

    def url(self, face):
        return f"http://127.0.0.1:{self.ports[face]}"

    def cli(self, *args, home=True, check=True):
        """`chaind ARGS --home HOME`; the completed process (its exit code 0 when `check`)."""
        done = subprocess.run([str(CHAIND), *map(str, args), *(["--home", str(self.home)] if home else [])],
                              env=self.env, capture_output=True, text=True, timeout=300)
        assert not check or done.returncode == 0, (args, done.stdout, done.stderr[-3000:])
        return done

    def address(self, key):
        return self.cli("keys", "show", key, "-a").stdout.strip()

    def tx(self, *args):
        """`chaind tx ARGS --gas auto -y`, waited into a block and successful there: CometBFT's /tx answer."""
        done = self.cli("tx", *args, "--gas", "auto", "--gas-adjustment", "1.5", "--gas-prices", "20000000000achain",
                        "-y")
        txhash = re.search(r"^txhash: ([0-9A-F]{64})$", done.stdout, re.M).group(1)
        return self.committed(txhash)

    def committed(self, txhash):
        result = wait_until(lambda: self._tx(txhash), f"tx {txhash} in a block", 60, every=0.2)
        assert result["tx_result"]["code"] == 0, result["tx_result"]
        return result

    def _tx(self, txhash):
        try:
            return self.comet(f"tx?hash=0x{txhash}")
        except urllib.error.HTTPError:
            return None

    def comet(self, path):
        with urllib.request.urlopen(f"{self.url('cometbft')}/{path}", timeout=20) as response:
            return json.loads(response.read())["result"]

    def rest(self, path):
        with urllib.request.urlopen(self.url("rest") + path, timeout=20) as response:
            return json.loads(response.read())

    def height(self):
        return int(self.comet("status")["sync_info"]["latest_block_height"])

    def grpc(self, stub, method, request):
        with grpc.insecure_channel(f"127.0.0.1:{self.ports['grpc']}") as channel:
            return getattr(stub(channel), method)(request, timeout=20)

    def replay(self):
        """`chaind replay` of the stopped chain: the last height it replayed, every app hash checked."""
        done = self.cli("replay")
        return int(re.search(r"blocks 1\.\.(\d+) replayed from genesis", done.stdout + done.stderr).group(1))


def balance(chain, address, denom):
    return int(chain.grpc(bank_grpc.QueryStub, "Balance",
                          bank_q.QueryBalanceRequest(address=address, denom=denom)).balance.amount)


def supply(chain, denom):
    return int(chain.grpc(bank_grpc.QueryStub, "SupplyOf", bank_q.QuerySupplyOfRequest(denom=denom)).amount.amount)


def escrowed(chain, denom="achain"):
    return int(chain.grpc(transfer_grpc.QueryStub, "TotalEscrowForDenom",
                          transfer_q.QueryTotalEscrowForDenomRequest(denom=denom)).amount.amount)


def send(chain, key, receiver, amount, *flags):
    return chain.tx("ibc-transfer", "transfer", "transfer", "channel-0", receiver, amount, "--from", key, *flags)
