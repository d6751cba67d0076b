"""Every file other than Python under chaind/ is package data in setup.py, so a non-editable `pip install .`
carries it (the explorer's page, the JS tracers' prelude): a file left out works from a checkout and is missing
from an install."""

import pathlib
import runpy
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent


def shipped(package_data, path):
    """Whether `path` (relative to the repo) is one of the files `package_data`'s globs find in its package."""
    for package, patterns in package_data.items():
        base = ROOT / pathlib.Path(*package.split("."))
        if any(ROOT / path in base.glob(pattern) for pattern in patterns):
            return True
    return False


def data_files():
    """The tracked files under chaind/ that are not Python."""
    listed = subprocess.run(["git", "ls-files", "chaind"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [pathlib.Path(line) for line in listed.stdout.splitlines() if not line.endswith(".py")]


def test_every_file_other_than_python_is_package_data():
    package_data = runpy.run_path(str(ROOT / "setup.py"), run_name="chaind_setup")["PACKAGE_DATA"]
    files = data_files()
    assert pathlib.Path("chaind/tracing/js/prelude.js") in files
    assert [str(path) for path in files if not shipped(package_data, path)] == []


def test_a_file_outside_the_globs_is_found():
    package_data = {"chaind.explorer": ["static/*"], "chaind.tracing": ["prelude.js"]}
    assert shipped(package_data, pathlib.Path("chaind/explorer/static/app.js"))
    assert not shipped(package_data, pathlib.Path("chaind/tracing/js/prelude.js"))
    assert not shipped({"chaind.explorer": ["static/*.css"]}, pathlib.Path("chaind/explorer/static/app.js"))
