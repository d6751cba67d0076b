"""CometBFT's simple Merkle tree (RFC 6962 prefixes) over byte slices, for headers, votes and validator sets.

One tree serves them and the IAVL proofs' commit info: store/iavl/proofs.py computes it.
"""

from chaind.store.iavl import proofs


def root(items):
    """The root of `items`: leaves are sha256(0x00 || item), inner nodes sha256(0x01 || l || r)."""
    return proofs.simple_root(items)
