"""cosmpy (PyPI, unmodified) against a running node: balances and accounts over gRPC agree with the node's own
stubs, and a bank send signed by a cosmpy wallet (Cosmos secp256k1) is committed.

cosmpy pins protobuf < 6 while chaind's generated code needs protobuf 7, so it runs in a venv of its own
(built once under ~/.cache, keyed by tests/cosmpy_client/requirements.txt) as a subprocess speaking JSON.
"""

import base64
import hashlib
import json
import pathlib
import subprocess

import pytest
import pytest_twisted

from chaind.api.cosmos import tx as tx_grpc_servicer
from chaind.chain import txs
from chaind.crypto import keys
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.auth.v1beta1 import auth_pb2
from chaind.pb.cosmos.auth.v1beta1 import query_pb2 as auth_q
from chaind.pb.cosmos.auth.v1beta1 import query_pb2_grpc as auth_grpc
from chaind.pb.cosmos.crypto.secp256k1 import keys_pb2 as secp256k1
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_service
from chaind.pb.cosmos.tx.v1beta1 import service_pb2_grpc as tx_grpc
from helpers import in_thread, rest
from native_client import GAS, IBC, fund, node_balances, stub_call

CLIENT_DIR = pathlib.Path(__file__).parent / "cosmpy_client"

# Every test here runs cosmpy, from a venv pip builds from PyPI.
pytestmark = pytest.mark.external


