"""ICS-23 proofs of an IAVL tree (as iavl's proof_ics23.go builds them) and of a store root in the
multistore's commit info (the simple Merkle tree, as the SDK's CommitInfo.ProofOp builds them).
"""

import hashlib

from chaind.pb.cosmos.ics23.v1 import proofs_pb2 as ics23
from chaind.store.iavl import tree as trees
from chaind.store.iavl.node import inner_prefix, leaf_prefix, uvarint

IAVL_OP = "ics23:iavl"
SIMPLE_OP = "ics23:simple"
_HASH = b"\x20"


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
    if len(items) == 1:
        return hashlib.sha256(b"\x00" + items[0]).digest()
    split = 1 << ((len(items) - 1).bit_length() - 1)
    return hashlib.sha256(b"\x01" + simple_root(items[:split]) + simple_root(items[split:])).digest()


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
