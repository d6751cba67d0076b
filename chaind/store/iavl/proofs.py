"""ICS-23 proofs of an IAVL tree (as iavl's proof_ics23.go builds them) and of a store root in the
multistore's commit info (the simple Merkle tree, as the SDK's CommitInfo.ProofOp builds them).
"""

import functools
import hashlib

from chaind.pb.cosmos.ics23.v1 import proofs_pb2 as ics23
from chaind.store.iavl import tree as trees
from chaind.store.iavl.node import inner_prefix, leaf_prefix, uvarint

IAVL_OP = "ics23:iavl"
SIMPLE_OP = "ics23:simple"
_HASH = b"\x20"
_sha256 = hashlib.sha256


def _existence(nodes, root, key):
    steps, leaf = trees.path_to_leaf(nodes, root, key)
    path = []
    for height, size, version, left, right in reversed(steps):
        prefix = inner_prefix(height, size, version)
        if left is not None:
            path.append(ics23.InnerOp(hash=ics23.SHA256, prefix=prefix + _HASH + left + _HASH))
        else:
            path.append(ics23.InnerOp(hash=ics23.SHA256, prefix=prefix + _HASH, suffix=_HASH + right))
    return ics23.ExistenceProof(
        key=leaf.key, value=leaf.value, path=path,
        leaf=ics23.LeafOp(hash=ics23.SHA256, prehash_value=ics23.SHA256, length=ics23.VAR_PROTO,
                          prefix=leaf_prefix(leaf.version)))


def iavl_proof(nodes, root, key):
    """(value or None, CommitmentProof): membership of `key` in tree `root`, or its neighbours' proofs."""
    index, value = trees.get_with_index(nodes, root, key)
    if value is not None:
        return value, ics23.CommitmentProof(exist=_existence(nodes, root, key))
    absent = ics23.NonExistenceProof(key=key)
    if index >= 1:
        absent.left.CopyFrom(_existence(nodes, root, trees.get_by_index(nodes, root, index - 1)))
    right = trees.get_by_index(nodes, root, index)
    if right is not None:
        absent.right.CopyFrom(_existence(nodes, root, right))
    return None, ics23.CommitmentProof(nonexist=absent)


def store_leaf(name, root_hash):
    """A commit info leaf: the SDK's KVPair bytes of the store name and SHA-256 of its root hash."""
    name = name.encode()
    value = hashlib.sha256(root_hash).digest()
    return uvarint(len(name)) + name + uvarint(len(value)) + value


def simple_proof(leaves, index, name, root_hash):
    """The ExistenceProof of leaf `index` of `leaves` (CometBFT's simple Merkle tree) as ICS-23 ops."""
    aunts = []
    _aunts(leaves, index, aunts)
    path = []
    for on_left, aunt in aunts:
        if on_left:
            path.append(ics23.InnerOp(hash=ics23.SHA256, prefix=b"\x01" + aunt))
        else:
            path.append(ics23.InnerOp(hash=ics23.SHA256, prefix=b"\x01", suffix=aunt))
    return ics23.CommitmentProof(exist=ics23.ExistenceProof(
        key=name.encode(), value=root_hash, path=path,
        leaf=ics23.LeafOp(hash=ics23.SHA256, prehash_value=ics23.SHA256, length=ics23.VAR_PROTO,
                          prefix=b"\x00")))


def simple_root(items):
    """CometBFT's HashFromByteSlices: leaves sha256(0x00 || item), inner nodes sha256(0x01 || left || right)."""
    if not items:
        return hashlib.sha256(b"").digest()
    return simple_root_of_leaves([hashlib.sha256(b"\x00" + item).digest() for item in items])


def simple_root_of_leaves(hashes):
    """simple_root of the items whose leaf hashes (sha256(0x00 || item)) are `hashes` (at least one)."""
    # Level by level, an odd last node carried up as it is: the tree of splits at the largest power of two
    # below n, without the recursion.
    level = hashes
    while len(level) > 1:
        pairs = [_sha256(b"\x01" + level[i] + level[i + 1]).digest() for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            pairs.append(level[-1])
        level = pairs
    return level[0]


@functools.lru_cache(maxsize=1024)
def store_leaf_hash(name, root_hash):
    """The simple tree's leaf hash of store `name`'s root in a commit info; remembered, since most stores keep
    their root from one block to the next."""
    return _sha256(b"\x00" + store_leaf(name, root_hash)).digest()


def _aunts(items, index, out):
    """Append (the sibling is on the left, its hash) for leaf `index`, from the top down."""
    if len(items) == 1:
        return
    split = 1 << ((len(items) - 1).bit_length() - 1)
    if index < split:
        _aunts(items[:split], index, out)
        out.append((False, simple_root(items[split:])))
    else:
        _aunts(items[split:], index - split, out)
        out.append((True, simple_root(items[:split])))
