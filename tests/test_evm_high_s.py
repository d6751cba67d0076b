"""A signed EVM tx's high-s twin (EIP-2's malleable signature), of every type, is refused as geth refuses it on every
path that takes one: eth_sendRawTransaction (HTTP, WS), broadcast_tx_*, BroadcastTx, ABCI CheckTx, a decided block."""

import base64
import json
import shutil

import pytest
import pytest_twisted
from eth_account import Account
from eth_hash.auto import keccak
from websockets.sync.client import connect

import high_s
from abci_driver import Driver, Replica
from chaind.chain import txs
from chaind.home import Home
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_service
from chaind.pb.tendermint.abci import types_pb2 as pb
from evm_client import DEV0, DEV0_KEY, OTHER, rpc, w3
from helpers import comet, in_thread, rest, ws_url
from native_client import grpc_call
from random_evm_txs import BUILDER

MESSAGE = "invalid sender: invalid transaction v, r, s values"
LOG = ("couldn't retrieve sender address from the ethereum transaction: invalid transaction v, r, s values: "
       "tx intended signer does not match the given signer")
FEES = {2: {"maxFeePerGas": 10**10, "maxPriorityFeePerGas": 10**9},
        1: {"gasPrice": 10**10, "accessList": [{"address": OTHER, "storageKeys": []}]},
        0: {"gasPrice": 10**10}}


def _signed(type_id, nonce, key=DEV0_KEY):
    """eth_account's tx of `type_id` (always signed with a low s) and its high-s twin, which recovers the same
    sender: only the s makes it invalid."""
    low = bytes(Account.sign_transaction({"chainId": 9000, "gas": 30000, "nonce": nonce, "to": OTHER, "value": 5,
                                          **FEES[type_id]}, key).raw_transaction)
    assert (low[0] if low[0] < 0xc0 else 0) == type_id
    high = high_s.twin(low)
    assert BUILDER.decode(high).sender == BUILDER.decode(low).sender
    return low, high


def _ws_send(node, raw):
    with connect(ws_url(node)) as ws:
        ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_sendRawTransaction",
                            "params": ["0x" + raw.hex()]}))
        return json.loads(ws.recv(timeout=10))


def _b64(raw):
    return base64.b64encode(raw).decode()


@pytest.mark.parametrize("type_id", [2, 1, 0])
@pytest_twisted.inlineCallbacks
def test_a_high_s_tx_is_refused_by_every_face(node, type_id):
    web3 = w3(node)
    nonce = yield in_thread(web3.eth.get_transaction_count, DEV0)
    low, high = _signed(type_id, nonce)
    _, reply = yield rpc(node, "eth_sendRawTransaction", "0x" + high.hex())
    assert reply["error"] == {"code": -32000, "message": MESSAGE}
    reply = yield in_thread(_ws_send, node, high)
    assert reply["error"] == {"code": -32000, "message": MESSAGE}
    envelope = high_s.envelope(txs.wrap_evm(low, 9000, node.genesis.base_denom).raw, high)
    for method in ("check_tx", "broadcast_tx_sync"):
        result = (yield in_thread(comet, node, method, tx=_b64(envelope)))["result"]
        assert (result["code"], result["codespace"], result["log"]) == (24, "sdk", LOG), method
    # cosmos.tx.v1beta1.Service's BroadcastTx, over gRPC and REST.
    request = tx_service.BroadcastTxRequest(tx_bytes=envelope, mode=tx_service.BROADCAST_MODE_SYNC)
    answer = (yield in_thread(grpc_call, node, "BroadcastTx", request)).tx_response
    assert (answer.code, answer.codespace, answer.raw_log) == (24, "sdk", LOG)
    status, _, body = yield rest(node, "/cosmos/tx/v1beta1/txs", {"tx_bytes": _b64(envelope),
                                                                  "mode": "BROADCAST_MODE_SYNC"})
    assert status == 200 and (body["tx_response"]["code"], body["tx_response"]["raw_log"]) == (24, LOG)
    committed = (yield in_thread(comet, node, "broadcast_tx_commit", tx=_b64(envelope)))["result"]
    assert committed["height"] == "0" and committed["check_tx"]["code"] == 24 and committed["check_tx"]["log"] == LOG
    # broadcast_tx_async answers before CheckTx, as CometBFT's does: the refusal shows as nothing pending.
    assert (yield in_thread(comet, node, "broadcast_tx_async", tx=_b64(envelope)))["result"]["code"] == 0
    # Nothing pending, the nonce where it was, the twin unknown.
    for tag in ("latest", "pending"):
        assert (yield in_thread(web3.eth.get_transaction_count, DEV0, tag)) == nonce
    _, content = yield rpc(node, "txpool_content")
    assert content["result"] == {"pending": {}, "queued": {}}
    _, found = yield rpc(node, "eth_getTransactionByHash", "0x" + keccak(high).hex())
    assert found["result"] is None
    # The same tx with its low s is taken and runs: the s alone was refused (a twin in the pool would have made
    # it a replacement at the same price, refused).
    sent = yield in_thread(web3.eth.send_raw_transaction, low)
    receipt = yield in_thread(web3.eth.wait_for_transaction_receipt, sent, 10, 0.05)
    assert receipt.status == 1 and receipt.transactionHash == keccak(low)
    assert (yield in_thread(web3.eth.get_transaction_count, DEV0)) == nonce + 1
    block = yield in_thread(web3.eth.get_block, receipt.blockNumber)
    assert block.transactions == [keccak(low)]


