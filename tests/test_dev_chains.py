"""`chaind init --dev --dev-chain N`: the Nth dev chain beside the first on one machine, for IBC between them: its
own chain id and EIP-155 id, its own ports, and a plain secp256k1 relayer account funded from the dev mnemonic."""

import json
import re

from chaind.config import load
from chaind.home import Home
from cli_driver import cli, failed, ok

# What @cosmjs' DirectSecp256k1HdWallet (and so @confio/relayer) derives from the dev mnemonic with prefix
# "chain" at its default path m/44'/118'/0'/0/0; the relayer signed its txs as this address in test_ibc_relayer.
RELAYER = "chain15yk64u7zc9g9k2yr2wmzeva5qgwxps6ynsmyjt"
ADDRESSES = ("json_rpc.address", "json_rpc.ws_address", "cometbft_rpc.address", "grpc.address", "rest.address",
             "explorer.address", "instrumentation.prometheus_listen_addr", "abci.address", "abci.cometbft_rpc")


def _port(settings, dotted):
    section, name = dotted.split(".")
    return int(getattr(getattr(settings, section), name).rsplit(":", 1)[1])


def _balances(home):
    doc = json.loads(home.genesis_file.read_text())
    return doc, {b["address"]: b["coins"] for b in doc["app_state"]["bank"]["balances"]}


def test_the_second_dev_chain_has_its_own_id_ports_and_a_funded_relayer(tmp_path):
    ok(cli("init", "first", "--home", tmp_path / "first", "--dev"))
    made = ok(cli("init", "second", "--home", tmp_path / "second", "--dev", "--dev-chain", "2"))
    assert RELAYER in made.output and "ports + 100" in made.output
    first, second = Home(tmp_path / "first"), Home(tmp_path / "second")
    doc, balances = _balances(second)
    assert doc["chain_id"] == "chain_9001-2"
    _, first_balances = _balances(first)
    assert balances[RELAYER] == next(iter(first_balances.values()))
    assert RELAYER not in first_balances            # a dev home made without --dev-chain is as before
    assert set(balances) - {RELAYER} == set(first_balances)
    ones, twos = load(first.config_file), load(second.config_file)
    for dotted in ADDRESSES:
        assert _port(twos, dotted) == _port(ones, dotted) + 100, dotted
    client = (second.config_dir / "client.toml").read_text()
    assert 'chain-id = "chain_9001-2"' in client and 'node = "tcp://127.0.0.1:26757"' in client
    # The genesis is one a node takes: the SDK's validate passes.
    validated = ok(cli("genesis", "validate", "--home", tmp_path / "second"))
    assert validated.output.startswith("File at ")


def test_dev_chain_one_is_the_default_dev_chain_with_the_relayer(tmp_path):
    ok(cli("init", "first", "--home", tmp_path / "one", "--dev", "--dev-chain", "1"))
    home = Home(tmp_path / "one")
    doc, balances = _balances(home)
    assert doc["chain_id"] == "chain_9000-1" and RELAYER in balances
    assert _port(load(home.config_file), "cometbft_rpc.address") == 26657
    # A chain id given keeps its own name; the ports still move.
    ok(cli("init", "third", "--home", tmp_path / "three", "--dev", "--dev-chain", "3", "--chain-id", "other_7-3"))
    three = Home(tmp_path / "three")
    assert _balances(three)[0]["chain_id"] == "other_7-3"
    assert _port(load(three.config_file), "grpc.address") == 9290


def test_bad_dev_chain_numbers_are_refused_before_anything_is_written(tmp_path):
    failed(cli("init", "x", "--home", tmp_path / "a", "--dev-chain", "2"), "--dev-chain makes a dev chain: give --dev")
    failed(cli("init", "x", "--home", tmp_path / "b", "--dev", "--dev-chain", "0"), "between 1 and 99, not 0")
    failed(cli("init", "x", "--home", tmp_path / "c", "--dev", "--dev-chain", "100"), "between 1 and 99, not 100")
    failed(cli("init", "x", "--home", tmp_path / "d", "--dev", "--dev-chain", "two"), "is not a valid integer")
    assert not any(re.match(r"[abcd]$", p.name) for p in tmp_path.iterdir())
