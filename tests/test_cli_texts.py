"""The CLI's errors a new user meets first, worded to say what to do: a tx sent right after another from the same
key, a bech32 typo, --node pointed at the EVM's JSON-RPC port."""

import json

import pytest_twisted

from chaind.crypto import addresses
from cli_driver import FEE, cli, committed, failed, node_flag, ok, run
from evm_client import DEV0_KEY, OTHER
from helpers import until_height

OTHER_B32 = addresses.to_bech32("chain", bytes.fromhex(OTHER[2:]))


@pytest_twisted.inlineCallbacks
def test_a_tx_signed_with_a_sequence_taken_says_to_wait_or_give_the_next(node_factory, tmp_path):
    node = node_factory(chain={"block_interval": 3.0, "empty_blocks": True})
    yield until_height(node, node.genesis.initial_height)
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    ok((yield run("keys", "import-hex", "dev0", DEV0_KEY, *keys)))
    def send(amount, *more):
        return run("tx", "bank", "send", "dev0", OTHER_B32, amount, FEE, "-y", node_flag(node), *keys, *more)

    first = ok((yield send("1achain", "-o", "json")))
    # Before its block: the CLI signs with the sequence of the last block, which the pending tx holds.
    failed((yield send("2achain")), "replacement transaction underpriced: insufficient fee; an earlier tx of this "
                                    "account with the same sequence waits for its block: wait for it, or give "
                                    "--sequence with the next number (a higher fee replaces that tx)")
    yield committed(node_flag(node), json.loads(first.stdout)["txhash"])
    # After it, a sequence given by hand that is behind.
    result = failed((yield send("2achain", "--sequence", "0")),
                    "account sequence mismatch, expected 1, got 0: incorrect account sequence; an earlier tx of this "
                    "account took sequence 0: give --sequence 1")
    # The hint is the CLI's: the node's answer (raw_log, printed as the SDK prints it) is the SDK's.
    assert "raw_log: 'account sequence mismatch, expected 1, got 0: incorrect account sequence'" in result.stdout
    ok((yield send("2achain", "--sequence", "1")))


def test_a_bech32_typo_says_the_checksum_is_wrong():
    # dev0's address with its last character changed.
    failed(cli("q", "bank", "balances", OTHER_B32[:-1] + ("q" if OTHER_B32[-1] != "q" else "p"),
               "--node", "tcp://127.0.0.1:1"), "decoding bech32 failed: invalid checksum (expected "
                                               f"{OTHER_B32[-6:]} got {OTHER_B32[-6:-1]}")


@pytest_twisted.inlineCallbacks
def test_node_pointed_at_the_json_rpc_port_says_which_port_it_reached(node):
    port = node.port_of("json-rpc")
    failed((yield run("q", "bank", "balances", OTHER_B32, "--node", f"tcp://127.0.0.1:{port}")),
           f"--node tcp://127.0.0.1:{port} reached port {port}, an Ethereum JSON-RPC (abci_query: the method "
           f"abci_query does not exist/is not available); give the node's CometBFT RPC, tcp://localhost:26657 by "
           f"default")
