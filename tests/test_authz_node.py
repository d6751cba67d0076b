"""x/authz on a running node through the CLI, gRPC, REST and abci_query: a send grant used through `tx authz
exec` with a file `--generate-only` wrote, refused beyond its limit, listed by every query, then revoked."""

import base64

import pytest_twisted

from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.authz.v1beta1 import query_pb2, query_pb2_grpc
from cli_driver import FEE, committed, js, node_flag, ok, run, send_tx, staking_node
from helpers import call, comet, in_thread, rest

SEND = "/cosmos.bank.v1beta1.MsgSend"
TARGET = "chain1wamhwamhwamhwamhwamhwamhwamhwamhewut2x"


@pytest_twisted.inlineCallbacks
def test_a_grantee_spends_its_grant_through_the_cli_and_every_face_lists_it(node_factory, tmp_path):
    node = staking_node(node_factory)
    n = node_flag(node)
    keys = ("--home", tmp_path / "cli", "--keyring-backend", "test")
    for i in (1, 2):
        ok((yield run("keys", "import-hex", f"dev{i}", node.dev_keys[i].private_key.hex(), *keys)))
    prefix = node.genesis.bech32_prefix
    granter, grantee = (to_bech32(prefix, node.dev_keys[i].address) for i in (1, 2))
    found = yield send_tx(n, keys, "authz", "grant", grantee, "send", "--spend-limit", "100achain", "--from", "dev1")
    assert any(e["type"] == "cosmos.authz.v1beta1.EventGrant" for e in found["events"])

    shown = js((yield run("q", "authz", "grants", granter, grantee, n, "-o", "json")))
    assert shown["grants"][0]["authorization"] == {"@type": "/cosmos.bank.v1beta1.SendAuthorization",
                                                   "spend_limit": [{"denom": "achain", "amount": "100"}],
                                                   "allow_list": []}
    by_granter = js((yield run("q", "authz", "grants-by-granter", granter, n, "-o", "json")))
    assert [(g["granter"], g["grantee"]) for g in by_granter["grants"]] == [(granter, grantee)]
    by_grantee = js((yield run("q", "authz", "grants-by-grantee", grantee, n, "-o", "json")))
    assert by_grantee["grants"][0]["authorization"]["@type"] == "/cosmos.bank.v1beta1.SendAuthorization"
    reply, _ = yield call(node, query_pb2_grpc.QueryStub, "Grants",
                          query_pb2.QueryGrantsRequest(granter=granter, grantee=grantee, msg_type_url=SEND))
    assert reply.grants[0].authorization.type_url == "/cosmos.bank.v1beta1.SendAuthorization"
    status, _, body = yield rest(node, f"/cosmos/authz/v1beta1/grants/granter/{granter}")
    assert status == 200 and body["grants"][0]["grantee"] == grantee, body
    status, _, body = yield rest(node, f"/cosmos/authz/v1beta1/grants?granter={granter}&grantee={grantee}")
    assert status == 200 and body["grants"][0]["authorization"]["spend_limit"] == [{"denom": "achain",
                                                                                    "amount": "100"}]
    request = query_pb2.QueryGranteeGrantsRequest(grantee=grantee).SerializeToString()
    answer = yield in_thread(comet, node, "abci_query", path="/cosmos.authz.v1beta1.Query/GranteeGrants",
                             data=request.hex())
    grants = query_pb2.QueryGranteeGrantsResponse.FromString(base64.b64decode(answer["result"]["response"]["value"]))
    assert grants.grants[0].granter == granter

    # The granter's send, written by --generate-only, run by the grantee within the limit.
    def spend(amount):
        return run("tx", "bank", "send", granter, TARGET, f"{amount}achain", "--generate-only", n, *keys)

    tx_file = tmp_path / "send.json"
    tx_file.write_text(ok((yield spend(60))).stdout)
    yield send_tx(n, keys, "authz", "exec", tx_file, "--from", "dev2")
    balance = js((yield run("q", "bank", "balance", TARGET, "achain", n, "-o", "json")))
    assert balance["balance"]["amount"] == "60"
    left = js((yield run("q", "authz", "grants", granter, grantee, SEND, n, "-o", "json")))
    assert left["grants"][0]["authorization"]["spend_limit"] == [{"denom": "achain", "amount": "40"}]

    # Beyond what is left: refused, nothing changes.
    tx_file.write_text(ok((yield spend(41))).stdout)
    sent = js((yield run("tx", "authz", "exec", tx_file, "--from", "dev2", FEE, "--gas", "400000", "-y",
                         "-o", "json", n, *keys)))
    result = yield committed(n, sent["txhash"])
    assert result["code"] == 5 and "requested amount is more than spend limit" in result["raw_log"]
    balance = js((yield run("q", "bank", "balance", TARGET, "achain", n, "-o", "json")))
    assert balance["balance"]["amount"] == "60"

    yield send_tx(n, keys, "authz", "revoke", grantee, SEND, "--from", "dev1")
    assert js((yield run("q", "authz", "grants-by-granter", granter, n, "-o", "json")))["grants"] == []

    # `chaind replay` runs the chain again from genesis: grants, execs (the refused one too) and the revoke.
    yield node.stopService()
    done = yield run("replay", "--home", tmp_path / "home")
    assert "every block hash and app hash matches" in ok(done).stdout


@pytest_twisted.inlineCallbacks
def test_grant_builds_stake_and_generic_authorizations(node, tmp_path):
    n = node_flag(node)
    keys = ("--home", tmp_path / "cli", "--keyring-backend", "test")
    granter = to_bech32(node.genesis.bech32_prefix, node.dev_keys[1].address)
    grantee = to_bech32(node.genesis.bech32_prefix, node.dev_keys[2].address)
    valoper = to_bech32(node.genesis.bech32_prefix + "valoper", node.dev_keys[0].address)

    def generated(*args):
        return run("tx", "authz", "grant", grantee, *args, "--from", granter, "--generate-only", n, *keys)

    tx = js((yield generated("delegate", "--allowed-validators", valoper, "--spend-limit", "10achain",
                             "--expiration", "2000000000")))
    grant = tx["body"]["messages"][0]["grant"]
    assert grant == {"authorization": {"@type": "/cosmos.staking.v1beta1.StakeAuthorization",
                                       "max_tokens": {"denom": "achain", "amount": "10"},
                                       "allow_list": {"address": [valoper]},
                                       "authorization_type": "AUTHORIZATION_TYPE_DELEGATE"},
                     "expiration": "2033-05-18T03:33:20Z"}
    tx = js((yield generated("generic", "--msg-type", "/cosmos.gov.v1.MsgVote")))
    assert tx["body"]["messages"][0]["grant"]["authorization"] == {
        "@type": "/cosmos.authz.v1beta1.GenericAuthorization", "msg": "/cosmos.gov.v1.MsgVote"}
    refused = yield generated("unbond")
    assert refused.exit_code != 0 and "both allowed & deny list cannot be empty" in refused.stderr
