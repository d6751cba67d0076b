"""A node's home directory: config/ (chaind.toml, genesis.json, validator key) and data/ (LevelDB).

With no home given, a dev chain is created under ~/.chaind on first start.
"""

import base64
import json
import pathlib
import re
import time

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from chaind.chain import genesis as genesis_mod
from chaind.config import JsonRpcSettings
from chaind.crypto import keys
from chaind.private_files import make_private_dirs, write_private
from chaind.resources import etc_file

DEFAULT_HOME = pathlib.Path("~/.chaind").expanduser()
DEV_MARKER = "dev-mnemonic.txt"
DEFAULT_API = JsonRpcSettings().api
DEV_API = f"{DEFAULT_API},txpool,debug,dev"     # what a dev home serves: the opt-in namespaces too


# Dev chains side by side (`init --dev --dev-chain N`): the Nth's ports are the first's + 100 (N - 1), so
# 8545/8546/8547, 9090/9091 and 26657/26658/26660 never meet another's; the highest (26660) stays a port.
DEV_CHAIN_PORT_STEP = 100
MAX_DEV_CHAINS = 99
_LOOPBACK_PORT = re.compile(r'"127\.0\.0\.1:(\d+)"')


def _comet_address(dev_chain):
    """The CometBFT RPC address of dev chain `dev_chain` (the etc/chaind.toml default's port shifted)."""
    from chaind.config import CometRpcSettings

    host, _, port = CometRpcSettings().address.rpartition(":")
    return f"{host}:{int(port) + DEV_CHAIN_PORT_STEP * (dev_chain - 1)}"


def dev_chain_id(first, number):
    """The chain id of dev chain `number` beside the dev chain `first` (chain_9000-1): chain_9001-2 for 2, its
    own EIP-155 id too, so an EVM tx signed for one cannot be replayed on the other."""
    name, _, rest = first.rpartition("_")
    evm_id = int(rest.split("-")[0])
    return f"{name}_{evm_id + number - 1}-{number}"


