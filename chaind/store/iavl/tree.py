"""The IAVL tree of one store: changes applied as cosmos/iavl v1's MutableTree does, reads at a version.

Set, Remove and the AVL rotations follow iavl's mutable_tree.go step for step, since the root hash
depends on the tree's shape and on each node's version: a node copied on the way down to a change
takes the new version, as iavl's clone does. A saved node replaced by a change is an orphan of the
new version: it stays readable by older versions until pruning drops them.
"""

import collections
import threading

from chaind.store.iavl.node import EMPTY_ROOT, Node, from_record, varint


class NodeCache:
    """Decoded saved nodes by hash, shared by every store, the writer and readers; bounded in count.

    Saved nodes never change, so an entry never goes stale; when full, the oldest goes, one per node
    added (a batch eviction stalled the commit that triggered it). A commit drops the nodes it orphaned,
    which only reads of older versions reach, so the head's trees are what the cache holds and the oldest
    of them are not pushed out by the dead ones. Two stores may hold a node of the same hash only with the
    same content (key, value, version, children).
    """

    def __init__(self, capacity):
        self.capacity = capacity
        self._nodes = collections.OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        return self._nodes.get(key)

    def put_all(self, found):
        """put() of each (hash, node) of `found` in order, evicting once at the end (a commit's new nodes)."""
        nodes = self._nodes
        nodes.update(found)
        if len(nodes) > self.capacity:
            with self._lock:
                popitem = nodes.popitem
                for _ in range(len(nodes) - self.capacity):
                    popitem(last=False)

    def put(self, key, node):
        nodes = self._nodes
        nodes[key] = node
        if len(nodes) > self.capacity:
            with self._lock:
                while len(nodes) > self.capacity:
                    nodes.popitem(last=False)

    def discard(self, hashes):
        nodes = self._nodes
        with self._lock:
            for key in hashes:
                nodes.pop(key, None)


class NodeStore:
    """The saved nodes of one store: LevelDB keys `prefix + hash`, read through the cache."""

    def __init__(self, db, prefix, cache):
        self._db = db
        self.prefix = prefix
        self._cache = cache

    def load(self, node_hash):
        node = self._cache.get(node_hash)
        if node is None:
            raw = self._db.get(self.prefix + node_hash)
            if raw is None:
                raise LookupError(f"IAVL node {node_hash.hex()} is missing")
            node = from_record(node_hash, raw)
            self._cache.put(node_hash, node)
        return node

    @property
    def cache(self):
        return self._cache


def left_of(nodes, node):
    return node.left if node.left is not None else nodes.load(node.left_hash)


def right_of(nodes, node):
    return node.right if node.right is not None else nodes.load(node.right_hash)


