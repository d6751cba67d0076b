"""A tx wanting more gas than a block may use (consensus params block.max_gas) is refused at check on every face
that broadcasts, as the SDK's and Evmos' ante handlers refuse it; one wanting exactly max_gas runs."""

import base64
import json

import pytest
import pytest_twisted

from abci_driver import Driver, Replica
from chaind.chain import txs
from chaind.crypto.addresses import to_bech32
from chaind.home import Home
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_service
from evm_client import rpc, sign, w3
from helpers import comet, in_thread, rest
from native_client import grpc_call
from native_txs import build_native

MAX_GAS = 300_000
NATIVE_LOG = f"tx gas limit {MAX_GAS + 1} exceeds block max gas {MAX_GAS}: invalid gas limit"
EVM_LOG = f"tx gas ({MAX_GAS + 1}) exceeds block gas limit ({MAX_GAS}): out of gas"


def home_with_max_gas(tmp_path, max_gas):
    """A home whose genesis lets a block use `max_gas` gas; start a node on it with node_factory()."""
    home = Home(tmp_path / "home")
    home.init("test", dev=True)
    doc = json.loads(home.genesis_file.read_text())
    doc["consensus_params"]["block"]["max_gas"] = str(max_gas)
    home.genesis_file.write_text(json.dumps(doc))
    return home


@pytest.fixture
def small_blocks(tmp_path):
    return home_with_max_gas(tmp_path, MAX_GAS)


def native_send(node, who, gas):
    key, view = node.dev_keys[who], node.app.view()
    number, _ = node.app.keepers["auth"].account(view, key.address)
    prefix = node.genesis.bech32_prefix
    msg = bank_tx.MsgSend(from_address=to_bech32(prefix, key.address), to_address=to_bech32(prefix, b"\x55" * 20),
                          amount=[coin_pb2.Coin(denom=node.genesis.base_denom, amount="1")])
    return build_native([(txs.MSG_SEND, msg)], key, node.genesis.chain_id, number,
                        view.accounts.get_nonce(key.address),
                        [(node.genesis.base_denom, 2 * node.app.next_base_fee() * gas)], gas)


def evm_send(node, who, gas):
    """(the signed Ethereum tx, its native envelope)."""
    raw = bytes(sign({"to": "0x" + "22" * 20, "value": 1, "nonce": 0, "gas": gas},
                     node.dev_keys[who].private_key).raw_transaction)
    return raw, txs.wrap_evm(raw, node.genesis.evm_chain_id, node.genesis.base_denom).raw


@pytest_twisted.inlineCallbacks
def broadcast_everywhere(node, raw):
    """The CheckTx answer (code, codespace, log) of each face that broadcasts a native tx."""
    b64 = base64.b64encode(raw).decode()
    answers = {}
    sync = (yield in_thread(comet, node, "broadcast_tx_sync", tx=b64))["result"]
    answers["broadcast_tx_sync"] = (sync["code"], sync["codespace"], sync["log"])
    commit = (yield in_thread(comet, node, "broadcast_tx_commit", tx=b64))["result"]
    assert commit["height"] == "0" and commit["tx_result"]["code"] == 0
    answers["broadcast_tx_commit"] = (commit["check_tx"]["code"], commit["check_tx"]["codespace"],
                                      commit["check_tx"]["log"])
    reply = yield in_thread(grpc_call, node, "BroadcastTx", tx_service.BroadcastTxRequest(
        tx_bytes=raw, mode=tx_service.BROADCAST_MODE_SYNC))
    answers["grpc"] = (reply.tx_response.code, reply.tx_response.codespace, reply.tx_response.raw_log)
    status, _, body = yield rest(node, "/cosmos/tx/v1beta1/txs", {"tx_bytes": b64, "mode": "BROADCAST_MODE_SYNC"})
    assert status == 200
    answers["rest"] = (body["tx_response"]["code"], body["tx_response"]["codespace"], body["tx_response"]["raw_log"])
    # CometBFT answers async before CheckTx: code 0, and the tx goes nowhere.
    async_ = (yield in_thread(comet, node, "broadcast_tx_async", tx=b64))["result"]
    assert async_["code"] == 0
    return answers


@pytest_twisted.inlineCallbacks
def nothing_pending(node, sender):
    """Asserts the pool is empty (both views) and returns the sender's pending nonce."""
    unconfirmed = (yield in_thread(comet, node, "num_unconfirmed_txs"))["result"]
    assert unconfirmed["n_txs"] == "0" and unconfirmed["total"] == "0" and len(node.mempool) == 0
    _, reply = yield rpc(node, "eth_getTransactionCount", "0x" + sender.hex(), "pending")
    return int(reply["result"], 16)