def _decided_block(ports, genesis_doc, envelopes, valid, time_ns):
    """CheckTx, PrepareProposal and ProcessProposal of the high-s `envelopes` on the first replica, then a block
    CometBFT decided carrying them and `valid` finalized and committed on every replica: (check answers, the
    proposal's txs, the ProcessProposal status, each replica's FinalizeBlock response)."""
    replicas = [Replica(port) for port in ports]
    try:
        driver = Driver(genesis_doc)
        for replica in replicas:
            assert driver.handshake(replica) == 0
        first = replicas[0]
        checks = [driver.check(first, raw) for raw in envelopes]
        proposed = driver.propose(first, [*envelopes, valid], time_ns)
        block = driver.decide([*envelopes, valid], time_ns)
        status = driver.process(first, block).status
        responses = [driver.finalize(replica, block) for replica in replicas]
        for replica in replicas:
            replica.consensus.call("commit", pb.RequestCommit())
        return checks, proposed, status, responses
    finally:
        for replica in replicas:
            replica.close()


@pytest_twisted.inlineCallbacks
def test_a_decided_block_fails_high_s_txs_the_same_way_on_every_replica(node_factory, tmp_path):
    Home(tmp_path / "a").init("test", dev=True)
    shutil.copytree(tmp_path / "a", tmp_path / "b")          # one genesis, two replicas
    nodes = [node_factory(home, abci={"mode": "socket", "address": "127.0.0.1:0"}) for home in ("a", "b")]
    denom = nodes[0].genesis.base_denom
    envelopes = []
    for type_id in (2, 1, 0):
        low, high = _signed(type_id, 0)
        envelopes.append(high_s.envelope(txs.wrap_evm(low, 9000, denom).raw, high))
    valid = txs.wrap_evm(_signed(2, 0)[0], 9000, denom).raw
    time_ns = nodes[0].genesis.genesis_time_ns + 5 * 10**9
    checks, proposed, status, responses = yield in_thread(
        _decided_block, [n.port_of("abci") for n in nodes], nodes[0].genesis.document, envelopes, valid, time_ns)
    assert [(c.code, c.codespace, c.log) for c in checks] == [(24, "sdk", LOG)] * 3
    assert proposed == [valid]
    assert status == pb.ResponseProcessProposal.REJECT
    # The block as CometBFT decided it: the three fail as CheckTx refused them, the valid one runs, and both
    # replicas answer the same bytes (results and app hash).
    first = responses[0]
    assert [(r.code, r.codespace, r.log) for r in first.tx_results[:3]] == [(24, "sdk", LOG)] * 3
    assert first.tx_results[3].code == 0
    assert responses[1].SerializeToString() == first.SerializeToString()
    sender = bytes.fromhex(DEV0[2:])
    assert [n.app.head_nonce(sender) for n in nodes] == [1, 1]