class MutableTree:
    """The working tree of the block being committed, on top of the saved root `root` (None: empty)."""

    def __init__(self, nodes, root):
        self.nodes = nodes
        self.root = root
        self.orphans = []           # hashes of saved nodes this version replaced
        # The inner nodes from the root to the last set's leaf, each (node, least key of its range, key its range
        # ends before or None): a block's keys come sorted, so the next set starts where its key's range is.
        self._path = []

    # -- changes, as iavl's MutableTree ----------------------------------------------------------

    def set(self, key, value):  # noqa: C901 (one AVL insertion, iterative, as the Go IAVL's)
        """iavl's recursiveSet, as a loop: copy the path down to the leaf, then fix heights and balance on
        the way up, as far as a height changes: above that iavl's recalculation changes nothing (an AVL insert
        that leaves a subtree's height alone, or that a rotation brought back to it, leaves its ancestors
        balanced). Sizes are summed when the tree is saved."""
        node = self.root
        if node is None:
            self.root = Node(key, value)
            return
        path = self._path
        while path:
            _, low, high = path[-1]
            if low <= key and (high is None or key < high):
                break
            path.pop()
        if path:
            node, low, high = path[-1]
        elif node.height:
            if node.version is not None:
                node = self.root = self._clone(node)
            low, high = b"", None
            path.append((node, low, high))
        while node.height:
            # A node the working tree owns holds both children (the clone of a saved one loaded them); a saved
            # inner child is copied and linked in on the way down.
            went_left = key < node.key
            child = node.left if went_left else node.right
            if not child.height:
                break
            if child.version is not None:
                child = self._clone(child)
                if went_left:
                    node.left = child
                else:
                    node.right = child
            if went_left:
                high = node.key
            else:
                low = node.key
            path.append((child, low, high))
            node = child
        leaf = node if not node.height else child
        if key < leaf.key:
            child = Node(leaf.key, height=1, size=2, left=Node(key, value), right=leaf)
        elif key > leaf.key:
            child = Node(key, height=1, size=2, left=leaf, right=Node(key, value))
        else:
            self._orphan(leaf)
            child = Node(key, value)
            if not path:
                self.root = child
                return
            parent = path[-1][0]
            if key < parent.key:
                parent.left = child
            else:
                parent.right = child
            return
        for depth in range(len(path) - 1, -1, -1):
            node = path[depth][0]
            if key < node.key:
                node.left = child
            else:
                node.right = child
            left_height, right_height = node.left.height, node.right.height
            if not -1 <= left_height - right_height <= 1:
                child = self._balance(node)
                # The rotated subtree's nodes are not the path's any more.
                del path[depth:]
                if depth:
                    parent = path[-1][0]
                    if key < parent.key:
                        parent.left = child
                    else:
                        parent.right = child
                else:
                    self.root = child
                return
            height = (left_height if left_height > right_height else right_height) + 1
            if height == node.height:
                return
            node.height = height
            child = node
        self.root = child

    def remove(self, key):
        """Remove `key`; False (and no change at all) when it is absent."""
        if self.root is None or get(self.nodes, self.root, key) is None:
            return False
        self._path = []
        self.root, _ = self._remove(self.root, key)
        return True

    def _remove(self, node, key):
        """(the node replacing `node`, the new least key of its subtree when that changed); key is present."""
        if node.height == 0:
            self._orphan(node)
            return None, None
        node = self._clone(node)
        if key < node.key:
            left, new_key = self._remove(left_of(self.nodes, node), key)
            if left is None:
                return right_of(self.nodes, node), node.key
            node.left = left
            self._measure(node)
            return self._balance(node), new_key
        right, new_key = self._remove(right_of(self.nodes, node), key)
        if right is None:
            return left_of(self.nodes, node), None
        node.right = right
        if new_key is not None:
            node.key = new_key
        self._measure(node)
        return self._balance(node), None

    def _clone(self, node):
        """A node the working tree may change: a saved one is copied (and orphaned); a new one is itself."""
        if node.version is None:
            return node
        self.orphans.append(node.hash)
        return Node(node.key, height=node.height, size=node.size, left=left_of(self.nodes, node),
                    right=right_of(self.nodes, node))

    def _orphan(self, node):
        if node.version is not None:
            self.orphans.append(node.hash)

    # The working tree owns the nodes below (a clone or a new node): both children are objects.

    @staticmethod
    def _measure(node):
        left, right = node.left, node.right
        node.height = (left.height if left.height > right.height else right.height) + 1
        node.size = left.size + right.size

    def _balance(self, node):
        left, right = node.left, node.right
        balance = left.height - right.height
        if balance > 1:
            if _balance_of(self.nodes, left) >= 0:
                return self._rotate_right(node)
            node.left = self._rotate_left(left)
            return self._rotate_right(node)
        if balance < -1:
            if _balance_of(self.nodes, right) <= 0:
                return self._rotate_left(node)
            node.right = self._rotate_right(right)
            return self._rotate_left(node)
        return node

    def _rotate_right(self, node):
        if node.version is not None:
            node = self._clone(node)
        top = node.left
        if top.version is not None:
            top = self._clone(top)
        node.left = top.right
        top.right = node
        self._measure(node)
        self._measure(top)
        return top

    def _rotate_left(self, node):
        if node.version is not None:
            node = self._clone(node)
        top = node.right
        if top.version is not None:
            top = self._clone(top)
        node.right = top.left
        top.left = node
        self._measure(node)
        self._measure(top)
        return top

    # -- saving ----------------------------------------------------------------------------------

    def save(self, version, puts):
        """Seal the new nodes at `version`, add their records to `puts`; the root hash."""
        if self.root is None:
            return EMPTY_ROOT
        self._path = []
        if self.root.version is None:
            saved = []
            self._save(self.root, version, varint(version), self.nodes.prefix, puts, saved.append)
            self.nodes.cache.put_all(saved)
        return self.root.hash

    def _save(self, node, version, version_varint, prefix, puts, remember):
        """Seal `node` (being built) after its children being built, post-order as iavl assigns node keys."""
        if node.height:
            left, right = node.left, node.right
            if left.version is None:
                self._save(left, version, version_varint, prefix, puts, remember)
            if right.version is None:
                self._save(right, version, version_varint, prefix, puts, remember)
            # set() leaves sizes to this pass (children first, so both are final).
            node.size = left.size + right.size
        record = node.seal(version, version_varint)
        node_hash = node.hash
        puts[prefix + node_hash] = record
        remember((node_hash, node))


def _balance_of(nodes, node):
    return left_of(nodes, node).height - right_of(nodes, node).height


# -- reads of a saved tree -------------------------------------------------------------------------

def get(nodes, root, key):
    """The value under `key` in the tree `root`, or None."""
    node = root
    while node.height:
        node = left_of(nodes, node) if key < node.key else right_of(nodes, node)
    return node.value if node.key == key else None


def get_with_index(nodes, root, key):
    """(index, value): the key's position among the tree's keys (or where it would go), its value or None."""
    node, index = root, 0
    while node.height:
        if key < node.key:
            node = left_of(nodes, node)
        else:
            left = left_of(nodes, node)
            index += left.size
            node = right_of(nodes, node)
    if node.key == key:
        return index, node.value
    return (index, None) if key < node.key else (index + 1, None)


def get_by_index(nodes, root, index):
    """The key at position `index`, or None past the end."""
    if index >= root.size:
        return None
    node = root
    while node.height:
        left = left_of(nodes, node)
        if index < left.size:
            node = left
        else:
            index -= left.size
            node = right_of(nodes, node)
    return node.key


def path_to_leaf(nodes, root, key):
    """(inner steps from the root down, the leaf reached): each step (height, size, version, left hash
    or None, right hash or None), the side not taken named by its hash, as iavl's PathToLeaf."""
    steps, node = [], root
    while node.height:
        if key < node.key:
            steps.append((node.height, node.size, node.version, None, node.right_hash))
            node = left_of(nodes, node)
        else:
            steps.append((node.height, node.size, node.version, node.left_hash, None))
            node = right_of(nodes, node)
    return steps, node


def iterate(nodes, root, start, stop):
    """Yield (key, value) with start <= key < stop (stop None: to the end), in key order."""
    if root is None:
        return
    pending = [root]
    while pending:
        node = pending.pop()
        if node.height == 0:
            if node.key >= start and (stop is None or node.key < stop):
                yield node.key, node.value
            continue
        # node.key is the least key on the right: the right side may hold keys below stop, the left
        # side keys at or above start.
        if stop is None or node.key < stop:
            pending.append(right_of(nodes, node))
        if start < node.key:
            pending.append(left_of(nodes, node))
