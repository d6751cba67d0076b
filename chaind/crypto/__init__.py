"""Keys and addresses: eth_secp256k1 accounts, ed25519 consensus keys, bech32 and 0x forms."""