class Home:
    def __init__(self, path):
        self.path = pathlib.Path(path)
        self.config_dir = self.path / "config"
        self.data_dir = self.path / "data"

    @property
    def config_file(self):
        return self.config_dir / "chaind.toml"

    @property
    def genesis_file(self):
        return self.config_dir / "genesis.json"

    def exists(self):
        return self.genesis_file.is_file()

    def validator_key(self):
        """The 32-byte ed25519 seed of this node's validator (priv_validator_key.json)."""
        with open(self.config_dir / "priv_validator_key.json") as f:
            doc = json.load(f)
        return base64.b64decode(doc["priv_key"]["value"])[:32]

    def validator_public_key(self):
        """The 32-byte ed25519 public key of this node's validator."""
        with open(self.config_dir / "priv_validator_key.json") as f:
            doc = json.load(f)
        return base64.b64decode(doc["pub_key"]["value"])

    def dev_keys(self):
        """The funded dev account keys, when this is a dev home."""
        marker = self.config_dir / DEV_MARKER
        if not marker.is_file():
            return []
        mnemonic, count = marker.read_text().strip().rsplit("\n", 1)
        return [keys.from_mnemonic(mnemonic, i) for i in range(int(count))]

    def dev_mnemonic(self):
        """The dev accounts' mnemonic, when this is a dev home."""
        return (self.config_dir / DEV_MARKER).read_text().strip().rsplit("\n", 1)[0]

    def _dev_keyring(self, client_settings=""):
        """The dev accounts as dev0, dev1, ... in the CLI's test keyring, which client.toml makes this home's
        default, as Evmos' local node scripts set theirs up: `chaind keys list` shows them, `--from dev0` signs."""
        from chaind.keyring import Keyring

        ring = Keyring(self.path, "test")
        for i, key in enumerate(self.dev_keys()):
            ring.add(f"dev{i}", key.private_key)
        (self.config_dir / "client.toml").write_text('keyring-backend = "test"\n' + client_settings)

    def init(self, moniker, chain_id=None, dev=False, dev_chain=None):
        """Write config, validator key and genesis; refuses to overwrite an existing home.

        `dev_chain` N makes the Nth of several dev chains on one machine, for IBC between them: chain id
        <name>_<EIP-155 id + N - 1>-N (unless `chain_id` is given), every face's port + 100 (N - 1), and the
        relayer account (genesis.relayer_key) funded."""
        if dev_chain is not None:
            if not dev:
                raise ValueError("--dev-chain makes a dev chain: give --dev too")
            if not 1 <= dev_chain <= MAX_DEV_CHAINS:
                raise ValueError(f"--dev-chain must be between 1 and {MAX_DEV_CHAINS}, not {dev_chain}")
        if self.exists():
            raise FileExistsError(f"{self.genesis_file} already exists; choose another --home")
        make_private_dirs(self.config_dir)
        make_private_dirs(self.data_dir)
        private = ed25519.Ed25519PrivateKey.generate()
        seed = private.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                     serialization.NoEncryption())
        public = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        import hashlib

        key_doc = {
            "address": hashlib.sha256(public).digest()[:20].hex().upper(),
            "pub_key": {"type": "tendermint/PubKeyEd25519", "value": base64.b64encode(public).decode()},
            "priv_key": {"type": "tendermint/PrivKeyEd25519", "value": base64.b64encode(seed + public).decode()},
        }
        write_private(self.config_dir / "priv_validator_key.json", json.dumps(key_doc, indent=2))
        template = genesis_mod.dev_template()
        if dev:
            mnemonic = template["app_state"]["bank"]["dev_mnemonic"]
            count = template["app_state"]["bank"]["dev_accounts"]
            if dev_chain is not None and chain_id is None:
                chain_id = dev_chain_id(template["chain_id"], dev_chain)
            doc, _ = genesis_mod.expand_dev(template, public, moniker, time.time_ns(), chain_id,
                                            relayer=dev_chain is not None)
            write_private(self.config_dir / DEV_MARKER, f"{mnemonic}\n{count}\n")
            # The client commands of a home beside the first talk to its own node, on its own chain id.
            self._dev_keyring("" if dev_chain is None else
                              f'chain-id = "{doc["chain_id"]}"\nnode = "tcp://{_comet_address(dev_chain)}"\n')
        else:
            doc = genesis_mod.expand_new(template, time.time_ns(), chain_id)
        self.genesis_file.write_text(json.dumps(doc, indent=2))
        # TOML basic strings take JSON's escapes.
        config_text = etc_file("chaind.toml").read_text().replace('\nmoniker = ""\n',
                                                                  f"\nmoniker = {json.dumps(moniker)}\n", 1)
        if dev:
            # The dev chain serves the txpool, debug (tracing) and dev (Anvil's methods) namespaces too,
            # and says so at start.
            config_text = config_text.replace(f'api = "{DEFAULT_API}"', f'api = "{DEV_API}"', 1)
            # It answers hardhat_metadata, so tools take it for Hardhat's automining network: a block for each
            # tx as it arrives, and the interval's blocks besides, which time-bound modules (gov, epochs) need.
            config_text = config_text.replace("\nautomine = false\n", "\nautomine = true\n", 1)
            # and its metrics and explorer, on the loopback address.
            config_text = config_text.replace("\nprometheus = false\n", "\nprometheus = true\n", 1)
            head, _, explorer = config_text.partition("\n[explorer]\n")
            config_text = head + "\n[explorer]\n" + explorer.replace("\nenable = false\n", "\nenable = true\n", 1)
            # Its blocks are written without fsync, as Anvil keeps its chain in memory: a killed node loses none.
            config_text = config_text.replace("\nfsync = true\n", "\nfsync = false\n", 1)
            # and its tables uncompressed: less of the node's CPU for a larger store.
            config_text = config_text.replace('\ncompression = "snappy"\n', '\ncompression = "none"\n', 1)
            if dev_chain is not None:
                config_text = _LOOPBACK_PORT.sub(
                    lambda m: f'"127.0.0.1:{int(m.group(1)) + DEV_CHAIN_PORT_STEP * (dev_chain - 1)}"', config_text)
        self.config_file.write_text(config_text)
        return self
