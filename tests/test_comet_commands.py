"""The SDK's operator commands on a node's home: `chaind comet show-node-id|show-validator|show-address|version|
unsafe-reset-all` (aliases cometbft, tendermint) and `chaind status`, checked against what the node itself serves
and against CometBFT's derivations (an ed25519 key's address: the first 20 bytes of its SHA-256)."""

import base64
import hashlib
import json

import pytest_twisted
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from chain_driver import Chain
from chaind.crypto.addresses import to_bech32
from chaind.home import Home
from cli_driver import cli, failed, node_flag, ok, run
from helpers import comet, in_thread


@pytest_twisted.inlineCallbacks
def test_the_comet_commands_name_the_key_the_node_serves(node):
    home = node.home.path
    status = (yield in_thread(comet, node, "status"))["result"]
    validator = status["validator_info"]
    node_id = ok((yield run("comet", "show-node-id", "--home", home))).stdout
    assert node_id == status["node_info"]["id"] + "\n"
    shown = json.loads(ok((yield run("cometbft", "show-validator", "--home", home))).stdout)
    assert shown == {"@type": "/cosmos.crypto.ed25519.PubKey", "key": validator["pub_key"]["value"]}
    address = ok((yield run("tendermint", "show-address", "--home", home))).stdout.strip()
    assert address == to_bech32("chainvalcons", bytes.fromhex(validator["address"]))
    # `chaind status` prints the node's /status, JSON by default, YAML with -o text.
    printed = json.loads(ok((yield run("status", node_flag(node)))).stdout)
    assert printed["node_info"] == status["node_info"] and printed["validator_info"] == validator
    text = ok((yield run("status", "-o", "text", node_flag(node)))).stdout
    assert text.startswith("node_info:\n") and f"network: {node.genesis.chain_id}" in text
    failed((yield run("status", "--node", "tcp://127.0.0.1:1")), "could not reach node")


def test_show_node_id_reads_node_key_json_as_cometbft_does(tmp_path):
    home = Home(tmp_path / "home").init("test")
    private = ed25519.Ed25519PrivateKey.generate()
    seed = private.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                 serialization.NoEncryption())
    public = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    (home.config_dir / "node_key.json").write_text(json.dumps(
        {"priv_key": {"type": "tendermint/PrivKeyEd25519", "value": base64.b64encode(seed + public).decode()}}))
    assert ok(cli("comet", "show-node-id", "--home", home.path)).stdout == \
        hashlib.sha256(public).digest()[:20].hex() + "\n"
    (home.config_dir / "node_key.json").write_text("{}")
    failed(cli("comet", "show-node-id", "--home", home.path), "not a CometBFT key file")
    failed(cli("comet", "show-validator", "--home", tmp_path / "none"), "no validator key at")


def test_comet_version_prints_the_sdks_yaml():
    assert ok(cli("comet", "version")).stdout == "ABCI: 2.0.0\nBlockProtocol: 11\nCometBFT: 0.38.12\nP2PProtocol: 8\n"


def test_unsafe_reset_all_empties_data_and_resets_the_validator_state(tmp_path):
    chain = Chain(tmp_path, "home/data/chain.db")
    home = chain.home
    state = home.data_dir / "priv_validator_state.json"
    state.write_text(json.dumps({"height": "12", "round": 0, "step": 3}))
    (home.config_dir / "addrbook.json").write_text("{}")
    failed(cli("comet", "unsafe-reset-all", "--home", home.path), "is the node still running?")
    assert (home.data_dir / "chain.db").exists()
    chain.close()
    out = ok(cli("comet", "unsafe-reset-all", "--keep-addr-book", "--home", home.path)).stdout
    assert f"Removed all blockchain history dir={home.data_dir}\n" in out
    assert sorted(p.name for p in home.data_dir.iterdir()) == ["priv_validator_state.json"]
    assert json.loads(state.read_text()) == {"height": "0", "round": 0, "step": 0}
    assert (home.config_dir / "addrbook.json").exists() and home.genesis_file.exists()
    ok(cli("comet", "unsafe-reset-all", "--home", home.path))
    assert not (home.config_dir / "addrbook.json").exists()
    # The chain starts again from its genesis.
    chain.open()
    try:
        assert chain.app.height == 0
    finally:
        chain.close()
