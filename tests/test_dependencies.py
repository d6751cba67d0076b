"""Every top-level package that chaind/ imports is declared in pyproject.toml's dependencies; constraints.txt pins
each within its bounds; protobuf's bound admits only runtimes the generated chaind/pb/ imports with.

Import names map to distributions through importlib.metadata.packages_distributions() (eth_hash is eth-hash,
google is protobuf, zope is zope.interface), so a package that only arrives as another one's dependency fails.
"""

import ast
import importlib.metadata
import pathlib
import re
import sys
import tomllib

from packaging.requirements import Requirement
from packaging.version import Version

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


def requirements():
    """pyproject.toml's dependencies and test extra, as packaging Requirements."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [Requirement(text) for text in [*project["dependencies"], *project["optional-dependencies"]["test"]]]


def pins():
    """{normalized name: pinned version} of constraints.txt."""
    found = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            found[normalized(name)] = version
    return found


def test_the_constraints_pin_every_requirement_within_its_bounds():
    pinned = pins()
    for requirement in requirements():
        name = normalized(requirement.name)
        assert name in pinned, f"constraints.txt does not pin {name}: refresh it (CONTRIBUTING.rst, Set up)"
        assert requirement.specifier.contains(pinned[name], prereleases=True), \
            f"constraints.txt pins {name}=={pinned[name]}, outside pyproject.toml's {requirement}: refresh it"


def generated_protobuf_floor():
    """The oldest protobuf runtime chaind/pb/ imports with: the version its generated modules check for."""
    check = re.compile(r"ValidateProtobufRuntimeVersion\(\s*_runtime_version\.Domain\.PUBLIC,"
                       r"\s*(\d+),\s*(\d+),\s*(\d+),")
    found = {tuple(map(int, match.groups())) for path in GENERATED.rglob("*_pb2.py")
             for match in check.finditer(path.read_text())}
    assert found, "no generated module checks the protobuf runtime: has grpcio-tools changed what it writes?"
    return Version(".".join(map(str, max(found))))


def test_the_protobuf_bound_admits_only_runtimes_the_generated_code_imports_with():
    floor = generated_protobuf_floor()
    (protobuf,) = [r for r in requirements() if r.name == "protobuf"]
    bounds = {spec.operator: Version(spec.version) for spec in protobuf.specifier}
    assert bounds.get(">=") == floor, f"pyproject.toml says {protobuf}; the generated code needs protobuf>={floor}"
    assert bounds.get("<") == Version(f"{floor.major + 1}"), "a new protobuf major is not promised to load it"
