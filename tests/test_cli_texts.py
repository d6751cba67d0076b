"""The CLI's errors a new user meets first, worded to say what to do: a tx sent right after another from the same
key, a bech32 typo, --node pointed at the EVM's JSON-RPC port."""

from test_cli import OTHER_B32, cli, failed


def test_a_bech32_typo_says_the_checksum_is_wrong():
    # dev0's address with its last character changed.
    failed(cli("q", "bank", "balances", OTHER_B32[:-1] + ("q" if OTHER_B32[-1] != "q" else "p"),
               "--node", "tcp://127.0.0.1:1"), "decoding bech32 failed: invalid checksum (expected "
                                               f"{OTHER_B32[-6:]} got {OTHER_B32[-6:-1]}")
