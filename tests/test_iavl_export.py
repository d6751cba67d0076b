"""IAVL trees as cosmos/iavl's export nodes (post-order) and back: the rebuilt root is the exported one, and a
changed or missing node does not make the same tree."""

import attrs
import pytest

from chaind.store import keys
from chaind.store.db import Database
from chaind.store.iavl.export import Importer, TreeImportError, export_nodes
from chaind.store.iavl.node import EMPTY_ROOT
from chaind.store.multistore import MultiStore


@pytest.fixture
def exported(tmp_path):
    db = Database(tmp_path / "db")
    stores = MultiStore(db, 1000, 1000)
    info, puts = None, {}
    for version in (1, 2, 3):
        puts = {}
        new = range((version - 1) * 40, version * 40)
        changes = {keys.compose("bank", f"k{i:03}".encode()): f"v{i}".encode() for i in new}
        if version == 3:
            changes[keys.compose("bank", b"k005")] = None
        info = stores.apply(version, info, changes, EMPTY_ROOT, puts)
        db.write(puts)
    root = info.root_of("bank")
    yield list(export_nodes(db, stores.nodes("bank").prefix, root)), root
    db.close()


def _import(nodes, max_version=3):
    importer = Importer(b"p", {}, max_version)
    for node in nodes:
        importer.add(node)
    return importer.root()


def test_export_then_import_gives_the_same_root(exported):
    nodes, root = exported
    assert nodes[-1].height == max(n.height for n in nodes)     # post-order: the root comes last
    assert {n.version for n in nodes} == {1, 2, 3}
    assert _import(nodes) == root
    assert _import([]) == EMPTY_ROOT


def test_a_changed_or_missing_node_is_not_the_tree(exported):
    nodes, root = exported
    leaf = next(i for i, n in enumerate(nodes) if n.height == 0)
    changed = list(nodes)
    changed[leaf] = attrs.evolve(nodes[leaf], value=b"forged")
    assert _import(changed) != root
    with pytest.raises(TreeImportError):
        _import(nodes[:leaf] + nodes[leaf + 1:])
    with pytest.raises(TreeImportError, match="version"):
        _import(nodes, max_version=2)
