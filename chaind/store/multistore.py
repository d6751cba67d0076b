"""The multistore: an IAVL tree per native module store, and the EVM state root, under one app hash.

The app hash after block H is the SDK's CommitInfo.Hash() at version H: the simple Merkle tree
(CometBFT's HashFromByteSlices) over the stores sorted by name, each leaf the KVPair bytes of the
name and SHA-256 of the store's root. The `evm` entry is the EVM state root (its own proofs are
Merkle-Patricia, served by eth_getProof). Block H's native changes, and for the first block the
genesis state with them (the SDK commits InitChain's writes with the first block), are applied to
the trees in key order, as the SDK's cache store writes them, at version H.
"""

import contextlib
import gc
import itertools
import struct

import attrs

from chaind.store import keys
from chaind.store.iavl import proofs
from chaind.store.iavl import tree as trees
from chaind.store.iavl.node import EMPTY_ROOT, from_record
from chaind.store.layout import Layout

EVM = "evm"
_ENTRY = struct.Struct(">B")


@attrs.frozen
class CommitInfo:
    """The store roots after one version: ((name, root hash), ...) sorted by name."""

    version: int
    roots: tuple

    def leaves(self):
        return [proofs.store_leaf(name, root) for name, root in self.roots]

    def hash(self):
        return proofs.simple_root_of_leaves([proofs.store_leaf_hash(name, root) for name, root in self.roots])

    def root_of(self, name):
        for found, root in self.roots:
            if found == name:
                return root
        return None

    def proof(self, name):
        """The ics23:simple CommitmentProof of store `name`'s root in this commit info."""
        index = [found for found, _ in self.roots].index(name)
        return proofs.simple_proof(self.leaves(), index, name, self.roots[index][1])

    def record(self):
        return b"".join(_ENTRY.pack(len(name)) + name.encode() + root for name, root in self.roots)


def commit_info_of(version, raw):
    roots, pos = [], 0
    while pos < len(raw):
        length = raw[pos]
        name = raw[pos + 1:pos + 1 + length].decode()
        pos += 1 + length
        roots.append((name, raw[pos:pos + 32]))
        pos += 32
    return CommitInfo(version, tuple(roots))


