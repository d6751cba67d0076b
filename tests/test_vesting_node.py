"""Vesting on a running node: `tx vesting create-vesting-account` through the CLI; the account cannot send its
locked coins natively nor move them with an EVM transfer, answers gRPC in the SDK's vesting type (which @cosmjs'
accountFromAny decodes), and once the dev clock (evm_increaseTime + evm_mine) passes its end, sends them."""

import json
import os
import subprocess

import pytest
import pytest_twisted
from eth_account import Account

from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.auth.v1beta1 import query_pb2 as auth_q
from chaind.pb.cosmos.auth.v1beta1 import query_pb2_grpc as auth_grpc
from chaind.pb.cosmos.bank.v1beta1 import query_pb2 as bank_q
from chaind.pb.cosmos.bank.v1beta1 import query_pb2_grpc as bank_grpc
from chaind.pb.cosmos.vesting.v1beta1 import vesting_pb2
from cli_driver import FEE, committed, js, node_flag, ok, run, send_tx
from cosmjs_driver import CLIENT_DIR
from evm_client import rpc, sign
from helpers import call, in_thread, rest

CHAIN = 10**18
TARGET = "0x" + "31" * 20


@pytest_twisted.inlineCallbacks
def dev(node, method, *params):
    status, reply = yield rpc(node, method, *params)
    assert status == 200 and "error" not in reply, reply
    return reply["result"]


@pytest_twisted.inlineCallbacks
def vesting_account(node, tmp_path):
    """A continuous vesting account of 100 chain, ending 1,000 s from now, with 1 chain free for fees:
    (its bech32, its key, the CLI's flags)."""
    n = node_flag(node)
    keys = ("--home", tmp_path / "cli", "--keyring-backend", "test")
    key = Account.create()
    ok((yield run("keys", "import-hex", "dev1", node.dev_keys[1].private_key.hex(), *keys)))
    ok((yield run("keys", "import-hex", "vest", key.key.hex().removeprefix("0x"), *keys)))
    me = to_bech32(node.genesis.bech32_prefix, bytes.fromhex(key.address[2:]))
    end = node.app.head[0].time_ns // 10**9 + 1000
    found = yield send_tx(n, keys, "vesting", "create-vesting-account", me, f"{100 * CHAIN}achain", str(end),
                          "--from", "dev1")
    assert any(e["type"] == "transfer" for e in found["events"])
    yield send_tx(n, keys, "bank", "send", "dev1", me, f"{CHAIN}achain")
    return me, key, (n, keys)


@pytest_twisted.inlineCallbacks
def test_a_vesting_account_spends_its_coins_only_once_vested(node, tmp_path):
    me, key, (n, keys) = yield vesting_account(node, tmp_path)
    reply, _ = yield call(node, auth_grpc.QueryStub, "Account", auth_q.QueryAccountRequest(address=me))
    assert reply.account.type_url == "/cosmos.vesting.v1beta1.ContinuousVestingAccount"
    account = vesting_pb2.ContinuousVestingAccount.FromString(reply.account.value)
    assert account.base_vesting_account.base_account.address == me
    assert account.base_vesting_account.original_vesting[0].amount == str(100 * CHAIN)
    shown = js((yield run("q", "account", me, n, "-o", "json")))
    assert shown["account"]["@type"] == "/cosmos.vesting.v1beta1.ContinuousVestingAccount"
    balances = js((yield run("q", "vesting", "balances", me, n, "-o", "json")))
    assert sum(int(c["amount"]) for c in balances["unvested"] + balances["vested"]) == 100 * CHAIN
    assert balances["locked"] == balances["unvested"]
    status, _, body = yield rest(node, f"/evmos/vesting/v2/balances/{me}")
    assert status == 200 and body["locked"] == balances["locked"], body
    plain = to_bech32(node.genesis.bech32_prefix, node.dev_keys[1].address)
    status, _, body = yield rest(node, f"/evmos/vesting/v2/balances/{plain}")
    assert status != 200 and "is not a vesting account" in json.dumps(body), body
    spendable, _ = yield call(node, bank_grpc.QueryStub, "SpendableBalances",
                              bank_q.QuerySpendableBalancesRequest(address=me))
    assert int(spendable.balances[0].amount) < 2 * CHAIN

    # Locked: a native send of 50 chain fails in its block, an EVM transfer is refused at the door.
    sent = js((yield run("tx", "bank", "send", "vest", TARGET, f"{50 * CHAIN}achain", FEE, "--gas", "400000",
                         "-y", "-o", "json", n, *keys)))
    result = yield committed(n, sent["txhash"])
    assert result["code"] == 5 and "spendable balance" in result["raw_log"], result["raw_log"]
    raw = sign({"to": TARGET, "value": 50 * CHAIN, "nonce": 1}, key.key).raw_transaction
    status, reply = yield rpc(node, "eth_sendRawTransaction", "0x" + raw.hex())
    assert "insufficient funds for gas * price + value" in reply["error"]["message"], reply

    # The dev clock passes the end: everything is free.
    yield dev(node, "evm_increaseTime", 2000)
    yield dev(node, "evm_mine")
    yield send_tx(n, keys, "bank", "send", "vest", TARGET, f"{50 * CHAIN}achain")
    shown = js((yield run("q", "bank", "balance", TARGET, "achain", n, "-o", "json")))
    assert shown["balance"]["amount"] == str(50 * CHAIN)
    balances = js((yield run("q", "vesting", "balances", me, n, "-o", "json")))
    assert balances["locked"] == balances["unvested"] == [] and balances["vested"][0]["amount"] == str(100 * CHAIN)


@pytest.mark.external
@pytest_twisted.inlineCallbacks
def test_cosmjs_decodes_the_vesting_account(node, tmp_path, cosmjs):  # noqa: F811
    me, _, _ = yield vesting_account(node, tmp_path)
    url = f"http://127.0.0.1:{node.port_of('cometbft')}"

    def client():
        program, modules = cosmjs
        job = json.dumps({"url": url, "address": me})
        done = subprocess.run([program, str(CLIENT_DIR / "account.js")], input=job, capture_output=True, text=True,
                              timeout=120, env={**os.environ, "NODE_PATH": str(modules)})
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    answer = yield in_thread(client)
    assert answer["typeUrl"] == "/cosmos.vesting.v1beta1.ContinuousVestingAccount"
    assert answer["decoded"]["address"] == me and answer["account"]["address"] == me
    assert answer["account"]["accountNumber"] == answer["decoded"]["accountNumber"] != "0"
    assert answer["account"]["sequence"] == "0"         # it has signed nothing yet
