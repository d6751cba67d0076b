"""Reads and batched writes of a Merkle Patricia trie over stored RLP nodes, through one cache of decoded nodes.

py-trie rebuilds the path from the root once per key and decodes every node it passes on every read: the block's
account trie (a few accounts per block) spent more there than on executing its txs. The roots are the same.
"""

import threading

from eth.constants import BLANK_ROOT_HASH
from eth_hash.auto import keccak

from chaind.store.evm_state import rlp_list

# Decoded nodes by hash. A hash names its content, so an entry never goes stale, whichever store (committed,
# a block's pending nodes, an eth_call's scratch) it came from. The nodes near the root change with every
# block: the ones a block makes go in as it makes them, and the oldest go first.
CACHE_NODES = 8192
_nodes = {}
_lock = threading.Lock()


def node_items(get, ref):
    """The items of stored node `ref` (a tuple: strings decoded, nested lists left encoded); get(ref) gives its
    RLP, and raises KeyError when it is not stored."""
    items = _nodes.get(ref)
    if items is None:
        items = tuple(rlp_list(get(ref)))
        _remember(ref, items)
    return items


def _remember(ref, items):
    with _lock:
        if len(_nodes) >= CACHE_NODES:
            del _nodes[next(iter(_nodes))]
        _nodes[ref] = items


def get(get_node, root, key):
    """The value under `key` in trie `root` (b"" when absent); get_node(ref) gives a stored node's RLP."""
    if root == BLANK_ROOT_HASH:
        return b""
    path, pos, ref = key.hex(), 0, root
    while True:
        if len(ref) == 32:
            node = node_items(get_node, ref)
        elif ref:                       # a node under 32 bytes is inlined in its parent
            node = rlp_list(ref)
        else:
            return b""
        if len(node) == 17:
            if pos == len(path):
                return node[16]
            ref = node[int(path[pos], 16)]
            pos += 1
            continue
        flag, segment = _decode_path(node[0])
        if flag & 2:
            return node[1] if path[pos:] == segment else b""
        if not path.startswith(segment, pos):
            return b""
        pos += len(segment)
        ref = node[1]


def update(get_node, root, changes):
    """Trie `root` with `changes` ({key: value, or b"" to delete}) applied: (new root, {hash: RLP} of the nodes
    it adds). get_node(ref) gives a stored node's RLP. The root node is stored even when under 32 bytes."""
    tree = _Ref(root) if root != BLANK_ROOT_HASH else None
    for key, value in sorted(changes.items()):
        path = key.hex()
        tree = _put(get_node, tree, path, value) if value else _delete(get_node, tree, path)
    if tree is None:
        return BLANK_ROOT_HASH, {}
    if isinstance(tree, _Ref):
        return tree.ref, {}
    added = {}
    encoded = _encode(tree, added)
    root = keccak(encoded)
    added[root] = encoded
    _remember(root, tuple(rlp_list(encoded)))
    return root, added


# -- the in-memory form of the changed part of the trie ------------------------------------------------------

class _Ref:
    """An unchanged subtree: its hash, or its RLP when inlined in the parent."""
    __slots__ = ("ref",)

    def __init__(self, ref):
        self.ref = ref


class _Leaf:
    __slots__ = ("path", "value")

    def __init__(self, path, value):
        self.path, self.value = path, value


class _Ext:
    __slots__ = ("path", "child")

    def __init__(self, path, child):
        self.path, self.child = path, child


class _Branch:
    __slots__ = ("children", "value")

    def __init__(self, children, value):
        self.children, self.value = children, value


def _decode_path(compact):
    """(flag nibble, path in hex digits) of a hex-prefix encoded path (flag 2: leaf, 1: odd length)."""
    text = compact.hex()
    flag = int(text[0], 16)
    return flag, text[1:] if flag & 1 else text[2:]


def _expand(get_node, ref):
    node = node_items(get_node, ref) if len(ref) == 32 else rlp_list(ref)
    if len(node) == 17:
        return _Branch([_Ref(child) if child else None for child in node[:16]], node[16])
    flag, path = _decode_path(node[0])
    return _Leaf(path, node[1]) if flag & 2 else _Ext(path, _Ref(node[1]))


