"""The CLI's errors a new user meets first, worded to say what to do: a tx sent right after another from the same
key, a bech32 typo, --node pointed at the EVM's JSON-RPC port."""

import pytest_twisted

from test_cli import OTHER_B32, cli, failed, run


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
