"""Every top-level package that chaind/ imports is declared in pyproject.toml's dependencies.

Import names map to distributions through importlib.metadata.packages_distributions() (eth_hash is eth-hash,
google is protobuf, zope is zope.interface), so a package that only arrives as another one's dependency fails.
"""

import ast
import importlib.metadata
import pathlib
import re
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCES = ("chaind", "twisted/plugins")
GENERATED = ROOT / "chaind" / "pb"


def normalized(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def declared():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return {normalized(re.match(r"[A-Za-z0-9._-]+", requirement).group(0)) for requirement in project["dependencies"]}


def imported(root):
    """{top-level package: first file importing it} over root's Python files (generated code left out)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        if GENERATED in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.split(".")[0], path.relative_to(ROOT))
    return found


def undeclared(imports, dependencies, distributions):
    """The imports no declared distribution provides, with the distributions that do."""
    missing = {}
    for name, where in sorted(imports.items()):
        if name in sys.stdlib_module_names or name == "chaind":
            continue
        providers = {normalized(d) for d in distributions.get(name, ())} - {"chaind"}
        if not providers & dependencies:
            missing[name] = (str(where), sorted(providers) or "not installed")
    return missing


def test_every_imported_package_is_declared():
    imports = {}
    for source in SOURCES:
        for name, where in imported(ROOT / source).items():
            imports.setdefault(name, where)
    assert imports.keys() >= {"twisted", "grpc", "eth_hash", "google"}     # the walk does see the imports
    assert undeclared(imports, declared(), importlib.metadata.packages_distributions()) == {}


def test_an_undeclared_import_is_named():
    distributions = {"werkzeug": ["Werkzeug"], "twisted": ["Twisted"]}
    imports = {"werkzeug": "chaind/rest/gateway.py", "twisted": "chaind/node.py", "json": "chaind/x.py"}
    assert undeclared(imports, {"twisted"}, distributions) == {"werkzeug": ("chaind/rest/gateway.py", ["werkzeug"])}
    assert undeclared({"nothere": "chaind/y.py"}, {"twisted"}, distributions) == {"nothere": ("chaind/y.py",
                                                                                              "not installed")}
