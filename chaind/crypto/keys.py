"""Account keys from BIP39 mnemonics, and how each kind of key signs and names its address.

eth_secp256k1 (Evmos): keccak of the sign bytes, address = keccak of the public key. secp256k1
(the Cosmos SDK's, what cosmpy signs with): SHA-256 of the sign bytes, address = RIPEMD-160(SHA-256).
"""

import functools
import hashlib

import attrs
from eth_account import Account
from eth_hash.auto import keccak
from eth_keys import keys as eth_keys

Account.enable_unaudited_hdwallet_features()

ETH_HD_PATH = "m/44'/60'/0'/0/{index}"
# The Cosmos SDK's coin type 118: what @cosmjs wallets and relayers (ts-relayer, Hermes) derive by default.
COSMOS_HD_PATH = "m/44'/118'/0'/0/{index}"
ETH_SECP256K1 = "eth_secp256k1"
SECP256K1 = "secp256k1"
# The length of each kind's signature: R || S || V (Ethereum's), R || S (the SDK's).
SIGNATURE_SIZE = {ETH_SECP256K1: 65, SECP256K1: 64}
_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
# A tx's key is decompressed and its signature checked when it is decoded and checked (check_tx), and again at
# delivery: both are pure functions of their bytes, so the last few thousand answers are kept.
_KEYS_KEPT = 4096


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

    def sign(self, key_type, sign_bytes):
        """The signature a `key_type` key makes of `sign_bytes` (65 bytes for eth, 64 low-S for Cosmos)."""
        if key_type == ETH_SECP256K1:
            return self.sign_digest(keccak(sign_bytes))
        signature = self._key.sign_msg_hash(hashlib.sha256(sign_bytes).digest())
        s = signature.s if signature.s <= _N // 2 else _N - signature.s
        return signature.r.to_bytes(32, "big") + s.to_bytes(32, "big")

    def address_as(self, key_type):
        return address_of(key_type, self.compressed_public_key)


def from_mnemonic(mnemonic, index=0, path=ETH_HD_PATH):
    account = Account.from_mnemonic(mnemonic, account_path=path.format(index=index))
    return AccountKey(bytes(account.key))


@functools.lru_cache(maxsize=_KEYS_KEPT)
def _public_key(compressed):
    """The eth_keys PublicKey of a compressed key; raises for a point not on the curve (not kept)."""
    return eth_keys.PublicKey.from_compressed_bytes(compressed)


@functools.lru_cache(maxsize=_KEYS_KEPT)
def address_of_public_key(compressed):
    """The keccak address of a 33-byte compressed secp256k1 public key."""
    return _public_key(compressed).to_canonical_address()


def address_of(key_type, compressed):
    if key_type == ETH_SECP256K1:
        return address_of_public_key(compressed)
    _public_key(compressed)      # raises for a point not on the curve
    return hashlib.new("ripemd160", hashlib.sha256(compressed).digest()).digest()


def verify_signed(key_type, compressed_public_key, sign_bytes, signature):
    """True when `signature` is the `key_type` key's signature of `sign_bytes`."""
    if key_type == ETH_SECP256K1:
        return verify(compressed_public_key, keccak(sign_bytes), signature)
    # The SDK's secp256k1 takes exactly R || S with S in the lower half (no malleable twins).
    if len(signature) != 64 or int.from_bytes(signature[32:], "big") > _N // 2:
        return False
    return verify(compressed_public_key, hashlib.sha256(sign_bytes).digest(), signature)


@functools.lru_cache(maxsize=_KEYS_KEPT)
def verify(compressed_public_key, digest, signature):
    """True when `signature` (64-byte R||S, or 65 with V) signs `digest` under the public key."""
    if len(signature) not in (64, 65):
        return False
    try:
        public = _public_key(compressed_public_key)
        return public.verify_msg_hash(digest, eth_keys.NonRecoverableSignature(signature[:64]))
    except Exception:  # noqa: BLE001 (eth_keys raises several kinds; any is a failed verification)
        return False
