"""The CLI's keyring: named eth_secp256k1 keys in <home>/keyring-<backend>/, one JSON file a key.

Backends: `test` keeps private keys in the clear (throwaway dev keys); `file` keeps each as a Web3
Secret Storage v3 keystore (eth-keyfile: scrypt + AES-128-CTR), one passphrase for the whole keyring.
A multisig key (type multi) holds only its threshold and its members' public keys.
"""

import json
import os
import pathlib
import re

import attrs

BACKENDS = ("test", "file")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")


class KeyringError(Exception):
    """A keyring operation that cannot be done: the message says why, in one line."""


@attrs.frozen
class Record:
    name: str
    address: bytes                 # 20-byte account address
    pubkey: bytes                  # 33-byte compressed eth_secp256k1 key (a multisig: its amino bytes)
    type: str = "local"
    threshold: int = 0             # a multisig's K
    members: tuple = ()            # a multisig's (key type, compressed key), in its order


class Keyring:
    def __init__(self, home, backend, passphrase=None):
        """`passphrase(confirm)` is asked for the file backend's passphrase (twice when creating one)."""
        if backend not in BACKENDS:
            raise KeyringError(f"unknown keyring backend {backend!r}: want one of {', '.join(BACKENDS)}")
        self.backend = backend
        self.dir = pathlib.Path(home) / f"keyring-{backend}"
        self._ask = passphrase
        self._passphrase = None

    def _path(self, name):
        if not _NAME.match(name):
            raise KeyringError(f"invalid key name {name!r}: use letters, digits, '.', '_' or '-' (at most 64)")
        return self.dir / f"{name}.json"

    def _read(self, name):
        path = self._path(name)
        try:
            return json.loads(path.read_text())
        except FileNotFoundError:
            raise self.not_found(name) from None
        except (OSError, ValueError) as e:
            raise KeyringError(f"cannot read key {name!r} from {path}: {e}") from None

    def not_found(self, name):
        """The error for a key this keyring lacks, saying where else it is, as users of the default `file`
        keyring look for keys a `test` keyring holds."""
        elsewhere = [b for b in BACKENDS if b != self.backend
                     and (self.dir.parent / f"keyring-{b}" / f"{name}.json").is_file()]
        if elsewhere:
            hint = (f" in the {self.backend} keyring; the {elsewhere[0]} keyring has it: give --keyring-backend "
                    f"{elsewhere[0]}")
        elif self.backend == "file":
            hint = " in the file keyring (the default); give --keyring-backend test for the test keyring"
        else:
            hint = f" in the {self.backend} keyring"
        return KeyringError(f"{name}.info: key not found{hint}")

    def names(self):
        if not self.dir.is_dir():
            return []
        return sorted(p.name[:-len(".json")] for p in self.dir.glob("*.json"))

    def get(self, name):
        doc = self._read(name)
        members = tuple((m["algo"], bytes.fromhex(m["pubkey"])) for m in doc.get("members", ()))
        return Record(name=name, address=bytes.fromhex(doc["address"]), pubkey=bytes.fromhex(doc["pubkey"]),
                      type=doc.get("type", "local"), threshold=doc.get("threshold", 0), members=members)

    def by_address(self, address):
        for name in self.names():
            record = self.get(name)
            if record.address == address:
                return record
        return None

    def list(self):
        return [self.get(name) for name in self.names()]

    def add(self, name, private_key, overwrite=False):
        """Store a 32-byte private key under `name`; the Record of its account."""
        from chaind.crypto.keys import AccountKey

        path = self._path(name)
        if path.exists() and not overwrite:
            raise KeyringError(f"key {name!r} already exists in the {self.backend} keyring")
        key = AccountKey(bytes(private_key))
        doc = {"name": name, "type": "local", "algo": "eth_secp256k1", "address": key.address.hex(),
               "pubkey": key.compressed_public_key.hex()}
        if self.backend == "test":
            doc["private_key"] = key.private_key.hex()
        else:
            import eth_keyfile

            passphrase = self._passphrase_for_writing()
            doc["keystore"] = eth_keyfile.create_keyfile_json(key.private_key, passphrase.encode(), kdf="scrypt")
        self._write(path, doc)
        return self.get(name)

    def add_multisig(self, name, threshold, members):
        """Store a `threshold`-of-`members` multisig ((key type, compressed key) each, in order) under `name`."""
        from chaind.crypto import multisig

        path = self._path(name)
        if path.exists():
            raise KeyringError(f"key {name!r} already exists in the {self.backend} keyring")
        if not 0 < threshold <= len(members):
            raise KeyringError(f"threshold k of n multisignature: {len(members)} < {threshold}"
                               if threshold > len(members) else "threshold must be a positive integer")
        doc = {"name": name, "type": "multi", "algo": "multi", "threshold": threshold,
               "address": multisig.address(threshold, members).hex(),
               "pubkey": multisig.amino_bytes(threshold, members).hex(),
               "members": [{"algo": t, "pubkey": k.hex()} for t, k in members]}
        self._write(path, doc)
        return self.get(name)

    def _write(self, path, doc):
        self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary = path.with_suffix(".tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f)
        os.replace(temporary, path)

    def private_key(self, name):
        doc = self._read(name)
        if doc.get("type") == "multi":
            raise KeyringError(f"{name} is a multisig key: it has no private key, its members sign")
        if self.backend == "test":
            return bytes.fromhex(doc["private_key"])
        return self._decrypt(doc["keystore"], self._passphrase_for_reading())

    def delete(self, name):
        self._read(name)
        self._path(name).unlink()

    # -- the file backend's passphrase ------------------------------------------------------------

    def _decrypt(self, keystore, passphrase):
        import eth_keyfile

        try:
            return bytes(eth_keyfile.decode_keyfile_json(keystore, passphrase.encode()))
        except ValueError:
            raise KeyringError("wrong keyring passphrase") from None

    def _passphrase_for_reading(self):
        if self._passphrase is None:
            self._passphrase = self._prompt(confirm=False)
        return self._passphrase

    def _passphrase_for_writing(self):
        """A new keyring's passphrase is asked twice; an existing one's is checked against a stored key."""
        if self._passphrase is not None:
            return self._passphrase
        existing = [n for n in self.names() if "keystore" in self._read(n)]
        passphrase = self._prompt(confirm=not existing)
        if existing:
            self._decrypt(self._read(existing[0])["keystore"], passphrase)
        self._passphrase = passphrase
        return passphrase

    def _prompt(self, confirm):
        if self._ask is None:
            raise KeyringError("the file keyring needs a passphrase and none can be asked for")
        passphrase = self._ask(confirm)
        if not passphrase:
            raise KeyringError("the keyring passphrase must not be empty")
        return passphrase
