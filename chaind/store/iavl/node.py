"""IAVL nodes: cosmos/iavl v1's hash preimages (node.go writeHashBytes) and our LevelDB record of a node.

A node's hash covers its version, so a node is stored once under its hash and never rewritten.
"""

import hashlib
import struct

_sha256 = hashlib.sha256
_RECORD = struct.Struct(">BQQI")    # height, size, version, key length
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


# Heights (an AVL tree of 2**63 keys is under 92 high) and most sizes: a commit's new nodes are mostly low.
_SMALL_COUNT = 4096
_SMALL = [varint(n) for n in range(_SMALL_COUNT)]
_SMALL_UVARINT = [uvarint(n) for n in range(128)]


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


def seal_new(root, version, prefix, puts):
    """Seal the nodes being built under `root` (version None; children before parents): give each the
    version and its hash, drop its links to its children (a saved node names them by hash), and add its record
    under `prefix` + hash to `puts`. Returns [(hash, node)] of those sealed. One function, not a method of a
    node: a commit seals thousands of nodes, and Python calls cost more than the work of one."""
    version_varint = varint(version)
    leaf_head = b"\x00\x02" + version_varint
    sha256, pack, small, join = _sha256, _RECORD.pack, _SMALL, b"".join
    sealed = []

    def seal(node):
        key = node.key
        if node.height == 0:
            length = _SMALL_UVARINT[len(key)] if len(key) < 0x80 else uvarint(len(key))
            value = node.value
            node_hash = sha256(join((leaf_head, length, key, _HASH_PREFIX, sha256(value).digest()))).digest()
            puts[prefix + node_hash] = join((pack(0, 1, version, len(key)), key, value))
        else:
            left, right = node.left, node.right
            if left.version is None:
                seal(left)
            if right.version is None:
                seal(right)
            height, size = node.height, node.size
            left_hash, right_hash = left.hash, right.hash
            node_hash = sha256(join((small[height], small[size] if size < _SMALL_COUNT else varint(size),
                                     version_varint, _HASH_PREFIX, left_hash, _HASH_PREFIX, right_hash))).digest()
            puts[prefix + node_hash] = join((pack(height, size, version, len(key)), key, left_hash, right_hash))
            node.left_hash, node.right_hash = left_hash, right_hash
            node.left = node.right = None
        node.version, node.hash = version, node_hash
        sealed.append((node_hash, node))

    seal(root)
    return sealed


def from_record(node_hash, raw):
    height, size, version, key_length = _RECORD.unpack_from(raw)
    start = _RECORD.size
    node = Node(raw[start:start + key_length], height=height, size=size)
    body = start + key_length
    if height == 0:
        node.value = raw[body:]
    else:
        node.left_hash, node.right_hash = raw[body:body + 32], raw[body + 32:body + 64]
    node.version, node.hash = version, node_hash
    return node
