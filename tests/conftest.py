"""Fixtures: a real node on 127.0.0.1 (port 0) with a temp home and real LevelDB; the cosmpy venv.

Helpers that tests import live in helpers.py: a conftest is not a module to import from."""

import os
import shutil

import pytest
import pytest_twisted
from twisted.internet import reactor, task

from chaind.chain import registry
from helpers import build_cosmpy_venv, cosmpy_venv_path, ics23_client_path, install_ics23_client, make_node


@pytest.fixture
def node_factory(tmp_path):
    started = []

    def start(home="home", modules=registry.MODULES, **sections):
        node = make_node(tmp_path / home, modules, **sections)
        node.startService()
        started.append(node)
        return node

    yield start
    for node in started:
        if node.running:
            pytest_twisted.blockon(node.stopService())


@pytest.fixture
def node(node_factory):
    node = node_factory()
    # A new chain makes block 1 at start; tests begin once "latest" names it. (Tests that start
    # nodes in their own body run in the reactor's greenlet, where this wait is not possible.)
    for _ in range(500):
        if node.app.height >= node.app.genesis.initial_height:
            break
        pytest_twisted.blockon(task.deferLater(reactor, 0.01, lambda: None))
    return node


@pytest.fixture(scope="session")
def cosmpy_python():
    """The python of a venv holding cosmpy (PyPI), built once: cosmpy pins a protobuf our generated code refuses."""
    python, error = build_cosmpy_venv(cosmpy_venv_path())
    if error:
        message = f"cannot build the cosmpy venv at {cosmpy_venv_path()}: {error}"
        # CI must install what it needs: a missing cosmpy there is a failure, never a quiet skip.
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return python


@pytest.fixture(scope="session")
def ics23_client():
    """The folder where tests/ics23_client's scripts run with @confio/ics23 and @cosmjs installed (npm, once)."""
    if not shutil.which("node") or not shutil.which("npm"):
        pytest.skip("node and npm are needed to run @cosmjs/stargate and @confio/ics23")
    path = ics23_client_path()
    error = install_ics23_client(path)
    if error:
        pytest.fail(f"cannot install tests/ics23_client at {path}: {error}")
    return path
