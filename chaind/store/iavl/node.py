"""IAVL nodes: cosmos/iavl v1's hash preimages (node.go writeHashBytes) and our LevelDB record of a node.

A node's hash covers its version, so a node is stored once under its hash and never rewritten.
"""

import hashlib
import struct

_sha256 = hashlib.sha256
RECORD = struct.Struct(">BQQI")    # height, size, version, key length
_HASH_PREFIX = b"\x20"              # a 32-byte hash, length-prefixed (uvarint 32)
EMPTY_ROOT = _sha256(b"").digest()  # an empty tree's hash (RFC 6962's empty hash, as iavl)


def varint(n):
    """Go's binary.PutVarint: zigzag, then base-128 little-endian groups."""
    n = n << 1 if n >= 0 else (-n << 1) - 1
    if n < 0x80:
        return bytes((n,))
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def uvarint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_SMALL = [varint(n) for n in range(128)]   # heights (an AVL tree of 2**63 keys is under 92 high)
_SMALL_UVARINTS = [bytes((n,)) for n in range(128)]
_SIZES_KEPT = 1 << 12                     # most inner nodes are small subtrees
_SIZES = [varint(n) for n in range(_SIZES_KEPT)]


def leaf_prefix(version):
    """What precedes the key in a leaf's preimage: height 0, size 1, version."""
    return b"\x00\x02" + varint(version)


def inner_prefix(height, size, version):
    return varint(height) + varint(size) + varint(version)


class Node:
    """A leaf (height 0, key and value) or an inner node (key: the least key of its right subtree).

    A saved node has a version and a hash and never changes; its children are named by hash and
    loaded through the tree's node store. A node being built (version None) holds its children.
    """

    __slots__ = ("key", "value", "height", "size", "version", "left", "right", "left_hash", "right_hash", "hash")

    def __init__(self, key, value=None, height=0, size=1, left=None, right=None):
        self.key = key
        self.value = value
        self.height = height
        self.size = size
        self.left = left
        self.right = right
        self.version = None
        self.left_hash = self.right_hash = self.hash = None

    def seal(self, version, version_varint):
        """Give a node being built its version and hash (its children are sealed first); its record."""
        self.version = version
        key = self.key
        length = len(key)
        # Each preimage and record joined at once (a commit seals hundreds of nodes).
        if self.height == 0:
            value = self.value
            self.hash = _sha256(b"".join((b"\x00\x02", version_varint,
                                          _SMALL_UVARINTS[length] if length < 0x80 else uvarint(length), key,
                                          _HASH_PREFIX, _sha256(value).digest()))).digest()
            return b"".join((RECORD.pack(0, 1, version, length), key, value))
        left_hash = self.left_hash = self.left.hash
        right_hash = self.right_hash = self.right.hash
        size = self.size
        self.hash = _sha256(b"".join((_SMALL[self.height], _SIZES[size] if size < _SIZES_KEPT else varint(size),
                                      version_varint, _HASH_PREFIX, left_hash, _HASH_PREFIX, right_hash))).digest()
        self.left = self.right = None
        return b"".join((RECORD.pack(self.height, size, version, length), key, left_hash, right_hash))


def from_record(node_hash, raw):
    height, size, version, key_length = RECORD.unpack_from(raw)
    start = RECORD.size
    node = Node(raw[start:start + key_length], height=height, size=size)
    body = start + key_length
    if height == 0:
        node.value = raw[body:]
    else:
        node.left_hash, node.right_hash = raw[body:body + 32], raw[body + 32:body + 64]
    node.version, node.hash = version, node_hash
    return node
