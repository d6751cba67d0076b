"""`chaind testnet --starting-port`: each home's chaind.toml is the documented one with its ports (no pointer into
a source tree a pip install lacks), and its node's banner names the CometBFT RPC that home was given."""

import io

import pytest_twisted
from click.testing import CliRunner
from twisted.internet import reactor

from chaind import config
from chaind.cli.main import main
from chaind.home import Home
from chaind.node import Node
from chaind.resources import etc_file


def _homes(tmp_path, starting_port):
    out = tmp_path / "net"
    result = CliRunner().invoke(main, ["testnet", "--validators", "2", "--output", str(out),
                                       "--starting-port", str(starting_port)])
    assert result.exit_code == 0, result.output
    return [out / "node0", out / "node1"]


def test_each_home_holds_the_documented_settings_with_its_ports(tmp_path):
    homes = _homes(tmp_path, 31000)
    documented = etc_file("chaind.toml").read_text()
    for i, home in enumerate(homes):
        text = (home / "config" / "chaind.toml").read_text()
        assert "etc/chaind.toml" not in text
        # Every comment of the documented file is there, and only the node's own keys differ.
        assert [line for line in text.splitlines() if line.startswith("#")] == \
            [line for line in documented.splitlines() if line.startswith("#")]
        settings = config.load(text=text)
        base = 31000 + 10 * i
        assert settings.node.moniker == f"node{i}" and settings.abci.mode == "socket"
        assert (settings.abci.address, settings.abci.cometbft_rpc) == (f"127.0.0.1:{base + 2}", f"127.0.0.1:{base + 1}")
        assert (settings.json_rpc.address, settings.json_rpc.ws_address) == \
            (f"127.0.0.1:{base + 3}", f"127.0.0.1:{base + 4}")
        assert (settings.grpc.address, settings.rest.address) == (f"127.0.0.1:{base + 5}", f"127.0.0.1:{base + 6}")
        assert settings.evolve(node={"moniker": ""}, abci={"mode": "builtin", "address": "127.0.0.1:26658",
                                                           "cometbft_rpc": "127.0.0.1:26657"},
                               json_rpc={"address": "127.0.0.1:8545", "ws_address": "127.0.0.1:8546"},
                               grpc={"address": "127.0.0.1:9090"}, rest={"address": "127.0.0.1:9091"}) == \
            config.load(text=documented)


@pytest_twisted.inlineCallbacks
def test_the_socket_mode_banner_names_the_cometbft_rpc_of_the_home(tmp_path):
    homes = _homes(tmp_path, 32000)
    settings = config.load(homes[0] / "config" / "chaind.toml").evolve(
        abci={"address": "127.0.0.1:0"}, json_rpc={"address": "127.0.0.1:0", "ws_address": "127.0.0.1:0"},
        grpc={"address": "127.0.0.1:0"}, rest={"address": "127.0.0.1:0"})
    out = io.StringIO()
    node = Node(Home(homes[0]), settings, reactor=reactor, out=out)
    node.startService()
    try:
        banner = out.getvalue()
    finally:
        yield node.stopService()
    consensus = next(line for line in banner.splitlines() if line.startswith("consensus: "))
    assert "26657" not in consensus, consensus
    assert "its RPC (127.0.0.1:32001, [abci] cometbft-rpc) serves blocks and takes the txs sent here" in consensus
