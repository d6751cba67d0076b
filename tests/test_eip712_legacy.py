"""Evmos' legacy EIP-712 against a running node: MetaMask's typed-data signer (@metamask/eth-sig-util, npm,
unmodified) signs the legacy typed data of an Ethereum-only account's first native tx, which travels with an
ExtensionOptionsWeb3Tx (typed chain id, fee payer, signature) and commits; the same typed data signed in the
amino tx's own signature (Evmos v20's eth_secp256k1 key) commits too. Bad typed data, another chain id, another
fee payer, a cosmos signature beside it: code 4 at check_tx and nothing changes.

(ethers' signTypedData cannot sign this typed data: it types the domain's salt as bytes32 and verifyingContract
as an address, and Evmos' domain has "0" and "cosmos".)
"""

import json
import os
import subprocess

import pytest
import pytest_twisted
from google.protobuf import any_pb2

from chaind.chain import amino, eip712, eip712_legacy, txs, web3tx
from chaind.crypto import keys
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.distribution.v1beta1 import tx_pb2 as distribution_tx
from chaind.pb.cosmos.gov.v1beta1 import tx_pb2 as gov_tx
from chaind.pb.cosmos.staking.v1beta1 import tx_pb2 as staking_tx
from chaind.pb.cosmos.tx.signing.v1beta1 import signing_pb2
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_service
from chaind.pb.cosmos.tx.v1beta1 import service_pb2_grpc as tx_grpc
from chaind.pb.cosmos.tx.v1beta1 import tx_pb2
from chaind.pb.ethermint.crypto.v1.ethsecp256k1 import keys_pb2 as ethsecp256k1
from chaind.pb.ethermint.types.v1 import web3_pb2
from cosmjs_driver import CLIENT_DIR
from helpers import grpc_sync, in_thread, on_reactor, rest_sync, until_tx
from native_client import fund, node_balances

pytestmark = pytest.mark.external

FRESH = keys.AccountKey(bytes.fromhex("8da4ef21b864d2cc526dbdb2a120bd2874c36c9d0a1fb7f8c63d7f7a8b41de8f"))
GAS = 200000
LEGACY = signing_pb2.SIGN_MODE_LEGACY_AMINO_JSON

# evmosjs' @evmos/eip712 (the legacy typed data wallets built): MsgValue and its nested types per message.
EVMOSJS_TYPES = {
    "MsgSend": {"MsgValue": [("from_address", "string"), ("to_address", "string"), ("amount", "TypeAmount[]")],
                "TypeAmount": [("denom", "string"), ("amount", "string")]},
    "MsgDelegate": {"MsgValue": [("delegator_address", "string"), ("validator_address", "string"),
                                 ("amount", "TypeAmount")],
                    "TypeAmount": [("denom", "string"), ("amount", "string")]},
    "MsgVote": {"MsgValue": [("proposal_id", "uint64"), ("voter", "string"), ("option", "int32")]},
    "MsgWithdrawDelegatorReward": {"MsgValue": [("delegator_address", "string"), ("validator_address", "string")]},
}


def test_legacy_types_are_evmosjs_ones():
    coin = coin_pb2.Coin(denom="achain", amount="5")
    messages = {
        "MsgSend": bank_tx.MsgSend(from_address="a", to_address="b", amount=[coin]),
        "MsgDelegate": staking_tx.MsgDelegate(delegator_address="a", validator_address="v", amount=coin),
        "MsgVote": gov_tx.MsgVote(proposal_id=1, voter="a", option=1),
        "MsgWithdrawDelegatorReward": distribution_tx.MsgWithdrawDelegatorReward(delegator_address="a",
                                                                                 validator_address="v"),
    }
    for name, message in messages.items():
        types = eip712_legacy.types_of(message, amino.BASE_ANY_TYPES)
        assert types["Fee"] == [("feePayer", "string"), ("amount", "Coin[]"), ("gas", "string")]
        assert types["Msg"] == [("type", "string"), ("value", "MsgValue")]
        assert {k: v for k, v in types.items() if k not in eip712_legacy.BASE_TYPES} == EVMOSJS_TYPES[name], name


