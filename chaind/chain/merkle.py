"""CometBFT's simple Merkle tree (RFC 6962 prefixes) over byte slices."""

import hashlib

_EMPTY = hashlib.sha256(b"").digest()


def root(items):
    """The root of `items`: leaves are sha256(0x00 || item), inner nodes sha256(0x01 || l || r)."""
    if not items:
        return _EMPTY
    sha256 = hashlib.sha256
    # Level by level, an odd last node carried up as it is: the same tree as splitting at the largest
    # power of two below n (RFC 6962), without the recursion, which cost more than the hashing.
    level = [sha256(b"\x00" + item).digest() for item in items]
    while len(level) > 1:
        pairs = [sha256(b"\x01" + level[i] + level[i + 1]).digest() for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            pairs.append(level[-1])
        level = pairs
    return level[0]
