"""`--gas auto` at the default adjustment: every tx kind the CLI signs is committed with code 0, the fee
fields filled by --gas-prices from the estimate (the real `chaind` entry point against a real node)."""

import json

import pytest_twisted
from eth_utils import to_checksum_address

from chain_driver import contract_address
from cli_driver import CHAIN, VALOPER, committed, new_consensus_key, node_flag, ok, run
from contracts import token_init
from evm_client import send, w3
from helpers import in_thread

PRICES = "--gas-prices=2000000000000achain"


@pytest_twisted.inlineCallbacks
def auto(n, keys, *args):
    """A tx command with --gas auto (adjustment 1.0): its committed TxResponse, which must have code 0."""
    result = ok((yield run("tx", *args, "--gas", "auto", PRICES, "-y", "-o", "json", n, *keys)))
    estimated = int(result.stderr.split("estimated gas: ")[1].split()[0])
    found = yield committed(n, json.loads(result.stdout)["txhash"])
    assert found["code"] == 0, (args, found["raw_log"])
    assert int(found["gas_wanted"]) == estimated and int(found["gas_used"]) <= estimated
    fee = found["tx"]["auth_info"]["fee"]["amount"]
    assert fee == [{"denom": "achain", "amount": str(2000000000000 * estimated)}]
    return found


@pytest_twisted.inlineCallbacks
def test_every_tx_kind_with_gas_auto_and_the_default_adjustment(node, tmp_path):
    n = node_flag(node)
    web3 = w3(node)
    token = to_checksum_address(contract_address(node.dev_keys[1].address, 0))
    receipt = yield in_thread(send, web3, {"data": token_init(10**24), "nonce": 0, "gas": 400000},
                              node.dev_keys[1].private_key)
    assert receipt.status == 1
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    for i in (0, 1):
        ok((yield run("keys", "import-hex", f"dev{i}", node.dev_keys[i].private_key.hex(), *keys)))
    a = json.loads(ok((yield run("keys", "add", "a", *keys, "-o", "json"))).stdout)["address"]
    val1 = json.loads(ok((yield run("keys", "show", "dev1", "--bech", "val", *keys, "-o", "json"))).stdout)["address"]

    yield auto(n, keys, "bank", "send", "dev0", a, "5achain")
    b = json.loads(ok((yield run("keys", "add", "b", *keys, "-o", "json"))).stdout)["address"]
    yield auto(n, keys, "bank", "multi-send", "dev1", a, b, "3achain")
    yield auto(n, keys, "staking", "create-validator", "--from", "dev1", "--pubkey", new_consensus_key(),
               "--amount", f"{2 * CHAIN}achain", "--moniker", "one")
    yield auto(n, keys, "staking", "edit-validator", "--from", "dev1", "--new-moniker", "uno")
    yield auto(n, keys, "staking", "delegate", VALOPER, f"{CHAIN}achain", "--from", "dev1")
    yield auto(n, keys, "staking", "redelegate", VALOPER, val1, f"{CHAIN // 2}achain", "--from", "dev1")
    yield auto(n, keys, "staking", "unbond", val1, f"{CHAIN // 4}achain", "--from", "dev1")
    yield auto(n, keys, "erc20", "register-erc20", token, "--from", "dev0")
    yield auto(n, keys, "erc20", "convert-erc20", token, "5000", "--from", "dev1")
    yield auto(n, keys, "erc20", "convert-coin", f"2000erc20/{token}", "0x" + "77" * 20, "--from", "dev1")
    yield auto(n, keys, "erc20", "toggle-conversion", token, "--from", "dev0")
