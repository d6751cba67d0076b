"""An IAVL tree as the export nodes of cosmos/iavl's Exporter (post-order: left, right, then the node), and back.

A state-sync snapshot carries a store this way; the importer rebuilds each node, whose hash covers its version,
so the rebuilt root is the exported one exactly when nothing was changed on the way.
"""

import attrs

from chaind.store.iavl.node import EMPTY_ROOT, RECORD, Node, varint

MAX_HEIGHT = 127        # cosmos/iavl's importer refuses a node higher than an int8


@attrs.frozen
class ExportNode:
    key: bytes
    value: bytes | None     # None for an inner node
    version: int
    height: int


def export_nodes(db, prefix, root):
    """ExportNodes of the tree under node hash `root` (nodes at LevelDB keys `prefix + hash`), in post-order."""
    for key, value, version, height in export_tuples(db, prefix, root):
        yield ExportNode(key, value, version, height)


def export_tuples(db, prefix, root):
    """export_nodes' nodes as (key, value or None, version, height): a snapshot takes hundreds of thousands, each
    read from its record once (an inner node's record is read when it is reached, and kept until its children are
    out)."""
    if root == EMPTY_ROOT:
        return
    unpack, head = RECORD.unpack_from, RECORD.size
    get = db.get
    stack = [(root, None)]
    pop, push = stack.pop, stack.append
    while stack:
        node_hash, done = pop()
        if done is not None:
            yield done
            continue
        raw = get(prefix + node_hash)
        if raw is None:
            raise LookupError(f"IAVL node {node_hash.hex()} is missing")
        height, _, version, key_length = unpack(raw)
        body = head + key_length
        if height == 0:
            yield raw[head:body], raw[body:], version, 0
            continue
        push((None, (raw[head:body], None, version, height)))
        push((raw[body + 32:body + 64], None))
        push((raw[body:body + 32], None))


class TreeImportError(ValueError):
    """Export nodes that do not make a tree; nothing is kept of them."""


class Importer:
    """Rebuilds a tree from its export nodes: add() each in order, then root() checks it is whole. The node
    records go into `puts` under `prefix + hash`; no version above `max_version` is taken."""

    def __init__(self, prefix, puts, max_version):
        self.prefix = prefix
        self.puts = puts
        self.max_version = max_version
        self._stack = []
        self.count = 0

    def add(self, item: ExportNode):
        if not 0 <= item.height <= MAX_HEIGHT:
            raise TreeImportError(f"node height {item.height} out of range")
        if not 0 < item.version <= self.max_version:
            raise TreeImportError(f"node version {item.version} is not in 1..{self.max_version}")
        if item.height == 0:
            # Protobuf cannot tell an empty value from none; IAVL has no valueless leaves (as cosmos/iavl reads it).
            node = Node(item.key, item.value or b"")
        else:
            if len(self._stack) < 2:
                raise TreeImportError("an inner node without two children before it")
            right = self._stack.pop()
            left = self._stack.pop()
            if item.height != max(left.height, right.height) + 1:
                raise TreeImportError(f"inner node height {item.height} does not match its children's")
            if not left.key < item.key <= right.key:
                raise TreeImportError("inner node key out of order with its children")
            node = Node(item.key, height=item.height, size=left.size + right.size, left=left, right=right)
        record = node.seal(item.version, varint(item.version))
        self.puts[self.prefix + node.hash] = record
        self._stack.append(_Built(item.key, node.height, node.size, node.hash))
        self.count += 1

    def root(self):
        """The root hash (EMPTY_ROOT for no nodes); TreeImportError when the nodes were not one tree."""
        if not self._stack:
            return EMPTY_ROOT
        if len(self._stack) != 1:
            raise TreeImportError(f"the export ended with {len(self._stack)} subtrees, not one tree")
        return self._stack[0].hash


@attrs.define
class _Built:
    """What an inner node needs of a child already rebuilt (Node.seal reads .hash)."""

    key: bytes
    height: int
    size: int
    hash: bytes