def run_client(python, job):
    """One job through tests/cosmpy_client/client.py in the cosmpy venv; its JSON answer."""
    run = subprocess.run([str(python), str(CLIENT_DIR / "client.py")], input=json.dumps(job), capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, f"cosmpy client failed:\n{run.stderr}"
    return json.loads(run.stdout)


def job_for(node, transport, command, **fields):
    """A job for the client; cosmpy picks its transport from the URL scheme (gRPC on 9090 or REST on 9091)."""
    g = node.genesis
    url = {"grpc": f"grpc+http://127.0.0.1:{node.port_of('grpc')}",
           "rest": f"rest+http://127.0.0.1:{node.port_of('rest')}"}[transport]
    return {"command": command, "url": url, "chain_id": g.chain_id,
            "denom": g.base_denom, "prefix": g.bech32_prefix,
            # Twice the next base fee, so the fee still covers it should the base fee rise before inclusion.
            "gas_price": 2 * node.app.next_base_fee(), **fields}


def node_account(node, bech32):
    reply = stub_call(node, auth_grpc.QueryStub, "Account", auth_q.QueryAccountRequest(address=bech32))
    account = auth_pb2.BaseAccount()
    assert reply.account.Unpack(account)
    return account


def cosmpy_wallet(seed):
    """A Cosmos secp256k1 key (cosmpy's kind) and its bech32 address, RIPEMD-160(SHA-256(public key))."""
    key = keys.AccountKey(hashlib.sha256(seed).digest())
    return key, key.address_as(keys.SECP256K1)


@pytest.mark.parametrize("transport", ["grpc", "rest"])
@pytest_twisted.inlineCallbacks
def test_cosmpy_reads_balances_and_accounts_as_the_node_serves_them(node, cosmpy_python, transport):
    prefix = node.genesis.bech32_prefix
    _, wallet = cosmpy_wallet(b"cosmpy reads")
    yield in_thread(fund, node, wallet, [(node.genesis.base_denom, 3 * 10**18), (IBC, 5)])
    # Dev account 1 signed the funding tx, so its account holds its eth_secp256k1 key; dev 0 has no key yet.
    dev, signer = (to_bech32(prefix, k.address) for k in node.dev_keys[:2])
    addresses = [dev, to_bech32(prefix, wallet)]
    # Over REST cosmpy parses the JSON with its own protos, which lack every eth_secp256k1 key type, so it
    # cannot read an account holding one; over gRPC the key stays a packed Any and it can.
    accounts = addresses + [signer] if transport == "grpc" else addresses
    answer = yield in_thread(run_client, cosmpy_python, job_for(node, transport, "query", addresses=addresses,
                                                                accounts=accounts))
    assert "grpc_error" not in answer, answer
    assert answer["chain_id"] == node.genesis.chain_id and answer["height"] >= 2
    for address in addresses:
        expected = yield in_thread(node_balances, node, address)
        assert answer["all_balances"][address] == expected and len(expected) >= 2
        assert answer["balance"][address] == int(expected[node.genesis.base_denom])
        account = yield in_thread(node_account, node, address)
        assert answer["accounts"][address] == {"address": address, "number": account.account_number,
                                               "sequence": account.sequence}
    assert answer["all_balances"][addresses[1]] == {node.genesis.base_denom: str(3 * 10**18), IBC: "5"}
    account = yield in_thread(node_account, node, signer)
    assert account.pub_key.type_url == txs.COSMOS_EVM_PUBKEY and account.sequence == 1
    if transport == "grpc":
        assert answer["accounts"][signer] == {"address": signer, "number": account.account_number, "sequence": 1}
    else:
        status, _, body = yield rest(node, f"/cosmos/auth/v1beta1/accounts/{signer}")
        assert status == 200 and body["account"]["pub_key"] == {
            "@type": txs.COSMOS_EVM_PUBKEY, "key": base64.b64encode(node.dev_keys[1].compressed_public_key).decode()}
    # The fresh wallet got an account (and a number of its own) when it was funded.
    assert answer["accounts"][addresses[1]]["sequence"] == 0
    assert answer["accounts"][dev]["number"] != answer["accounts"][addresses[1]]["number"]


def send_and_check(node, python, transport, seed, gas):
    prefix, denom = node.genesis.bech32_prefix, node.genesis.base_denom
    key, wallet = cosmpy_wallet(seed)
    fund(node, wallet, [(denom, 10**18)])
    recipient = to_bech32(prefix, hashlib.sha256(seed + b" recipient").digest()[:20])
    answer = run_client(python, job_for(node, transport, "send", private_key=key.private_key.hex(), to=recipient,
                                        amount=12345, gas=gas, gas_multiplier=1.5))
    assert "grpc_error" not in answer, answer
    assert answer["wallet"] == to_bech32(prefix, wallet)
    assert answer["code"] == 0 and answer["height"] >= 2 and 0 < answer["gas_used"] <= answer["gas_wanted"]
    assert "transfer" in answer["event_types"] and "coin_received" in answer["event_types"]
    assert answer["account_after"]["sequence"] == 1
    assert node_balances(node, recipient) == {denom: "12345"}
    # The whole fee is charged (as on Evmos), and the account now holds the Cosmos key cosmpy signed with.
    assert node_balances(node, answer["wallet"]) == {denom: str(10**18 - 12345 - answer["fee"])}
    account = node_account(node, answer["wallet"])
    assert account.sequence == 1 and account.pub_key.type_url == txs.SECP256K1_PUBKEY
    assert secp256k1.PubKey.FromString(account.pub_key.value).key == key.compressed_public_key
    found = stub_call(node, tx_grpc.ServiceStub, "GetTx", tx_service.GetTxRequest(hash=answer["txhash"]))
    assert found.tx_response.height == answer["height"]
    assert found.tx.auth_info.signer_infos[0].public_key.type_url == txs.SECP256K1_PUBKEY
    return answer


@pytest.mark.parametrize("transport", ["grpc", "rest"])
@pytest_twisted.inlineCallbacks
def test_cosmpy_wallet_sends_coins_with_explicit_gas(node, cosmpy_python, transport):
    answer = yield in_thread(send_and_check, node, cosmpy_python, transport, b"cosmpy sends", GAS)
    assert answer["gas_wanted"] == GAS and "simulated_gas" not in answer


@pytest.mark.skipif("Simulate" not in vars(tx_grpc_servicer.TxService),
                    reason="cosmos.tx.v1beta1.Service/Simulate is not served yet (issue 6)")
@pytest.mark.parametrize("transport", ["grpc", "rest"])
@pytest_twisted.inlineCallbacks
def test_cosmpy_wallet_sends_coins_with_simulated_gas(node, cosmpy_python, transport):
    answer = yield in_thread(send_and_check, node, cosmpy_python, transport, b"cosmpy simulates", None)
    assert 0 < answer["simulated_gas"] and answer["gas_wanted"] == int(answer["simulated_gas"] * 1.5)
    assert answer["gas_used"] <= answer["gas_wanted"]
