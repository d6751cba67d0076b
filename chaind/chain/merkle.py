"""CometBFT's simple Merkle tree (RFC 6962 prefixes) over byte slices."""

import hashlib

_EMPTY = hashlib.sha256(b"").digest()


def root(items):
    """The root of `items`: leaves are sha256(0x00 || item), inner nodes sha256(0x01 || l || r)."""
    n = len(items)
    if n == 0:
        return _EMPTY
    if n == 1:
        return hashlib.sha256(b"\x00" + items[0]).digest()
    split = 1 << ((n - 1).bit_length() - 1)
    return hashlib.sha256(b"\x01" + root(items[:split]) + root(items[split:])).digest()
