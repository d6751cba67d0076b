"""@cosmjs/stargate (npm, unmodified) with an amino signer against a running node: a Secp256k1HdWallet signs a
bank send and a delegation in SIGN_MODE_LEGACY_AMINO_JSON with fee "auto" (simulated first), and both commit.

The packages are installed once under ~/.cache by tests/test_cosmjs.py's mechanism; tests/cosmjs_client/sign.js
runs them through node in a subprocess.
"""

import json
import os
import subprocess

import grpc
import pytest
import pytest_twisted
from eth_account import Account

from chaind.crypto import keys
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.staking.v1beta1 import query_pb2 as staking_q
from chaind.pb.cosmos.staking.v1beta1 import query_pb2_grpc as staking_grpc
from chaind.pb.cosmos.tx.signing.v1beta1 import signing_pb2
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_service
from chaind.pb.cosmos.tx.v1beta1 import service_pb2_grpc as tx_grpc
from helpers import in_thread
from test_cosmjs import CLIENT_DIR, cosmjs  # noqa: F401 (the fixture)
from test_cosmpy import IBC, fund, node_balances

pytestmark = pytest.mark.external

MNEMONIC = ("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about")


def cosmos_key(mnemonic):
    """The key @cosmjs' Secp256k1HdWallet derives by default (m/44'/118'/0'/0/0) and its secp256k1 address."""
    key = keys.AccountKey(bytes(Account.from_mnemonic(mnemonic, account_path="m/44'/118'/0'/0/0").key))
    return key, key.address_as(keys.SECP256K1)


def run_signer(cosmjs, job):  # noqa: F811
    node, modules = cosmjs
    run = subprocess.run([node, str(CLIENT_DIR / "sign.js")], input=json.dumps(job), capture_output=True,
                         text=True, timeout=120, env={**os.environ, "NODE_PATH": str(modules)})
    assert run.returncode == 0, f"cosmjs signer failed:\n{run.stderr}"
    return json.loads(run.stdout)


def validator(node):
    with grpc.insecure_channel(f"127.0.0.1:{node.port_of('grpc')}") as channel:
        reply = staking_grpc.QueryStub(channel).Validators(staking_q.QueryValidatorsRequest(), timeout=10)
    return reply.validators[0].operator_address


@pytest_twisted.inlineCallbacks
def test_cosmjs_amino_signer_sends_and_delegates(node, cosmjs):  # noqa: F811
    g = node.genesis
    _, address = cosmos_key(MNEMONIC)
    yield in_thread(fund, node, address, [(g.base_denom, 5 * 10**18), (IBC, 50)])
    recipient = to_bech32(g.bech32_prefix, b"\x62" * 20)
    job = {"url": f"http://127.0.0.1:{node.port_of('cometbft')}", "mnemonic": MNEMONIC, "prefix": g.bech32_prefix,
           "gasPrice": f"{2 * node.app.next_base_fee()}{g.base_denom}", "to": recipient,
           "send": {"denom": IBC, "amount": "7"}, "memo": "amino <json> & cosmjs",
           "validator": (yield in_thread(validator, node)), "delegate": {"denom": g.base_denom, "amount": str(10**18)}}
    answer = yield in_thread(run_signer, cosmjs, job)
    assert answer["address"] == to_bech32(g.bech32_prefix, address)
    assert answer["send"]["code"] == 0 and answer["delegate"]["code"] == 0, answer
    assert (yield in_thread(node_balances, node, recipient)) == {IBC: "7"}
    for name in ("send", "delegate"):
        found = yield in_thread(get_tx, node, answer[name]["transactionHash"])
        assert found.tx.auth_info.signer_infos[0].mode_info.single.mode == signing_pb2.SIGN_MODE_LEGACY_AMINO_JSON
        assert found.tx_response.code == 0
    assert found.tx.body.messages[0].type_url == "/cosmos.staking.v1beta1.MsgDelegate"


def get_tx(node, hash_hex):
    with grpc.insecure_channel(f"127.0.0.1:{node.port_of('grpc')}") as channel:
        return tx_grpc.ServiceStub(channel).GetTx(tx_service.GetTxRequest(hash=hash_hex), timeout=10)
