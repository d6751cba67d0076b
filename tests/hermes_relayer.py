"""Hermes, the IBC relayer, driven through its own CLI for the external IBC tests: a config.toml written for the
chains at hand (CometBFT RPC, gRPC, the push event source on /websocket), keys restored from a mnemonic."""

import json
import subprocess

import attrs

# The Evmos-style accounts of a chaind chain: eth_secp256k1 keys on the Ethereum path, keccak addresses.
ETHERMINT = "{ derivation = 'ethermint', proto_type = { pk_type = '/ethermint.crypto.v1.ethsecp256k1.PubKey' } }"
COSMOS = "{ derivation = 'cosmos' }"


@attrs.frozen
class HermesChain:
    """One [[chains]] entry: where the chain answers and how Hermes signs and pays there."""

    id: str
    rpc: str                  # http://host:port of its CometBFT RPC
    grpc: str                 # http://host:port of its gRPC
    prefix: str
    gas_price: str            # a number, then the denom: "20000000000achain"
    address_type: str = COSMOS
    hd_path: str = "m/44'/118'/0'/0/0"

    # max_block_time: the CLI's connection and channel handshakes retry a step every max_block_time / 5 (Hermes's
    # default_strategy); 10 s, not the 30 s of ibc-go's max_expected_time_per_block it warns about, makes opening a
    # channel take 21 s instead of 53 s here.
    def toml(self, key_store):
        price, denom = _split_coin(self.gas_price)
        price = float(price)
        return f"""
[[chains]]
id = '{self.id}'
type = 'CosmosSdk'
rpc_addr = '{self.rpc}'
grpc_addr = '{self.grpc}'
event_source = {{ mode = 'push', url = '{self.rpc.replace("http://", "ws://")}/websocket', batch_delay = '100ms' }}
rpc_timeout = '15s'
account_prefix = '{self.prefix}'
key_name = 'relayer'
key_store_folder = '{key_store}'
address_type = {self.address_type}
store_prefix = 'ibc'
default_gas = 400000
max_gas = 4000000
gas_price = {{ price = {price}, denom = '{denom}' }}
gas_multiplier = 1.3
max_msg_num = 30
max_tx_size = 2097152
clock_drift = '5s'
max_block_time = '10s'
trust_threshold = '2/3'
"""


def _split_coin(coin):
    digits = len(coin) - len(coin.lstrip("0123456789."))
    return coin[:digits], coin[digits:]


class Hermes:
    """`hermes --json --config HOME/config.toml ...` for `chains`, each with the key `relayer` restored from
    `mnemonic` at its chain's hd_path."""

    def __init__(self, binary, home, chains, mnemonic):
        self.binary, self.home = str(binary), home
        self.env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "RUST_BACKTRACE": "1"}
        self.chains = {chain.id: chain for chain in chains}
        home.mkdir(parents=True, exist_ok=True)
        self.config = home / "config.toml"
        self.config.write_text("""[global]
log_level = 'info'

[mode.clients]
enabled = true
refresh = true
misbehaviour = false

[mode.connections]
enabled = false

[mode.channels]
enabled = false

[mode.packets]
enabled = true
clear_interval = 0
clear_on_start = false
tx_confirmation = true

[rest]
enabled = false
host = '127.0.0.1'
port = 3000

[telemetry]
enabled = false
host = '127.0.0.1'
port = 3001
""" + "".join(chain.toml(home / "keys") for chain in chains))
        self.mnemonic = home / "mnemonic"
        self.mnemonic.write_text(mnemonic + "\n")
        for chain in chains:
            self.add_key(chain.id, "relayer", chain.hd_path)

    def add_key(self, chain_id, name, hd_path):
        """The key `name` for `chain_id` restored from the mnemonic at `hd_path`; its address."""
        added = self.run("keys", "add", "--chain", chain_id, "--key-name", name, "--mnemonic-file", self.mnemonic,
                         "--hd-path", hd_path)
        return added.split("(", 1)[1].split(")", 1)[0]

    def command(self, *args):
        return [self.binary, "--json", "--config", str(self.config), *map(str, args)]

    def run(self, *args, timeout=180):
        """`hermes --json ARGS`, successful: its result (the last JSON line's)."""
        done = subprocess.run(self.command(*args), capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, env=self.env)
        answers = [json.loads(line) for line in done.stdout.splitlines() if line.startswith('{"')]
        answer = next((line for line in reversed(answers) if "status" in line), {})
        assert done.returncode == 0 and answer.get("status") == "success", (args, done.stdout[-6000:],
                                                                             done.stderr[-6000:])
        return answer["result"]
