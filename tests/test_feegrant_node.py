"""Fee grants, fee payers, several signers and multisign-batch on a running node: through the `chaind` CLI,
gRPC (BroadcastTx, the feegrant queries), REST and abci_query."""

import base64
import json

import pytest_twisted

from chaind.crypto.addresses import parse, to_bech32
from chaind.crypto.keys import AccountKey
from chaind.keyring import Keyring
from chaind.pb.cosmos.feegrant.v1beta1 import query_pb2 as fq
from chaind.pb.cosmos.feegrant.v1beta1 import query_pb2_grpc as fq_grpc
from chaind.pb.cosmos.feegrant.v1beta1 import tx_pb2 as feegrant_tx
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_service
from chaind.pb.cosmos.tx.v1beta1 import service_pb2_grpc as tx_grpc
from cli_driver import FEE, committed, failed, js, node_flag, ok, run, send_tx
from helpers import call, comet, in_thread, rest
from native_txs import build_native

CHAIN = 10**18
FEE_AMOUNT = 200000000000000000      # test_cli's FEE


def attribute(found, kind, key):
    return [a["value"] for e in found["events"] if e["type"] == kind for a in e["attributes"] if a["key"] == key]


@pytest_twisted.inlineCallbacks
def balance(n, address):
    shown = js((yield run("q", "bank", "balances", address, n, "-o", "json")))["balances"]
    return sum(int(c["amount"]) for c in shown if c["denom"] == "achain")


