"""The suite's own layering: no test module (nor a bench) imports a test module, imports inside functions
counted; what tests share lives in support modules (helpers.py, *_driver.py, *_client.py) and conftest.py."""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"


def imported_modules(path):
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


def names_of_test_modules():
    return {path.stem for path in TESTS.rglob("test_*.py")}


def test_no_test_module_or_bench_imports_a_test_module():
    tests = names_of_test_modules()
    sources = [*TESTS.rglob("*.py"), *(ROOT / "bench").glob("*.py"), ROOT / "bench" / "soak"]
    found = sorted(f"{path.relative_to(ROOT)} imports {name}" for path in sources if path.is_file()
                   for name in imported_modules(path) if name.split(".")[0] in tests)
    assert found == [], "move what is shared to a support module (tests/helpers.py, tests/<topic>.py):\n" + \
        "\n".join(found)
