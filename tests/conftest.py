"""Fixtures: a real node on 127.0.0.1 (port 0) with a temp home and real LevelDB; the cosmpy venv, the npm
clients (@cosmjs, @confio/ics23, @confio/relayer).

Helpers that tests import live in helpers.py: a conftest is not a module to import from."""

import os
import shutil
import tempfile

import pytest
import pytest_twisted

from anvil_process import anvil_binary, running_anvil
from browser_driver import CHROMEDRIVER, CHROMIUM, FLAGS, Service, webdriver
from chain_driver import Chain
from chaind.chain import registry
from cosmjs_driver import RELAYER_PACKAGE, install, install_path
from helpers import (
    build_cosmpy_venv,
    cosmpy_venv_path,
    ics23_client_path,
    install_ics23_client,
    install_test_engine,
    make_node,
    until_height,
)


@pytest.fixture
def chain(request, tmp_path):
    """A chain driven block by block without a node, closed after the test: made by the test module's
    `make_chain(tmp_path)` when it has one (gov_driver's, staking_driver's, its own), else chain_driver's Chain."""
    make = getattr(request.module, "make_chain", None)
    made = make(tmp_path) if make is not None else Chain(tmp_path, "chain.db")
    yield made
    made.close()


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
    # nodes in their own body run in the reactor's greenlet, where they yield until_height themselves.)
    pytest_twisted.blockon(until_height(node, node.app.genesis.initial_height))
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


def _needed(message):
    # CI must install what it needs: a missing tool there is a failure, never a quiet skip.
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def cometbft_binary():
    """The real `cometbft` (v0.38, pinned in tools/install-test-engines), built once with the Go toolchain."""
    path, error = install_test_engine("cometbft")
    if error:
        _needed(f"cannot have the cometbft binary: {error}")
    return path


@pytest.fixture(scope="session")
def geth_binary():
    """The real `geth` (pinned in tools/install-test-engines), built once with the Go toolchain."""
    path, error = install_test_engine("geth")
    if error:
        _needed(f"cannot have the geth binary: {error}")
    return path


@pytest.fixture(scope="session")
def simd_binary():
    """ibc-go v8's test chain `simd` (pinned in tools/install-test-engines), built once with the Go toolchain."""
    path, error = install_test_engine("simd")
    if error:
        _needed(f"cannot have the simd binary: {error}")
    return path


@pytest.fixture
def anvil():
    """The address of a running Anvil 1.7.1 (npm, installed once outside the repo)."""
    binary, problem = anvil_binary()
    if problem:
        _needed(problem)
    with running_anvil(binary) as address:
        yield address


@pytest.fixture
def explorer(node_factory):
    """A node serving the explorer on a free port, its first block made."""
    node = node_factory(explorer={"enable": True, "address": "127.0.0.1:0"})
    pytest_twisted.blockon(until_height(node, node.app.genesis.initial_height))
    return node


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


@pytest.fixture(scope="session")
def cosmjs():
    """(node executable, node_modules directory) with @cosmjs/tendermint-rpc installed."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        message = "node and npm are needed to run @cosmjs/tendermint-rpc; install Node.js to run this test"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    path = install_path(node)
    error = install(path, npm)
    if error:
        message = f"cannot install @cosmjs/tendermint-rpc at {path}: {error}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return node, path / "node_modules"


@pytest.fixture(scope="session")
def relayer():
    """(node executable, node_modules directory) with @confio/relayer installed: its `ibc-setup` in .bin."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        _needed("node and npm are needed to run @confio/relayer; install Node.js to run this test")
    path = install_path(node, RELAYER_PACKAGE, "relayer")
    error = install(path, npm, RELAYER_PACKAGE)
    if error:
        _needed(f"cannot install @confio/relayer at {path}: {error}")
    return node, path / "node_modules"


@pytest.fixture
def browser(tmp_path):
    """Headless Chromium (browser_driver's flags) with a fresh profile; its screenshots go to the test's temp dir."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="chaind-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.shots = tmp_path / "screenshots"
    driver.shots.mkdir()
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def transfer_pair(tmp_path):
    """Two chains driven block by block, connected, with a `transfer` channel open between them (channel-0)."""
    from ibc_channel_msgs import connected_pair
    from ibc_transfer_msgs import open_transfer_channel

    made = connected_pair(tmp_path)
    open_transfer_channel(made)
    yield made
    made.close()
