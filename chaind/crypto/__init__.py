"""Keys and addresses: eth_secp256k1 accounts, ed25519 consensus keys, bech32 and 0x forms."""

import eth_hash.auto
from eth_hash.backends import pysha3

# Every keccak through eth_hash (py-evm, py-trie, eth-utils, ours) by safe-pysha3: about 1 us a hash, against
# 7-17 us through pycryptodome, which eth_hash would pick first; a block and its tx's check take a dozen.
# The instance's hasher and preimage are what it calls (eth_hash sets them itself on first use).
eth_hash.auto.keccak.hasher = pysha3.backend.keccak256
eth_hash.auto.keccak.preimage = pysha3.backend.preimage
