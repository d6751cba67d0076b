"""A node's home directory: config/ (chaind.toml, genesis.json, validator key) and data/ (LevelDB).

With no home given, a dev chain is created under ~/.chaind on first start.
"""

import base64
import json
import pathlib
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

    def _dev_keyring(self):
        """The dev accounts as dev0, dev1, ... in the CLI's test keyring, which client.toml makes this home's
        default, as Evmos' local node scripts set theirs up: `chaind keys list` shows them, `--from dev0` signs."""
        from chaind.keyring import Keyring

        ring = Keyring(self.path, "test")
        for i, key in enumerate(self.dev_keys()):
            ring.add(f"dev{i}", key.private_key)
        (self.config_dir / "client.toml").write_text('keyring-backend = "test"\n')

    def init(self, moniker, chain_id=None, dev=False):
        """Write config, validator key and genesis; refuses to overwrite an existing home."""
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
            doc, _ = genesis_mod.expand_dev(template, public, moniker, time.time_ns(), chain_id)
            write_private(self.config_dir / DEV_MARKER, f"{mnemonic}\n{count}\n")
            self._dev_keyring()
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
        self.config_file.write_text(config_text)
        return self
