"""Account keys (eth_secp256k1) from BIP39 mnemonics, and their public forms."""

import attrs
from eth_account import Account
from eth_keys import keys as eth_keys

Account.enable_unaudited_hdwallet_features()

ETH_HD_PATH = "m/44'/60'/0'/0/{index}"


@attrs.frozen
class AccountKey:
    private_key: bytes

    @property
    def _key(self):
        return eth_keys.PrivateKey(self.private_key)

    @property
    def address(self):
        return self._key.public_key.to_canonical_address()

    @property
    def compressed_public_key(self):
        return self._key.public_key.to_compressed_bytes()

    def sign_digest(self, digest):
        """A 65-byte [R || S || V] signature of a 32-byte digest, as go-ethereum makes it."""
        return self._key.sign_msg_hash(digest).to_bytes()


def from_mnemonic(mnemonic, index=0):
    account = Account.from_mnemonic(mnemonic, account_path=ETH_HD_PATH.format(index=index))
    return AccountKey(bytes(account.key))


def address_of_public_key(compressed):
    """The keccak address of a 33-byte compressed secp256k1 public key."""
    return eth_keys.PublicKey.from_compressed_bytes(compressed).to_canonical_address()


def verify(compressed_public_key, digest, signature):
    """True when `signature` (64-byte R||S, or 65 with V) signs `digest` under the public key."""
    if len(signature) not in (64, 65):
        return False
    try:
        public = eth_keys.PublicKey.from_compressed_bytes(compressed_public_key)
        return public.verify_msg_hash(digest, eth_keys.NonRecoverableSignature(signature[:64]))
    except Exception:
        return False