@pytest_twisted.inlineCallbacks
def test_an_account_with_no_balance_pays_fees_through_its_granter(node, tmp_path):
    n = node_flag(node)
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    ok((yield run("keys", "import-hex", "dev0", node.dev_keys[0].private_key.hex(), *keys)))
    granter = js((yield run("keys", "show", "dev0", *keys, "-o", "json")))["address"]
    grantee = js((yield run("keys", "add", "g", *keys, "-o", "json")))["address"]
    granted = yield send_tx(n, keys, "feegrant", "grant", "dev0", grantee, "--spend-limit",
                            f"{FEE_AMOUNT * 5 // 2}achain")
    assert attribute(granted, "set_feegrant", "grantee") == [grantee]

    # The grantee, with nothing at all, sends through the CLI with --fee-granter.
    assert (yield balance(n, grantee)) == 0
    before = yield balance(n, granter)
    used = yield send_tx(n, keys, "feegrant", "prune", "--from", "g", "--fee-granter", "dev0")
    assert (yield balance(n, grantee)) == 0
    assert (yield balance(n, granter)) == before - FEE_AMOUNT
    assert attribute(used, "use_feegrant", "granter") == [granter]
    assert attribute(used, "tx", "fee_payer") == [granter]
    assert used["tx"]["auth_info"]["fee"]["granter"] == granter

    # The same through gRPC BroadcastTx, a tx a client library built.
    reply, _ = yield call(node, tx_grpc.ServiceStub, "BroadcastTx",
                          tx_service.BroadcastTxRequest(tx_bytes=_pruned_by(node, tmp_path, grantee, granter),
                                                        mode=tx_service.BROADCAST_MODE_SYNC))
    assert reply.tx_response.code == 0, reply.tx_response.raw_log
    assert (yield committed(n, reply.tx_response.txhash))["code"] == 0
    assert (yield balance(n, granter)) == before - 2 * FEE_AMOUNT

    # Queries: CLI, gRPC, REST and abci_query agree on what is left.
    shown = js((yield run("q", "feegrant", "grant", granter, grantee, n, "-o", "json")))["allowance"]
    assert shown["allowance"]["@type"] == "/cosmos.feegrant.v1beta1.BasicAllowance"
    assert shown["allowance"]["spend_limit"] == [{"denom": "achain", "amount": str(FEE_AMOUNT // 2)}]
    reply, _ = yield call(node, fq_grpc.QueryStub, "Allowances", fq.QueryAllowancesRequest(grantee=grantee))
    assert [g.granter for g in reply.allowances] == [granter]
    status, _, issued = yield rest(node, f"/cosmos/feegrant/v1beta1/issued/{granter}")
    assert status == 200 and [g["grantee"] for g in issued["allowances"]] == [grantee]
    status, _, one = yield rest(node, f"/cosmos/feegrant/v1beta1/allowance/{granter}/{grantee}")
    assert status == 200 and one["allowance"]["granter"] == granter
    data = fq.QueryAllowanceRequest(granter=granter, grantee=grantee).SerializeToString().hex()
    reply = yield in_thread(comet, node, "abci_query", path="/cosmos.feegrant.v1beta1.Query/Allowance", data=data)
    answer = reply["result"]["response"]
    assert answer["code"] == 0
    assert fq.QueryAllowanceResponse.FromString(base64.b64decode(answer["value"])).allowance.grantee == grantee
    by_grantee = js((yield run("q", "feegrant", "grants-by-grantee", grantee, n, "-o", "json")))
    assert [g["granter"] for g in by_grantee["allowances"]] == [granter]

    # Beyond the spend limit: refused at the check with feegrant's code, and nothing is spent.
    result = yield run("tx", "feegrant", "prune", "--from", "g", "--fee-granter", "dev0", FEE, "-y", n, *keys)
    failed(result, "fee limit exceeded")
    assert (yield balance(n, granter)) == before - 2 * FEE_AMOUNT

    # After a revoke, no grant is found.
    yield send_tx(n, keys, "feegrant", "revoke", "dev0", grantee)
    missing, _ = yield call(node, fq_grpc.QueryStub, "Allowance",
                            fq.QueryAllowanceRequest(granter=granter, grantee=grantee))
    assert missing is None
    reply, _ = yield call(node, tx_grpc.ServiceStub, "BroadcastTx",
                          tx_service.BroadcastTxRequest(tx_bytes=_pruned_by(node, tmp_path, grantee, granter),
                                                        mode=tx_service.BROADCAST_MODE_SYNC))
    assert (reply.tx_response.codespace, reply.tx_response.code) == ("feegrant", 5)
    assert "fee-grant not found" in reply.tx_response.raw_log


def _pruned_by(node, home, grantee, granter):
    """A MsgPruneAllowances of the grantee's key "g", its fee paid by the granter, signed at its sequence."""
    key = AccountKey(Keyring(home, "test").private_key("g"))
    view = node.app.view()
    address = parse(grantee)
    return build_native([("/cosmos.feegrant.v1beta1.MsgPruneAllowances",
                              feegrant_tx.MsgPruneAllowances(pruner=grantee))], key, node.genesis.chain_id,
                        node.app.keepers["auth"].account(view, address)[0], view.accounts.get_nonce(address),
                        [("achain", FEE_AMOUNT)], 200000, granter=granter)


@pytest_twisted.inlineCallbacks
def test_a_fee_payer_signs_and_pays_and_two_signers_sign_in_turn(node, tmp_path):
    n = node_flag(node)
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    ok((yield run("keys", "import-hex", "dev0", node.dev_keys[0].private_key.hex(), *keys)))
    ok((yield run("keys", "import-hex", "dev1", node.dev_keys[1].private_key.hex(), *keys)))
    dev0 = js((yield run("keys", "show", "dev0", *keys, "-o", "json")))["address"]
    dev1 = js((yield run("keys", "show", "dev1", *keys, "-o", "json")))["address"]
    to = js((yield run("keys", "add", "to", *keys, "-o", "json")))["address"]

    # Both keys at hand: the CLI signs with the sender and the payer (SIGN_MODE_DIRECT over both signer infos).
    before = (yield balance(n, dev0)), (yield balance(n, dev1))
    paid = yield send_tx(n, keys, "bank", "send", "dev0", to, "5achain", "--fee-payer", "dev1")
    # --gas auto simulates the tx with both signers (gRPC Simulate over abci_query).
    auto = yield run("tx", "bank", "send", "dev0", to, "1achain", "--fee-payer", "dev1", "--gas", "auto", FEE, "-y",
                     "-o", "json", n, *keys)
    assert "estimated gas: " in auto.stderr
    assert (yield committed(n, js(auto)["txhash"]))["code"] == 0
    before = before[0] - 1, before[1] - FEE_AMOUNT
    assert (yield balance(n, dev0)) == before[0] - 5
    assert (yield balance(n, dev1)) == before[1] - FEE_AMOUNT
    assert attribute(paid, "tx", "fee_payer") == [dev1]
    assert len(attribute(paid, "tx", "acc_seq")) == 2

    # Built once, then signed by each in turn in amino JSON (the way signers on two machines do it).
    unsigned = ok((yield run("tx", "bank", "send", dev0, to, "6achain", FEE, "--gas", "300000", "--fee-payer", dev1,
                             "--generate-only", n, *keys))).stdout
    (tmp_path / "unsigned.json").write_text(unsigned)
    ok((yield run("tx", "sign", tmp_path / "unsigned.json", "--from", "dev0", "--sign-mode", "amino-json",
                  "--output-document", tmp_path / "one.json", n, *keys)))
    failed((yield run("tx", "broadcast", tmp_path / "one.json", n)), "wrong number of signers; expected 2, got 1")
    ok((yield run("tx", "sign", tmp_path / "one.json", "--from", "dev1", "--sign-mode", "amino-json",
                  "--output-document", tmp_path / "both.json", n, *keys)))
    checked = ok((yield run("tx", "validate-signatures", tmp_path / "both.json", n, *keys))).stdout
    assert f"  0: {dev0}" in checked and f"  1: {dev1}" in checked and "ERROR" not in checked
    sent = js((yield run("tx", "broadcast", tmp_path / "both.json", n, "-o", "json")))
    found = yield committed(n, sent["txhash"])
    assert found["code"] == 0, found["raw_log"]
    assert attribute(found, "tx", "fee_payer") == [dev1]
    # A payer whose key is not here cannot sign: the CLI says how to get its signature.
    stranger = to_bech32("chain", b"\x33" * 20)
    failed((yield run("tx", "bank", "send", "dev0", to, "1achain", FEE, "--fee-payer", stranger, "-y", n, *keys)),
           "its key is not in the keyring")


@pytest_twisted.inlineCallbacks
def test_multisign_batch_round_trip(node, tmp_path):
    n = node_flag(node)
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    ok((yield run("keys", "import-hex", "dev0", node.dev_keys[0].private_key.hex(), *keys)))
    for name in ("k1", "k2", "k3"):
        ok((yield run("keys", "add", name, *keys)))
    msig = js((yield run("keys", "add", "msig", "--multisig", "k1,k2,k3", "--multisig-threshold", "2", *keys,
                         "-o", "json")))["address"]
    yield send_tx(n, keys, "bank", "send", "dev0", msig, f"{CHAIN}achain")
    to = js((yield run("keys", "add", "to", *keys, "-o", "json")))["address"]
    lines = []
    for amount in (10, 20, 30):
        lines.append(ok((yield run("tx", "bank", "send", msig, to, f"{amount}achain", FEE, "--gas", "300000",
                                   "--generate-only", n, *keys))).stdout.strip())
    (tmp_path / "batch.json").write_text("\n".join(lines) + "\n")
    for member in ("k1", "k3"):
        signatures = ok((yield run("tx", "sign-batch", tmp_path / "batch.json", "--from", member, "--multisig", "msig",
                                   n, *keys))).stdout
        assert len(signatures.splitlines()) == 3
        (tmp_path / f"{member}.sigs").write_text(signatures)
    assert [json.loads(line)["signatures"][0]["sequence"] for line in
            (tmp_path / "k1.sigs").read_text().splitlines()] == ["0", "1", "2"]
    (tmp_path / "short.sigs").write_text((tmp_path / "k3.sigs").read_text().splitlines()[0] + "\n")
    failed((yield run("tx", "multisign-batch", tmp_path / "batch.json", "msig", tmp_path / "k1.sigs",
                      tmp_path / "short.sigs", n, *keys)), "holds 1 signatures for 3 txs")
    failed((yield run("tx", "multisign-batch", tmp_path / "batch.json", "msig", tmp_path / "k1.sigs", n, *keys)),
           "1 signatures; the multisig needs 2")
    signed = ok((yield run("tx", "multisign-batch", tmp_path / "batch.json", "msig", tmp_path / "k1.sigs",
                           tmp_path / "k3.sigs", n, *keys))).stdout
    docs = [json.loads(line) for line in signed.splitlines()]
    assert [d["auth_info"]["signer_infos"][0]["sequence"] for d in docs] == ["0", "1", "2"]
    hashes = []
    for i, doc in enumerate(docs):
        (tmp_path / f"signed{i}.json").write_text(json.dumps(doc))
        hashes.append(js((yield run("tx", "broadcast", tmp_path / f"signed{i}.json", n, "-o", "json")))["txhash"])
    for txhash in hashes:
        assert (yield committed(n, txhash))["code"] == 0
    assert (yield balance(n, to)) == 60


@pytest_twisted.inlineCallbacks
def test_a_periodic_allowed_message_grant_through_the_cli_in_amino_json(node, tmp_path):
    """The CLI builds AllowedMsgAllowance(PeriodicAllowance(BasicAllowance)) from its flags; signed in amino JSON
    (Timestamps and Durations as x/tx writes them) the node accepts it, and a message outside the list is
    refused."""
    n = node_flag(node)
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    ok((yield run("keys", "import-hex", "dev0", node.dev_keys[0].private_key.hex(), *keys)))
    granter = js((yield run("keys", "show", "dev0", *keys, "-o", "json")))["address"]
    grantee = js((yield run("keys", "add", "g", *keys, "-o", "json")))["address"]
    yield send_tx(n, keys, "feegrant", "grant", "dev0", grantee, "--spend-limit", f"{FEE_AMOUNT * 10}achain",
                  "--expiration", "2100-01-01T00:00:00Z", "--period", "3600", "--period-limit",
                  f"{FEE_AMOUNT * 2}achain", "--allowed-messages", "/cosmos.feegrant.v1beta1.MsgPruneAllowances",
                  "--sign-mode", "amino-json")
    shown = js((yield run("q", "feegrant", "grants-by-granter", granter, n, "-o", "json")))["allowances"]
    allowance = shown[0]["allowance"]
    assert allowance["@type"] == "/cosmos.feegrant.v1beta1.AllowedMsgAllowance"
    assert allowance["allowed_messages"] == ["/cosmos.feegrant.v1beta1.MsgPruneAllowances"]
    periodic = allowance["allowance"]
    assert periodic["@type"] == "/cosmos.feegrant.v1beta1.PeriodicAllowance" and periodic["period"] == "3600s"
    assert periodic["basic"]["expiration"] == "2100-01-01T00:00:00Z"
    yield send_tx(n, keys, "feegrant", "prune", "--from", "g", "--fee-granter", "dev0")
    failed((yield run("tx", "feegrant", "revoke", "g", granter, FEE, "--fee-granter", "dev0", "-y", n, *keys)),
           "message not allowed")
