"""Fixtures: a real node on 127.0.0.1 (port 0) with a temp home and real LevelDB."""

import io

import pytest
import pytest_twisted
from twisted.internet import reactor, task, threads

from chaind import config
from chaind.home import DEV_API, Home
from chaind.node import Node


def make_node(home_path, **sections):
    home = Home(home_path)
    if not home.exists():
        home.init("test", dev=True)
    base = {"chain": {"block_interval": 0.0, "empty_blocks": False},
            # The tests' chain is a dev chain: it serves what a dev home's config enables.
            "json_rpc": {"address": "127.0.0.1:0", "ws_address": "127.0.0.1:0", "api": DEV_API},
            "cometbft_rpc": {"address": "127.0.0.1:0"}, "grpc": {"address": "127.0.0.1:0"},
            "rest": {"address": "127.0.0.1:0"}}
    for name, values in sections.items():
        base.setdefault(name, {}).update(values)
    settings = config.Settings().evolve(**base)
    return Node(home, settings, reactor=reactor, out=io.StringIO())


@pytest.fixture
def node_factory(tmp_path):
    started = []

    def start(home="home", **sections):
        node = make_node(tmp_path / home, **sections)
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


def url(node):
    return f"http://127.0.0.1:{node.port_of('json-rpc')}"


def ws_url(node):
    return f"ws://127.0.0.1:{node.port_of('websocket')}"


def in_thread(fn, *args):
    """Run a blocking client call (web3.py) off the reactor, as a real client process would."""
    return threads.deferToThread(fn, *args)


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", help="also run the tests marked slow (many node processes)")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: runs many node processes; only with --slow")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