def metamask_sign(cosmjs, private_key, types, chain_id, message):  # noqa: F811
    """eth_signTypedData_v4 of typed data under Evmos' Cosmos Web3 domain (V 27/28, as MetaMask gives it)."""
    typed = {"types": {k: [{"name": n, "type": t} for n, t in v] for k, v in types.items()}, "primaryType": "Tx",
             "domain": {"name": "Cosmos Web3", "version": "1.0.0", "chainId": chain_id, "verifyingContract": "cosmos",
                        "salt": "0"}, "message": message}
    node, modules = cosmjs
    run = subprocess.run([node, str(CLIENT_DIR / "eip712.js")],
                         input=json.dumps({"privateKey": private_key.hex(), "typedData": typed}), capture_output=True,
                         text=True, timeout=60, env={**os.environ, "NODE_PATH": str(modules)})
    assert run.returncode == 0, f"eth-sig-util failed:\n{run.stderr}"
    return bytes.fromhex(json.loads(run.stdout)["signature"][2:])


class Sender:
    """Builds a key's native txs for the node: the legacy typed data, signed by MetaMask."""

    def __init__(self, node, cosmjs, key):  # noqa: F811
        self.node, self.cosmjs, self.key = node, cosmjs, key
        self.g = node.genesis
        self.address = to_bech32(self.g.bech32_prefix, key.address)

    def tx(self, msg, url, memo="", typed_chain_id=None, fee_payer=None, cosmos_signature=b"", web3=True,
           tamper=None):
        """A tx of one message signed over its legacy typed data: in ExtensionOptionsWeb3Tx (web3) or as the amino
        signature itself. typed_chain_id / fee_payer: what the typed data and the extension say (default: right);
        tamper(message): a change to the typed message after the tx is built (typed data the tx does not match)."""
        view = self.node.app.view()
        number, _ = self.node.app.keepers["auth"].account(view, self.key.address)
        sequence = view.accounts.get_nonce(self.key.address)
        app = self.node.app
        body = tx_pb2.TxBody(messages=[any_pb2.Any(type_url=url, value=msg.SerializeToString())], memo=memo)
        fee = tx_pb2.Fee(amount=[coin_pb2.Coin(denom=self.g.base_denom, amount=str(2 * app.next_base_fee() * GAS))],
                         gas_limit=GAS)
        doc = json.loads(amino.sign_bytes(app.amino, body, fee, self.g.chain_id, number, sequence))
        chain_id = eip712.chain_number(self.g.chain_id) if typed_chain_id is None else typed_chain_id
        payer = self.address if fee_payer is None else fee_payer
        doc["fee"]["feePayer"] = payer
        if tamper:
            tamper(doc)
        signature = metamask_sign(self.cosmjs, self.key.private_key,
                                  eip712_legacy.types_of(msg, app.amino.any_types), chain_id, doc)
        if web3:
            body.extension_options.add(type_url=web3tx.URL, value=web3_pb2.ExtensionOptionsWeb3Tx(
                typed_data_chain_id=chain_id, fee_payer=payer, fee_payer_sig=signature).SerializeToString())
        pub = any_pb2.Any(type_url=txs.ETH_PUBKEY,
                          value=ethsecp256k1.PubKey(key=self.key.compressed_public_key).SerializeToString())
        auth_info = tx_pb2.AuthInfo(signer_infos=[tx_pb2.SignerInfo(
            public_key=pub, sequence=sequence, mode_info=tx_pb2.ModeInfo(single=tx_pb2.ModeInfo.Single(mode=LEGACY)))],
            fee=fee)
        return tx_pb2.TxRaw(body_bytes=body.SerializeToString(), auth_info_bytes=auth_info.SerializeToString(),
                            signatures=[cosmos_signature if web3 else signature]).SerializeToString()

    def send(self, to, amount, **options):
        msg = bank_tx.MsgSend(from_address=self.address, to_address=to,
                              amount=[coin_pb2.Coin(denom=self.g.base_denom, amount=str(amount))])
        return self.tx(msg, txs.MSG_SEND, **options)


def broadcast(node, raw):
    reply, _ = grpc_sync(node, tx_grpc.ServiceStub, "BroadcastTx",
                         tx_service.BroadcastTxRequest(tx_bytes=raw, mode=tx_service.BROADCAST_MODE_SYNC))
    return reply.tx_response


def committed(node, txhash):
    """GetTx's answer once the tx is in a block (from a client thread)."""
    on_reactor(until_tx, node, txhash)
    found, _ = grpc_sync(node, tx_grpc.ServiceStub, "GetTx", tx_service.GetTxRequest(hash=txhash))
    return found


