"""A dev home's funded accounts are keys of the CLI's test keyring (dev0, dev1, ...), its default there, as Evmos'
local node scripts set theirs up: `chaind keys list` shows them and `--from dev1` signs."""

import json

import pytest_twisted

from chaind.crypto import addresses
from chaind.home import Home
from cli_driver import FEE, cli, node_flag, ok, run
from evm_client import OTHER


def test_keys_list_of_a_dev_home_shows_its_funded_accounts(tmp_path):
    ok(cli("init", "me", "--home", tmp_path / "home", "--dev"))
    listed = json.loads(ok(cli("keys", "list", "--home", tmp_path / "home", "-o", "json")).stdout)
    keys = Home(tmp_path / "home").dev_keys()
    assert [(k["name"], k["address"]) for k in listed] == \
        [(f"dev{i}", addresses.to_bech32("chain", key.address)) for i, key in enumerate(keys)]


@pytest_twisted.inlineCallbacks
def test_a_dev_key_signs_with_no_keyring_flag(node, tmp_path):
    other = addresses.to_bech32("chain", bytes.fromhex(OTHER[2:]))
    sent = ok((yield run("tx", "bank", "send", "dev1", other, "1achain", FEE, "-y", node_flag(node), "--home",
                         node.home.path)))
    assert "code: 0" in sent.stdout
