"""ibc-go's TransferAuthorization granted from the CLI (`tx authz grant GRANTEE transfer`) on a running node: the
grant as the chain keeps it and every face lists it, and one that ibc-go's ValidateBasic refuses."""

import pytest_twisted

from chaind.crypto.addresses import to_bech32
from cli_driver import FEE, committed, js, node_flag, ok, run, send_tx

TRANSFER_AUTHORIZATION = "/ibc.applications.transfer.v1.TransferAuthorization"
RECEIVER = "cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu"


@pytest_twisted.inlineCallbacks
def test_a_transfer_authorization_is_granted_from_the_cli(node, tmp_path):
    n = node_flag(node)
    keys = ("--home", tmp_path / "cli", "--keyring-backend", "test")
    ok((yield run("keys", "import-hex", "dev1", node.dev_keys[1].private_key.hex(), *keys)))
    prefix = node.genesis.bech32_prefix
    granter, grantee = (to_bech32(prefix, node.dev_keys[i].address) for i in (1, 2))
    found = yield send_tx(n, keys, "authz", "grant", grantee, "transfer", "--source-channel", "channel-0",
                          "--spend-limit", "100achain", "--allow-list", RECEIVER, "--allowed-packet-data", "*",
                          "--from", "dev1")
    assert any(e["type"] == "cosmos.authz.v1beta1.EventGrant" for e in found["events"])
    shown = js((yield run("q", "authz", "grants", granter, grantee, n, "-o", "json")))
    assert shown["grants"][0]["authorization"] == {
        "@type": TRANSFER_AUTHORIZATION,
        "allocations": [{"source_port": "transfer", "source_channel": "channel-0",
                         "spend_limit": [{"denom": "achain", "amount": "100"}], "allow_list": [RECEIVER],
                         "allowed_packet_data": ["*"]}]}

    sent = js((yield run("tx", "authz", "grant", grantee, "transfer", "--source-channel", "ch", "--spend-limit",
                         "1achain", "--from", "dev1", FEE, "--gas", "400000", "-y", "-o", "json", n, *keys)))
    refused = yield committed(n, sent["txhash"])
    assert (refused["codespace"], refused["code"]) == ("host", 2), refused["raw_log"]
    assert "invalid source channel ID: identifier ch has invalid length: 2, must be between 8-64 characters: " \
        "invalid identifier" in refused["raw_log"]
