"""@cosmjs/stargate (npm, unmodified) with amino signers against a running node, through the AminoTypes converters
@cosmjs ships (bank, staking, distribution, gov v1beta1): a Secp256k1HdWallet signs SIGN_MODE_LEGACY_AMINO_JSON
with fee "auto" (a simulation first), and an eth_secp256k1 OfflineAminoSigner (tests/cosmjs_client/sign.js) signs
the amino doc's EIP-712 hash as Evmos v20 verifies it; each sends, delegates, withdraws its reward, submits a text
proposal and votes on it, and every tx commits.

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

from chaind.chain import txs
from chaind.crypto import keys
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.distribution.v1beta1 import query_pb2 as distribution_q
from chaind.pb.cosmos.distribution.v1beta1 import query_pb2_grpc as distribution_grpc
from chaind.pb.cosmos.gov.v1beta1 import query_pb2 as gov_q
from chaind.pb.cosmos.gov.v1beta1 import query_pb2_grpc as gov_grpc
from chaind.pb.cosmos.staking.v1beta1 import query_pb2 as staking_q
from chaind.pb.cosmos.staking.v1beta1 import query_pb2_grpc as staking_grpc
from chaind.pb.cosmos.tx.signing.v1beta1 import signing_pb2
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_service
from chaind.pb.cosmos.tx.v1beta1 import service_pb2_grpc as tx_grpc
from cosmjs_driver import CLIENT_DIR
from helpers import in_thread
from native_client import IBC, fund, node_balances

pytestmark = pytest.mark.external

MNEMONIC = ("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about")
ETH_MNEMONIC = "legal winner thank year wave sausage worth useful legal winner thank yellow"
YES = 1


def cosmos_key(mnemonic):
    """The key @cosmjs' Secp256k1HdWallet derives by default (m/44'/118'/0'/0/0) and its secp256k1 address."""
    key = keys.AccountKey(bytes(Account.from_mnemonic(mnemonic, account_path="m/44'/118'/0'/0/0").key))
    return key, key.address_as(keys.SECP256K1)


def run_signer(cosmjs, job):  # noqa: F811
    node, modules = cosmjs
    run = subprocess.run([node, str(CLIENT_DIR / "sign.js")], input=json.dumps(job), capture_output=True,
                         text=True, timeout=180, env={**os.environ, "NODE_PATH": str(modules)})
    assert run.returncode == 0, f"cosmjs signer failed:\n{run.stderr}"
    return json.loads(run.stdout)


def stub(node, stub_class, method, request):
    with grpc.insecure_channel(f"127.0.0.1:{node.port_of('grpc')}") as channel:
        return getattr(stub_class(channel), method)(request, timeout=10)


def validator(node):
    return stub(node, staking_grpc.QueryStub, "Validators", staking_q.QueryValidatorsRequest()).validators[0] \
        .operator_address


def get_tx(node, hash_hex):
    return stub(node, tx_grpc.ServiceStub, "GetTx", tx_service.GetTxRequest(hash=hash_hex))


def job(node, signer, mnemonic, steps):
    g = node.genesis
    return {"url": f"http://127.0.0.1:{node.port_of('cometbft')}", "mnemonic": mnemonic, "prefix": g.bech32_prefix,
            "gasPrice": f"{2 * node.app.next_base_fee()}{g.base_denom}", "signer": signer, "steps": steps}


def wallet_steps(node, validator_address):
    """Send, delegate, withdraw the reward, submit a text proposal (its deposit over the dev minimum, so it votes
    at once) and vote yes on it, each with simulated gas."""
    g = node.genesis
    steps = [
        {"op": "send", "to": to_bech32(g.bech32_prefix, b"\x62" * 20), "amount": {"denom": IBC, "amount": "7"},
         "memo": "amino <json> & cosmjs"},
        {"op": "delegate", "validator": validator_address, "amount": {"denom": g.base_denom, "amount": str(10**18)}},
        {"op": "withdraw", "validator": validator_address},
        {"op": "submitProposal", "title": "amino", "description": "a text proposal signed in amino JSON",
         "deposit": {"denom": g.base_denom, "amount": "1000"}},
        {"op": "vote", "proposalId": "last", "option": YES},
    ]
    return steps


def check_committed(node, answer, ops, pubkey_url):
    """Every step committed in SIGN_MODE_LEGACY_AMINO_JSON under the given key type; (tx type URLs, proposal id)."""
    assert [r["op"] for r in answer["results"]] == ops
    assert all(r["code"] == 0 for r in answer["results"]), answer
    urls = []
    for result in answer["results"]:
        found = get_tx(node, result["transactionHash"])
        assert found.tx_response.code == 0
        signer = found.tx.auth_info.signer_infos[0]
        assert signer.mode_info.single.mode == signing_pb2.SIGN_MODE_LEGACY_AMINO_JSON
        assert signer.public_key.type_url == pubkey_url
        urls.append(found.tx.body.messages[0].type_url)
    return urls, int(next(r["proposalId"] for r in answer["results"] if r["op"] == "submitProposal"))


def voted(node, proposal_id, voter):
    return stub(node, gov_grpc.QueryStub, "Vote", gov_q.QueryVoteRequest(proposal_id=proposal_id, voter=voter)).vote


OPS = ["send", "delegate", "withdraw", "submitProposal", "vote"]
URLS = ["/cosmos.bank.v1beta1.MsgSend", "/cosmos.staking.v1beta1.MsgDelegate",
        "/cosmos.distribution.v1beta1.MsgWithdrawDelegatorReward", "/cosmos.gov.v1beta1.MsgSubmitProposal",
        "/cosmos.gov.v1beta1.MsgVote"]


@pytest_twisted.inlineCallbacks
def test_secp256k1_hd_wallet_sends_delegates_withdraws_and_votes(node, cosmjs):  # noqa: F811
    g = node.genesis
    _, address = cosmos_key(MNEMONIC)
    yield in_thread(fund, node, address, [(g.base_denom, 5 * 10**18), (IBC, 50)])
    validator_address = yield in_thread(validator, node)
    bech32 = to_bech32(g.bech32_prefix, address)
    steps = wallet_steps(node, validator_address) + [
        {"op": "setWithdrawAddress", "to": to_bech32(g.bech32_prefix, b"\x63" * 20)},
        {"op": "fundCommunityPool", "amount": {"denom": g.base_denom, "amount": "5"}},
        {"op": "deposit", "proposalId": "last", "amount": {"denom": g.base_denom, "amount": "3"}},
    ]
    answer = yield in_thread(run_signer, cosmjs, job(node, "hd", MNEMONIC, steps))
    assert answer["address"] == bech32
    urls, proposal_id = yield in_thread(check_committed, node, answer, OPS + [
        "setWithdrawAddress", "fundCommunityPool", "deposit"], txs.SECP256K1_PUBKEY)
    assert urls == URLS + ["/cosmos.distribution.v1beta1.MsgSetWithdrawAddress",
                           "/cosmos.distribution.v1beta1.MsgFundCommunityPool", "/cosmos.gov.v1beta1.MsgDeposit"]
    assert (yield in_thread(node_balances, node, to_bech32(g.bech32_prefix, b"\x62" * 20))) == {IBC: "7"}
    assert (yield in_thread(voted, node, proposal_id, bech32)).options[0].option == YES
    withdraw_to = yield in_thread(stub, node, distribution_grpc.QueryStub, "DelegatorWithdrawAddress",
                                  distribution_q.QueryDelegatorWithdrawAddressRequest(delegator_address=bech32))
    assert withdraw_to.withdraw_address == to_bech32(g.bech32_prefix, b"\x63" * 20)


@pytest_twisted.inlineCallbacks
def test_eth_secp256k1_amino_signer_signs_eip712_and_does_the_same(node, cosmjs):  # noqa: F811
    g = node.genesis
    key = keys.from_mnemonic(ETH_MNEMONIC)
    bech32 = to_bech32(g.bech32_prefix, key.address)
    yield in_thread(fund, node, key.address, [(g.base_denom, 5 * 10**18), (IBC, 50)])
    validator_address = yield in_thread(validator, node)
    # Gas simulated: @cosmjs simulates with the key written as a Cosmos secp256k1 one, as the SDK allows.
    answer = yield in_thread(run_signer, cosmjs, job(node, "eth", ETH_MNEMONIC, wallet_steps(node, validator_address)))
    assert answer["address"] == bech32
    urls, proposal_id = yield in_thread(check_committed, node, answer, OPS, txs.ETH_PUBKEY)
    assert urls == URLS
    assert (yield in_thread(voted, node, proposal_id, bech32)).options[0].option == YES
    delegations = yield in_thread(stub, node, staking_grpc.QueryStub, "DelegatorDelegations",
                                  staking_q.QueryDelegatorDelegationsRequest(delegator_addr=bech32))
    assert delegations.delegation_responses[0].balance.amount == str(10**18)