def _common(a, b):
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _put(get_node, node, path, value):
    if node is None:
        return _Leaf(path, value)
    if isinstance(node, _Ref):
        node = _expand(get_node, node.ref)
    if isinstance(node, _Branch):
        if not path:
            node.value = value
        else:
            i = int(path[0], 16)
            node.children[i] = _put(get_node, node.children[i], path[1:], value)
        return node
    if isinstance(node, _Leaf) and node.path == path:
        node.value = value
        return node
    n = _common(node.path, path)
    if isinstance(node, _Ext) and n == len(node.path):
        node.child = _put(get_node, node.child, path[n:], value)
        return node
    # The paths part at nibble n: a branch there holds the old node's rest and the new value.
    branch = _Branch([None] * 16, b"")
    rest = node.path[n + 1:]
    if isinstance(node, _Leaf):
        if len(node.path) == n:
            branch.value = node.value
        else:
            branch.children[int(node.path[n], 16)] = _Leaf(rest, node.value)
    else:
        branch.children[int(node.path[n], 16)] = _Ext(rest, node.child) if rest else node.child
    if len(path) == n:
        branch.value = value
    else:
        branch.children[int(path[n], 16)] = _Leaf(path[n + 1:], value)
    return _Ext(path[:n], branch) if n else branch


def _delete(get_node, node, path):
    if node is None:
        return None
    if isinstance(node, _Ref):
        node = _expand(get_node, node.ref)
    if isinstance(node, _Leaf):
        return None if node.path == path else node
    if isinstance(node, _Ext):
        if not path.startswith(node.path):
            return node
        return _joined(get_node, node.path, _delete(get_node, node.child, path[len(node.path):]))
    if not path:
        node.value = b""
    else:
        i = int(path[0], 16)
        node.children[i] = _delete(get_node, node.children[i], path[1:])
    present = [i for i, child in enumerate(node.children) if child is not None]
    if len(present) + (1 if node.value else 0) >= 2:
        return node
    if node.value:
        return _Leaf("", node.value)
    if not present:
        return None
    return _joined(get_node, "%x" % present[0], node.children[present[0]])


def _joined(get_node, prefix, node):
    """`node` under an extension of `prefix`, merged into it when it is a leaf or an extension itself."""
    if node is None:
        return None
    if isinstance(node, _Ref):
        node = _expand(get_node, node.ref)
    if isinstance(node, _Leaf):
        return _Leaf(prefix + node.path, node.value)
    if isinstance(node, _Ext):
        return _Ext(prefix + node.path, node.child)
    return _Ext(prefix, node)


def _encode(node, added):
    """The RLP of `node`, its changed descendants' going into `added` ({hash: RLP})."""
    if isinstance(node, _Branch):
        items = [_child(child, added) for child in node.children]
        items.append(rlp_string(node.value))
    else:
        flag = (2 if isinstance(node, _Leaf) else 0) + (len(node.path) & 1)
        compact = bytes.fromhex(("%x" % flag if flag & 1 else "%x0" % flag) + node.path)
        tail = rlp_string(node.value) if isinstance(node, _Leaf) else _child(node.child, added)
        items = [rlp_string(compact), tail]
    return rlp_list_of(b"".join(items))


def _child(node, added):
    """A child's reference in its parent's RLP: its hash, or its own RLP when under 32 bytes."""
    if node is None:
        return b"\x80"
    if isinstance(node, _Ref):
        ref = node.ref
        return rlp_string(ref) if len(ref) == 32 else ref
    encoded = _encode(node, added)
    if len(encoded) < 32:
        return encoded
    ref = keccak(encoded)
    added[ref] = encoded
    _remember(ref, tuple(rlp_list(encoded)))
    return rlp_string(ref)


def rlp_string(data):
    """The RLP of a byte string."""
    n = len(data)
    if n == 1 and data[0] < 0x80:
        return data
    if n < 56:
        return bytes((0x80 + n,)) + data
    size = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes((0xb7 + len(size),)) + size + data


def rlp_list_of(payload):
    """The RLP of a list whose items' RLP, joined, is `payload`."""
    n = len(payload)
    if n < 56:
        return bytes((0xc0 + n,)) + payload
    size = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes((0xf7 + len(size),)) + size + payload
