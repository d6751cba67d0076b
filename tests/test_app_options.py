"""App's settings are given once, when it is built (chain/options.py): frozen, read only on the App, and nothing in
the node, the benches or the tests writes an App's attributes from outside."""

import ast
import pathlib
import re

import attrs
import pytest

from chain_driver import Chain
from chaind.chain.options import AppOptions

ROOT = pathlib.Path(__file__).resolve().parent.parent
_APP = re.compile(r"(^|\.)app(\.options)?$")


def test_options_are_frozen_and_read_only_on_the_app(tmp_path):
    chain = Chain(tmp_path, "db", pruning=7, check_invariants_every=3, upgrade_handlers={"v2": print})
    try:
        options = chain.app.options
        assert (options.pruning, options.check_invariants_every, dict(options.upgrade_handlers)) == \
            (7, 3, {"v2": print})
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            options.pruning = 0
        with pytest.raises(TypeError):
            options.upgrade_handlers["v3"] = print
        with pytest.raises(AttributeError):
            setattr(chain.app, "options", AppOptions())  # noqa: B010 (not an assignment, which the check below refuses)
    finally:
        chain.close()


def _app_attribute_writes(path):
    """Where the file assigns to an attribute of an App (or of its options) held as `app`, `self.app`, `chain.app`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        else:
            continue
        for target in targets:
            for item in target.elts if isinstance(target, ast.Tuple) else [target]:
                if isinstance(item, ast.Attribute) and _APP.search(ast.unparse(item.value)):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(item)} = ...")
    return found


def test_nothing_writes_an_apps_attributes_from_outside():
    files = [p for folder in ("chaind", "bench", "tests") for p in sorted((ROOT / folder).rglob("*.py"))
             if "pb" not in p.relative_to(ROOT).parts]
    assert [write for path in files for write in _app_attribute_writes(path)] == []
