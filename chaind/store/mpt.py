"""Reads and batched writes of a Merkle Patricia trie over stored RLP nodes, through one cache of decoded nodes.

py-trie rebuilds the path from the root once per key and decodes every node it passes on every read: the block's
account trie (a few accounts per block) spent more there than on executing its txs. The roots are the same.
"""

import collections
import threading

from eth.constants import BLANK_ROOT_HASH
from eth_hash.auto import keccak

from chaind.store.evm_state import rlp_list

# Decoded nodes by hash. A hash names its content, so an entry never goes stale, whichever store (committed,
# a block's pending nodes, an eth_call's scratch) it came from. The nodes near the root change with every
# block: the ones a block makes go in as it makes them, and the oldest go first.
CACHE_NODES = 8192
# Ordered: a plain dict's first entry, evicted again and again, is found only after a scan of the deleted slots.
_nodes = collections.OrderedDict()
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
            _nodes.popitem(last=False)
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
    tree = root if root != BLANK_ROOT_HASH else None
    for key, value in sorted(changes.items()):
        path = key.hex()
        tree = _put(get_node, tree, path, value) if value else _delete(get_node, tree, path)
    if tree is None:
        return BLANK_ROOT_HASH, {}
    if tree.__class__ is bytes:
        return tree, {}
    added = {}
    encoded, items = _encode(tree, added)
    root = keccak(encoded)
    added[root] = encoded
    _remember(root, items)
    return root, added


# -- the in-memory form of the changed part of the trie ------------------------------------------------------
# A child is b"" or None (none), bytes (an unchanged subtree: its hash, or its RLP when inlined in the parent, as
# the parent's decoded items hold it), or a _Leaf, _Ext or _Branch being built.

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
        return _Branch(list(node[:16]), node[16])
    flag, path = _decode_path(node[0])
    return _Leaf(path, node[1]) if flag & 2 else _Ext(path, node[1])


def _common(a, b):
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _put(get_node, node, path, value):
    if not node:
        return _Leaf(path, value)
    if node.__class__ is bytes:
        node = _expand(get_node, node)
    if node.__class__ is _Branch:
        if not path:
            node.value = value
        else:
            i = int(path[0], 16)
            node.children[i] = _put(get_node, node.children[i], path[1:], value)
        return node
    if node.__class__ is _Leaf and node.path == path:
        node.value = value
        return node
    n = _common(node.path, path)
    if node.__class__ is _Ext and n == len(node.path):
        node.child = _put(get_node, node.child, path[n:], value)
        return node
    # The paths part at nibble n: a branch there holds the old node's rest and the new value.
    branch = _Branch([None] * 16, b"")
    rest = node.path[n + 1:]
    if node.__class__ is _Leaf:
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
    if not node:
        return None
    if node.__class__ is bytes:
        node = _expand(get_node, node)
    if node.__class__ is _Leaf:
        return None if node.path == path else node
    if node.__class__ is _Ext:
        if not path.startswith(node.path):
            return node
        return _joined(get_node, node.path, _delete(get_node, node.child, path[len(node.path):]))
    if not path:
        node.value = b""
    else:
        i = int(path[0], 16)
        node.children[i] = _delete(get_node, node.children[i], path[1:])
    present = [i for i, child in enumerate(node.children) if child]
    if len(present) + (1 if node.value else 0) >= 2:
        return node
    if node.value:
        return _Leaf("", node.value)
    if not present:
        return None
    return _joined(get_node, "%x" % present[0], node.children[present[0]])


def _joined(get_node, prefix, node):
    """`node` under an extension of `prefix`, merged into it when it is a leaf or an extension itself."""
    if not node:
        return None
    if node.__class__ is bytes:
        node = _expand(get_node, node)
    if node.__class__ is _Leaf:
        return _Leaf(prefix + node.path, node.value)
    if node.__class__ is _Ext:
        return _Ext(prefix + node.path, node.child)
    return _Ext(prefix, node)


def _encode(node, added):
    """(the RLP of `node`, its items as node_items gives them); its changed descendants go into `added`
    ({hash: RLP}) and the node cache."""
    if node.__class__ is _Branch:
        # Most children are unchanged (a ref) or none: _ref only for the ones being built.
        items = [child if child.__class__ is bytes else b"" if child is None else _ref(child, added)
                 for child in node.children]
        value = node.value
        payload = b"".join([b"\xa0" + ref if len(ref) == 32 else ref or b"\x80" for ref in items])
        items.append(value)
        return rlp_list_of(payload + rlp_string(value)), tuple(items)
    flag = (2 if node.__class__ is _Leaf else 0) + (len(node.path) & 1)
    compact = bytes.fromhex(("%x" % flag if flag & 1 else "%x0" % flag) + node.path)
    if node.__class__ is _Leaf:
        tail = node.value
        payload = rlp_string(compact) + rlp_string(tail)
    else:
        tail = _ref(node.child, added)
        payload = rlp_string(compact) + (b"\xa0" + tail if len(tail) == 32 else tail)
    return rlp_list_of(payload), (compact, tail)


def _ref(node, added):
    """A child as its parent's items hold it: b"" for none, its hash, or its own RLP when under 32 bytes."""
    if not node:
        return b""
    if node.__class__ is bytes:
        return node
    encoded, items = _encode(node, added)
    if len(encoded) < 32:
        return encoded
    ref = keccak(encoded)
    added[ref] = encoded
    _remember(ref, items)
    return ref


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
