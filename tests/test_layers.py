"""The house's layering, read from the source with ast: no face package is imported by the layers below the
faces, no service by the layers below the services, no import cycle exists inside chaind/, and no private
name is used outside its package.

Faces (rpc, cometbft, grpc, rest, cli) know wire formats; chain, store, events, tracing and api (the
services), and consensus, crypto, keyring and the ground modules, know none, so any import of a face from
them, at any depth, fails. Likewise the services (api/, and tracing's jobs and the pool they run on) are
imported by nothing below them: core and ground get what they need of a service handed in by the node.
Every import counts, at any depth: an import inside a function runs too, only later, so it makes a cycle
as surely as one at the top. A package is a directory: chain/modules/ is one today.
"""

import ast
import functools
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "chaind"
FACES = ("rpc", "cometbft", "grpc", "rest", "cli")
# The services and everything under them (consensus, keys and the ground modules too).
BELOW_FACES = ("chain", "store", "events", "tracing", "api", "consensus", "crypto", "keyring", "errors", "gocompat",
               "config")
# The services: api/, and tracing's jobs with the pool and processes that run them (its tracers and VM hooks are
# core).
SERVICES = ("chaind.api", "chaind.tracing.jobs", "chaind.tracing.pool", "chaind.tracing.processes",
            "chaind.tracing.worker")


def module_files():
    """{dotted name: path} of every module in chaind/ but the generated protobuf code."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[1:2] == ("pb",):
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULE_FILES = module_files()


def _resolve(name):
    """The module a dotted name loads: itself, or the nearest package holding it."""
    while name and name not in MODULE_FILES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module, node):
    """Dotted names imported by one Import/ImportFrom node of `module` (submodules when they exist)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = _from_base(module, node)
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULE_FILES else base for alias in node.names]


def _from_base(module, node):
    """The absolute module name a `from ... import` names, relative ones resolved."""
    base = node.module or ""
    if node.level:
        package = module if MODULE_FILES[module].name == "__init__.py" else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{base}" if base else package
    return base


def _walk(node):
    """Every import under `node`, at any depth (functions and class bodies included)."""
    return (child for child in ast.walk(node) if isinstance(child, (ast.Import, ast.ImportFrom)))


def import_edges(module):
    """{(imported chaind module, line)} of one module."""
    tree = ast.parse(MODULE_FILES[module].read_text(), str(MODULE_FILES[module]))
    edges = set()
    for node in _walk(tree):
        for name in _imports(module, node):
            target = _resolve(name) if name == "chaind" or name.startswith("chaind.") else None
            if target and target != module:
                edges.add((target, node.lineno))
    return edges


def _package_of(module):
    return module.split(".")[1] if module.count(".") else None


def face_imports_below_faces():
    """["chaind.x.y:line imports chaind.face..."] for every import of a face below the faces."""
    found = []
    for module in MODULE_FILES:
        if _package_of(module) not in BELOW_FACES:
            continue
        for target, line in sorted(import_edges(module)):
            if _package_of(target) in FACES:
                found.append(f"{module}:{line} imports {target}")
    return found


def _is_service(module):
    return any(module == s or module.startswith(s + ".") for s in SERVICES)


def service_imports_below_services():
    """["chaind.x.y:line imports chaind.api..."] for every import of a service by core or ground."""
    return [f"{module}:{line} imports {target}"
            for module in MODULE_FILES if _package_of(module) in BELOW_FACES and not _is_service(module)
            for target, line in sorted(import_edges(module)) if _is_service(target)]


@functools.cache
def import_cycles():
    """Every cycle of chaind's import graph (imports inside functions too), as a sorted tuple of its modules."""
    return cycles_of({m: sorted({t for t, _ in import_edges(m)}) for m in MODULE_FILES})


def cycles_of(graph):
    """The strongly connected components of more than one node (Tarjan), each a sorted tuple."""
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(start):
        # Iterative, so a deep import chain cannot reach Python's recursion limit.
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            module, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(graph[target])))
                elif target in on_stack:
                    low[module] = min(low[module], index[target])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
            if low[module] == index[module]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == module:
                        break
                if len(component) > 1:
                    cycles.append(tuple(sorted(component)))

    for module in graph:
        if module not in index:
            visit(module)
    return sorted(cycles)


def _package(module):
    path = MODULE_FILES.get(module)
    return module if path is not None and path.name == "__init__.py" else module.rpartition(".")[0]


def private_names_across_packages():
    """["chaind.x.y:line uses chaind.a.b._name"] for every module of chaind/."""
    return sorted(f for module, path in MODULE_FILES.items() for f in private_names_used(module, path.read_text()))


def private_names_used(module, source):
    """Private names of other packages' modules that `source` (module `module`) reaches, by
    `from m import _name` or through a module imported under a name (`m._name`)."""
    found = []
    tree = ast.parse(source)
    modules_by_name = {}
    for node in _walk(tree):
        if isinstance(node, ast.Import):
            modules_by_name.update({a.asname: a.name for a in node.names if a.asname and a.name in MODULE_FILES})
            continue
        base = _from_base(module, node)
        for alias in node.names:
            full = f"{base}.{alias.name}"
            if full in MODULE_FILES:
                modules_by_name[alias.asname or alias.name] = full
            elif _private(alias.name) and base in MODULE_FILES and _package(base) != _package(module):
                found.append(f"{module}:{node.lineno} uses {full}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and _private(node.attr):
            target = modules_by_name.get(node.value.id)
            if target and _package(target) != _package(module):
                found.append(f"{module}:{node.lineno} uses {target}.{node.attr}")
    return found


def _private(name):
    return name.startswith("_") and not name.startswith("__")


def test_the_graph_reads_the_source():
    """The graph holds what the source says: node.py imports faces, services and core alike."""
    assert {t for t, _ in import_edges("chaind.node")} >= {"chaind.rpc.http", "chaind.cometbft.routes",
                                                             "chaind.api.eth", "chaind.chain.app"}
    assert "chaind.errors" in {t for t, _ in import_edges("chaind.api.params")}
    # An import inside a function counts, for every rule.
    assert any(t == "chaind.tracing.js" for t, _ in import_edges("chaind.cli.attach"))


def test_services_are_told_apart():
    assert _is_service("chaind.api") and _is_service("chaind.api.cosmos.tx") and _is_service("chaind.tracing.jobs")
    assert not _is_service("chaind.tracing.traced_interpreter") and not _is_service("chaind.apis")


def test_private_names_are_found():
    source = ("from chaind.tracing.js.tracer import _Bridge, JsTracer\n"
              "from chaind.chain.modules import evm as e\n"
              "def f(c):\n    return e._vm_error(c), e.__name__\n")
    assert private_names_used("chaind.cli.probe", source) == [
        "chaind.cli.probe:1 uses chaind.tracing.js.tracer._Bridge",
        "chaind.cli.probe:4 uses chaind.chain.modules.evm._vm_error"]
    assert private_names_used("chaind.tracing.js.probe", source) == [
        "chaind.tracing.js.probe:4 uses chaind.chain.modules.evm._vm_error"]


def test_cycles_are_found():
    graph = {"a": ["b"], "b": ["c"], "c": ["a", "d"], "d": [], "e": ["d", "e"], "f": ["a"]}
    assert cycles_of(graph) == [("a", "b", "c")]


def test_no_face_is_imported_below_the_faces():
    assert face_imports_below_faces() == []


def test_no_service_is_imported_below_the_services():
    assert service_imports_below_services() == []


def test_no_import_cycles():
    assert import_cycles() == []


def test_no_private_name_crosses_packages():
    assert private_names_across_packages() == []
