"""`chaind testnet`: the homes agree with each other (one genesis; its validators are the homes' keys,
in CometBFT's list and in staking's; ports distinct; peers and proxy_app point where they should), and a
node of it accepts CometBFT's InitChain for that genesis."""

import base64
import hashlib
import io
import json
import re
import tomllib

import pytest_twisted
from click.testing import CliRunner
from twisted.internet import reactor

from abci_driver import Driver, Replica
from chaind import config
from chaind.chain.genesis import Genesis
from chaind.cli.main import main
from chaind.home import Home
from chaind.keyring import Keyring
from chaind.node import Node
from chaind.pb.tendermint.abci import types_pb2 as pb
from helpers import in_thread


def _write(tmp_path, count=4):
    out = tmp_path / "net"
    result = CliRunner().invoke(main, ["testnet", "--validators", str(count), "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert f"cometbft node --home {out / 'node0'}" in result.output
    return out, [out / f"node{i}" for i in range(count)]


def test_testnet_homes_are_consistent(tmp_path):
    out, homes = _write(tmp_path)
    texts = {(h / "config" / "genesis.json").read_text() for h in homes}
    assert len(texts) == 1
    doc = json.loads(texts.pop())
    genesis = Genesis.from_document(doc)
    keys = [json.loads((h / "config" / "priv_validator_key.json").read_text()) for h in homes]
    pubkeys = [base64.b64decode(k["pub_key"]["value"]) for k in keys]
    assert len(set(pubkeys)) == 4
    for key, pubkey in zip(keys, pubkeys, strict=True):
        assert key["address"] == hashlib.sha256(pubkey).digest()[:20].hex().upper()
        assert base64.b64decode(key["priv_key"]["value"])[32:] == pubkey
    # CometBFT's validators and staking's are the homes' keys, with the same power.
    assert [(v["address"], base64.b64decode(v["pub_key"]["value"]), int(v["power"])) for v in doc["validators"]] == \
        [(k["address"], p, v.power) for k, p, v in zip(keys, pubkeys, genesis.validators, strict=True)]
    assert [v.consensus_pubkey for v in genesis.validators] == pubkeys
    # Each operator is its home's keyring key, funded at genesis.
    operators = [Keyring(h, "test").get("validator").address for h in homes]
    assert [v.operator for v in genesis.validators] == operators
    assert {address for address, _ in genesis.balances} == set(operators)
    ports, node_ids = [], []
    for home in homes:
        node_key = json.loads((home / "config" / "node_key.json").read_text())
        node_ids.append(hashlib.sha256(base64.b64decode(node_key["priv_key"]["value"])[32:]).digest()[:20].hex())
    for i, home in enumerate(homes):
        comet = tomllib.loads((home / "config" / "config.toml").read_text())
        settings = config.load(home / "config" / "chaind.toml")
        assert settings.abci.mode == "socket"
        assert comet["proxy_app"] == f"tcp://{settings.abci.address}"
        assert comet["rpc"]["laddr"] == f"tcp://{settings.abci.cometbft_rpc}"
        peers = comet["p2p"]["persistent_peers"].split(",")
        assert sorted(peers) == sorted(
            f"{node_ids[j]}@{tomllib.loads((other / 'config' / 'config.toml').read_text())['p2p']['laddr'][6:]}"
            for j, other in enumerate(homes) if j != i)
        ports += [int(re.search(r":(\d+)$", a).group(1)) for a in (
            comet["rpc"]["laddr"], comet["p2p"]["laddr"], settings.abci.address, settings.json_rpc.address,
            settings.json_rpc.ws_address, settings.grpc.address, settings.rest.address)]
    assert len(ports) == len(set(ports)) == 28
    assert "cometbft node --home" in (out / "README.txt").read_text()


def test_testnet_refuses_to_overwrite(tmp_path):
    _write(tmp_path, 1)
    result = CliRunner().invoke(main, ["testnet", "--validators", "1", "--output", str(tmp_path / "net")])
    assert result.exit_code != 0 and "already exists" in result.output


def _init_chain_as_cometbft(port, doc):
    driver = Driver(doc)
    replica = Replica(port)
    try:
        request = driver.init_chain_request()
        # CometBFT sends its genesis.json's validators.
        for v in doc["validators"]:
            request.validators.append(pb.ValidatorUpdate(power=int(v["power"])))
            request.validators[-1].pub_key.ed25519 = base64.b64decode(v["pub_key"]["value"])
        return replica.consensus.call("init_chain", request)
    finally:
        replica.close()


@pytest_twisted.inlineCallbacks
def test_a_testnet_node_accepts_cometbfts_init_chain(tmp_path):
    _, homes = _write(tmp_path)
    # The home's own settings (socket mode), on free ports.
    settings = config.load(homes[2] / "config" / "chaind.toml").evolve(
        abci={"address": "127.0.0.1:0"}, json_rpc={"address": "127.0.0.1:0", "ws_address": "127.0.0.1:0"},
        grpc={"address": "127.0.0.1:0"}, rest={"address": "127.0.0.1:0"})
    node = Node(Home(homes[2]), settings, reactor=reactor, out=io.StringIO())
    node.startService()
    try:
        doc = json.loads((homes[2] / "config" / "genesis.json").read_text())
        answer = yield in_thread(_init_chain_as_cometbft, node.port_of("abci"), doc)
        assert sorted(v.pub_key.ed25519 for v in answer.validators) == \
            sorted(base64.b64decode(v["pub_key"]["value"]) for v in doc["validators"])
        assert answer.app_hash == node.app.head[1].app_hash
    finally:
        yield node.stopService()