@pytest_twisted.inlineCallbacks
def test_a_native_tx_above_max_gas_is_refused_everywhere_and_one_at_max_gas_runs(small_blocks, node_factory):
    node = node_factory()
    sender = node.dev_keys[4].address
    over = native_send(node, 4, MAX_GAS + 1)
    answers = yield broadcast_everywhere(node, over)
    assert answers == dict.fromkeys(answers, (41, "sdk", NATIVE_LOG)), answers
    checked = (yield in_thread(comet, node, "check_tx", tx=base64.b64encode(over).decode()))["result"]
    assert (checked["code"], checked["codespace"], checked["log"]) == (41, "sdk", NATIVE_LOG)
    assert (yield nothing_pending(node, sender)) == 0
    assert node.app.head_nonce(sender) == 0
    # Exactly max_gas: admitted, and a block carries it.
    at_max = native_send(node, 4, MAX_GAS)
    committed = (yield in_thread(comet, node, "broadcast_tx_commit", tx=base64.b64encode(at_max).decode()))["result"]
    assert committed["check_tx"]["code"] == 0 and committed["tx_result"]["code"] == 0, committed
    assert committed["tx_result"]["gas_wanted"] == str(MAX_GAS) and int(committed["height"]) > 0
    assert (yield nothing_pending(node, sender)) == 1


@pytest_twisted.inlineCallbacks
def test_an_evm_tx_above_max_gas_is_refused_everywhere_and_one_at_max_gas_runs(small_blocks, node_factory):
    node = node_factory()
    sender = node.dev_keys[5].address
    over, envelope = evm_send(node, 5, MAX_GAS + 1)
    _, reply = yield rpc(node, "eth_sendRawTransaction", "0x" + over.hex())
    # geth's txpool.ErrGasLimit, as a plain error.
    assert reply["error"] == {"code": -32000, "message": "exceeds block gas limit"}
    answers = yield broadcast_everywhere(node, envelope)
    assert answers == dict.fromkeys(answers, (11, "sdk", EVM_LOG)), answers
    assert (yield nothing_pending(node, sender)) == 0
    at_max, _ = evm_send(node, 5, MAX_GAS)
    _, reply = yield rpc(node, "eth_sendRawTransaction", "0x" + at_max.hex())
    receipt = yield in_thread(w3(node).eth.wait_for_transaction_receipt, reply["result"], timeout=10,
                              poll_latency=0.05)
    assert receipt.status == 1
    assert (yield in_thread(w3(node).eth.get_transaction, reply["result"])).gas == MAX_GAS
    assert (yield nothing_pending(node, sender)) == 1


def _check_over_abci(port, genesis_doc, raws):
    replica = Replica(port)
    driver = Driver(genesis_doc)
    try:
        driver.handshake(replica)
        return [driver.check(replica, raw) for raw in raws]
    finally:
        replica.close()


@pytest_twisted.inlineCallbacks
def test_abci_check_tx_refuses_a_tx_above_max_gas(small_blocks, node_factory):
    node = node_factory(abci={"mode": "socket", "address": "127.0.0.1:0"})
    over = native_send(node, 4, MAX_GAS + 1)
    _, envelope = evm_send(node, 5, MAX_GAS + 1)
    at_max = native_send(node, 6, MAX_GAS)
    answers = yield in_thread(_check_over_abci, node.port_of("abci"), node.genesis.document, [over, envelope, at_max])
    assert [(a.code, a.codespace, a.log) for a in answers[:2]] == [(41, "sdk", NATIVE_LOG), (11, "sdk", EVM_LOG)]
    assert answers[2].code == 0 and answers[2].gas_wanted == MAX_GAS
    # Only the one at max_gas joined the pool CometBFT's mempool mirrors.
    assert [tx.gas for tx in node.mempool.txs()] == [MAX_GAS]


@pytest_twisted.inlineCallbacks
def test_max_gas_minus_one_is_no_limit(tmp_path, node_factory):
    home_with_max_gas(tmp_path, -1)
    node = node_factory()
    huge = native_send(node, 4, 10**9)
    committed = (yield in_thread(comet, node, "broadcast_tx_commit", tx=base64.b64encode(huge).decode()))["result"]
    assert committed["check_tx"]["code"] == 0 and committed["tx_result"]["code"] == 0, committed