@pytest_twisted.inlineCallbacks
def test_a_metamask_account_sends_with_the_legacy_web3_extension(node, cosmjs):  # noqa: F811
    g = node.genesis
    yield in_thread(fund, node, FRESH.address, [(g.base_denom, 10**18)])
    # an account, no public key yet
    assert not node.app.keepers["auth"].account(node.app.view(), FRESH.address)[1]
    sender = Sender(node, cosmjs, FRESH)
    first, second = to_bech32(g.bech32_prefix, b"\x73" * 20), to_bech32(g.bech32_prefix, b"\x74" * 20)

    raw = yield in_thread(sender.send, first, 4321, memo="legacy <eip712>")
    reply = yield in_thread(broadcast, node, raw)
    assert reply.code == 0, reply.raw_log
    found = yield in_thread(committed, node, reply.txhash)
    assert found.tx_response.code == 0, found.tx_response.raw_log
    assert found.tx.body.extension_options[0].type_url == web3tx.URL
    status, _, body = yield in_thread(rest_sync, node, f"/cosmos/tx/v1beta1/txs/{reply.txhash}")
    assert status == 200, body
    option = body["tx"]["body"]["extension_options"][0]
    assert (option["@type"], option["fee_payer"]) == (web3tx.URL, sender.address)
    assert (yield in_thread(node_balances, node, first)) == {g.base_denom: "4321"}
    assert node.app.keepers["auth"].account(node.app.view(), FRESH.address)[1]

    # Evmos v20's eth_secp256k1 key takes the legacy typed data as the amino signature itself.
    raw = yield in_thread(sender.send, second, 99, web3=False)
    reply = yield in_thread(broadcast, node, raw)
    assert reply.code == 0, reply.raw_log
    found = yield in_thread(committed, node, reply.txhash)
    assert found.tx_response.code == 0, found.tx_response.raw_log
    assert (yield in_thread(node_balances, node, second)) == {g.base_denom: "99"}


def refusals(prefix):
    """(tx options, text in the log) of each refusal."""
    return {
        # typed data the tx does not match (MetaMask showed and signed another amount): the key recovered from
        # the tx's own digest is some other key
        "bad typed data": ({"tamper": lambda doc: doc["msgs"][0]["value"]["amount"][0].update(amount="1")},
                           "is different from transaction pubkey"),
        "another chain id": ({"typed_chain_id": 9001}, "invalid chain-id: invalid chain-id"),
        "another fee payer": ({"fee_payer": to_bech32(prefix, b"\x75" * 20)}, "failed to verify delegated fee payer"),
        "a fee payer of another chain": ({"fee_payer": to_bech32("cosmos", b"\x75" * 20)},
                                         "failed to parse feePayer from ExtensionOptionsWeb3Tx"),
        "a cosmos signature beside": ({"cosmos_signature": b"\x01" * 65},
                                      "EIP712 must have the cosmos transaction signature empty"),
    }


@pytest_twisted.inlineCallbacks
def test_legacy_refusals_change_nothing(node, cosmjs):  # noqa: F811
    g = node.genesis
    key = node.dev_keys[3]
    sender = Sender(node, cosmjs, key)
    to = to_bech32(g.bech32_prefix, b"\x76" * 20)
    nonce, before = node.app.head_nonce(key.address), (yield in_thread(node_balances, node, sender.address))
    for name, (options, text) in refusals(g.bech32_prefix).items():
        raw = yield in_thread(sender.send, to, 5, **options)
        reply = yield in_thread(broadcast, node, raw)
        assert (reply.codespace, reply.code) == ("sdk", 4), (name, reply.raw_log)
        assert reply.raw_log.startswith("signature verification failed; please verify account number"), name
        assert text in reply.raw_log, (name, reply.raw_log)
    # Typed data under another chain id in the amino signature itself: refused as any bad signature.
    raw = yield in_thread(sender.send, to, 5, typed_chain_id=9001, web3=False)
    reply = yield in_thread(broadcast, node, raw)
    assert (reply.codespace, reply.code) == ("sdk", 4), reply.raw_log
    # A good one after them: still the same sequence, and only it moves the balances.
    assert node.app.head_nonce(key.address) == nonce
    raw = yield in_thread(sender.send, to, 5)
    reply = yield in_thread(broadcast, node, raw)
    assert reply.code == 0, reply.raw_log
    yield in_thread(committed, node, reply.txhash)
    assert (yield in_thread(node_balances, node, to)) == {g.base_denom: "5"}
    after = yield in_thread(node_balances, node, sender.address)
    assert int(after[g.base_denom]) < int(before[g.base_denom])