class MultiStore:
    """The IAVL stores on one LevelDB; the writer thread applies blocks, any thread reads versions.

    `layout` (store/layout.py's Layout) places native keys in the stores; `mounted` names the stores every version
    has, empty or not (as the SDK mounts its module stores), the EVM root's among them; a module whose store is
    not listed gets it from the version of its first write on. Both come from the modules the app runs."""

    def __init__(self, db, cache_nodes, subspace_max_keys, layout=None, mounted=()):
        self._db = db
        self.layout = layout if layout is not None else Layout()
        self.mounted = tuple(sorted({EVM, *mounted}))
        self.subspace_max_keys = subspace_max_keys
        self._cache = trees.NodeCache(cache_nodes)
        self._stores = {}

    def nodes(self, name):
        found = self._stores.get(name)
        if found is None:
            found = self._stores[name] = trees.NodeStore(self._db, keys.IAVL_NODE + keys.compose(name), self._cache)
        return found

    def commit_info(self, version):
        """The CommitInfo saved for `version`, or None (before the first block, or pruned)."""
        raw = self._db.get(keys.COMMIT_INFO + keys.height_bytes(version))
        return None if raw is None else commit_info_of(version, raw)

    def apply(self, version, parent, changes, evm_root, puts, direct=()):
        """The CommitInfo of `version`: `parent`'s (None: empty stores) with `changes` (native key ->
        value, None for a deletion, placed by the layout) and `direct` ((store, key, value or
        None) entries the app writes in the SDK's form) applied; the new nodes, orphans and the commit info go
        into `puts`. `parent` may be `version` itself: a dev node amends its head's state in place
        (chain/devstate.py)."""
        by_store = self.layout.place(changes)
        for name, key, value in direct:
            by_store.setdefault(name, []).append((key, value))
        roots = dict(parent.roots) if parent is not None else {}
        for name in self.mounted:
            roots.setdefault(name, EMPTY_ROOT)
        version_bytes = keys.height_bytes(version)
        # The cyclic collector would walk the node cache again and again while a large block's nodes are
        # made (none of them is in a cycle): it doubled the time of a commit of 10,000 keys.
        with _collector_paused():
            for name, entries in by_store.items():
                roots[name] = self._apply_store(name, roots.get(name, EMPTY_ROOT), sorted(entries), version, puts,
                                                amending=parent is not None and parent.version == version)
        roots[EVM] = evm_root
        info = CommitInfo(version, tuple(sorted(roots.items())))
        puts[keys.COMMIT_INFO + version_bytes] = info.record()
        return info

    def carry(self, version, parent, puts, record=None):
        """The CommitInfo of a `version` that changed nothing (a dev node's mined run): `parent`'s roots,
        so its hash too. `record`: parent.record(), when the caller writes many such versions."""
        puts[keys.COMMIT_INFO + keys.height_bytes(version)] = record or parent.record()
        return CommitInfo(version, parent.roots)

    def _apply_store(self, name, root, entries, version, puts, amending):
        nodes = self.nodes(name)
        tree = trees.MutableTree(nodes, None if root == EMPTY_ROOT else nodes.load(root))
        for key, value in entries:
            if value is None:
                tree.remove(key)
            else:
                tree.set(key, value)
        new_root = tree.save(version, puts)
        orphans = tree.orphans
        orphan_key = keys.IAVL_ORPHAN + keys.height_bytes(version) + keys.compose(name)
        if amending:
            # The version's earlier orphans stay listed, but a node of this version that was replaced
            # and is made again here (same content, same hash) is live again.
            listed = self._db.get(orphan_key) or b""
            orphans = [listed[at:at + 32] for at in range(0, len(listed), 32)] + orphans
            orphans = [h for h in orphans if nodes.prefix + h not in puts]
            if listed or orphans:
                puts[orphan_key] = b"".join(orphans)
        elif orphans:
            puts[orphan_key] = b"".join(orphans)
        nodes.cache.discard(orphans)
        return new_root

    def tree_nodes(self, info, name):
        """(hash, record) of every node of store `name`'s tree at `info`'s version (a dev state dump)."""
        nodes = self.nodes(name)
        root = info.root_of(name)
        stack = [] if root in (None, EMPTY_ROOT) else [root]
        while stack:
            node_hash = stack.pop()
            raw = self._db.get(nodes.prefix + node_hash)
            if raw is None:
                raise LookupError(f"IAVL node {node_hash.hex()} of store {name} is missing")
            node = from_record(node_hash, raw)
            if node.height:
                stack += (node.left_hash, node.right_hash)
            yield node_hash, raw

    def version_node_keys(self, info, name):
        """The keys of the nodes store `name`'s tree at `info`'s version made (those of that version: a subtree
        of an older version is shared, and holds none), which a rollback of the version deletes."""
        nodes = self.nodes(name)
        root = info.root_of(name)
        stack = [] if root in (None, EMPTY_ROOT) else [root]
        while stack:
            key = nodes.prefix + stack.pop()
            raw = self._db.get(key)
            if raw is None:
                continue
            node = from_record(key[len(nodes.prefix):], raw)
            if node.version != info.version:
                continue
            yield key
            if node.height:
                stack += (node.left_hash, node.right_hash)

    def install(self, version, roots, nodes, puts):
        """The CommitInfo of `version` made of `roots` ({name: root hash}, the EVM root among them) whose
        trees are `nodes` ({name: {hash: record}}), as a dev node loads a dumped state over its head; the
        records and the commit info go into `puts`. The head's replaced nodes are left behind."""
        roots = dict(roots)
        for name in self.mounted:
            roots.setdefault(name, EMPTY_ROOT)
        for name, records in nodes.items():
            prefix = self.nodes(name).prefix
            for node_hash, record in records.items():
                puts[prefix + node_hash] = record
        info = CommitInfo(version, tuple(sorted(roots.items())))
        puts[keys.COMMIT_INFO + keys.height_bytes(version)] = info.record()
        return info

    def tree_root(self, info, name):
        """(NodeStore, root node or None when empty) of store `name` at `info`'s version."""
        nodes = self.nodes(name)
        root = info.root_of(name)
        return nodes, (None if root == EMPTY_ROOT else nodes.load(root))

    def prune(self, horizon):
        """Keys to delete so that versions below `horizon` are gone: their commit infos, and the nodes
        orphaned at or below it (no version from the horizon on reaches them) with their orphan entries."""
        deletes = list(self._db.keys_between(keys.COMMIT_INFO, keys.COMMIT_INFO + keys.height_bytes(horizon)))
        cut = len(keys.IAVL_ORPHAN) + 8
        with self._db.cursor(keys.IAVL_ORPHAN, keys.IAVL_ORPHAN + keys.height_bytes(horizon + 1)) as orphans:
            for key, hashes in orphans:
                deletes.append(key)
                node_prefix = keys.IAVL_NODE + key[cut:]
                deletes += [node_prefix + hashes[at:at + 32] for at in range(0, len(hashes), 32)]
        return deletes

    def read(self, info, name, key, prove):
        """(value or None, proof ops) of `key` in IAVL store `name` at `info`'s version. Each proof op is
        (type, key, CommitmentProof bytes): ics23:iavl (the key in the store), ics23:simple (the store in
        the app hash). Raises KeyError for an empty store asked for a proof: no proof of absence exists."""
        nodes, root = self.tree_root(info, name)
        if not prove:
            return (None if root is None else trees.get(nodes, root, key)), ()
        if root is None:
            raise KeyError(f"store {name} is empty at height {info.version}: there is no tree to prove against")
        value, proof = proofs.iavl_proof(nodes, root, key)
        return value, ((proofs.IAVL_OP, key, proof.SerializeToString()),
                       (proofs.SIMPLE_OP, name.encode(), info.proof(name).SerializeToString()))

    def entries(self, info, name, prefix):
        """(key, value) of IAVL store `name` under `prefix` at `info`'s version, in key order, however many (an
        export's walk)."""
        nodes, root = self.tree_root(info, name)
        return trees.iterate(nodes, root, prefix, _prefix_end(prefix))

    def subspace(self, info, name, prefix):
        """[(key, value)] of IAVL store `name` under `prefix` at `info`'s version, in key order; OverflowError
        when there are more than subspace_max_keys."""
        limit = self.subspace_max_keys
        nodes, root = self.tree_root(info, name)
        found = list(itertools.islice(trees.iterate(nodes, root, prefix, _prefix_end(prefix)), limit + 1))
        if len(found) > limit:
            raise OverflowError(f"more than {limit} keys under prefix 0x{prefix.hex()} of store {name}")
        return found


@contextlib.contextmanager
def _collector_paused():
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _prefix_end(prefix):
    stripped = prefix.rstrip(b"\xff")
    return None if not stripped else stripped[:-1] + bytes([stripped[-1] + 1])
