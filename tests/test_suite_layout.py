"""The suite's own layering: no test module (nor a bench) imports a test module, imports inside functions
counted; what tests share lives in support modules (helpers.py, *_driver.py, *_client.py) and conftest.py."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"

# An import statement at any depth (a function's too): `import a, b` or `from a import ...`. Read by lines, not
# parsed: a whole-suite AST walk costs the quick loop a second.
IMPORT = re.compile(r"^[ \t]*(?:import[ \t]+([\w., \t]+)|from[ \t]+(\w[\w.]*)[ \t]+import\b)", re.M)


def imported_modules(path):
    for names, module in IMPORT.findall(path.read_text()):
        if module:
            yield module
        else:
            yield from (name.split(" as ")[0].strip() for name in names.split(","))


def names_of_test_modules():
    return {path.stem for path in TESTS.rglob("test_*.py")}


def test_no_test_module_or_bench_imports_a_test_module():
    tests = names_of_test_modules()
    sources = [*TESTS.rglob("*.py"), *(ROOT / "bench").glob("*.py"), ROOT / "bench" / "soak"]
    found = sorted(f"{path.relative_to(ROOT)} imports {name}" for path in sources if path.is_file()
                   for name in imported_modules(path) if name.split(".")[0] in tests)
    assert found == [], "move what is shared to a support module (tests/helpers.py, tests/<topic>.py):\n" + \
        "\n".join(found)
