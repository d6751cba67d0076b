"""The dev namespace against a real node: snapshots and reverts, mining, time, setters, node info."""

import itertools
import re
import threading
import time

import pytest_twisted
from twisted.internet import reactor, task
from twisted.logger import formatEvent, globalLogPublisher
from web3 import Web3

from contracts import INIT, RUNTIME
from evm_client import DEV0, OTHER, call, error, rpc, send, sign, w3
from helpers import in_thread, until_height


@pytest_twisted.inlineCallbacks
def test_snapshot_revert_rewinds_the_chain(node):
    web3 = w3(node)
    start = node.app.height
    before = yield in_thread(web3.eth.get_balance, OTHER)
    snap = yield call(node, "evm_snapshot")
    assert snap == "0x0"
    receipts = []
    for nonce in range(3):
        receipts.append((yield in_thread(send, web3, {"to": OTHER, "value": 7, "nonce": nonce})))
    assert (yield in_thread(web3.eth.get_balance, OTHER)) == before + 21
    assert node.app.height == start + 3
    assert (yield call(node, "evm_revert", snap)) is True
    assert node.app.height == start
    assert (yield call(node, "eth_blockNumber")) == hex(start)
    assert (yield in_thread(web3.eth.get_balance, OTHER)) == before
    assert (yield call(node, "eth_getTransactionReceipt", Web3.to_hex(receipts[0].transactionHash))) is None
    assert (yield call(node, "eth_getTransactionCount", DEV0, "latest")) == "0x0"
    # Single-use, like Anvil's: the id is gone, and an unknown id is false too.
    assert (yield call(node, "evm_revert", snap)) is False
    assert (yield call(node, "evm_revert", "0x99")) is False
    # The chain goes on from the snapshot's head: the same nonce is usable again.
    again = yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": 0})
    assert again.blockNumber == start + 1 and again.status == 1
    assert (yield call(node, "evm_snapshot")) == "0x1"


@pytest_twisted.inlineCallbacks
def test_mining_and_time(node):
    height = node.app.height
    assert (yield call(node, "evm_mine")) == "0x0"
    assert node.app.height == height + 1
    assert (yield call(node, "anvil_mine", "0x5", "0x3c")) is None
    assert node.app.height == height + 6
    web3 = w3(node)
    blocks = yield in_thread(lambda: [web3.eth.get_block(h) for h in range(height + 1, height + 7)])
    gaps = [b.timestamp - a.timestamp for a, b in itertools.pairwise(blocks)]
    assert all(59 <= g <= 61 for g in gaps), gaps
    future = blocks[-1].timestamp + 1000
    assert (yield call(node, "evm_mine", future)) == "0x0"
    assert (yield in_thread(web3.eth.get_block, "latest")).timestamp == future
    offset = yield call(node, "evm_increaseTime", 3600)
    assert isinstance(offset, int) and offset >= 3600 + 999
    yield call(node, "evm_mine")
    assert (yield in_thread(web3.eth.get_block, "latest")).timestamp >= future + 3600
    err = yield error(node, "evm_setNextBlockTimestamp", 5)
    assert err["code"] == -32000
    err = yield error(node, "anvil_mine", "zz")
    assert err["code"] == -32602


@pytest_twisted.inlineCallbacks
def test_mine_many_blocks(node):
    height = node.app.height
    yield call(node, "hardhat_mine", hex(1000))
    assert node.app.height == height + 1000
    web3 = w3(node)
    block = yield in_thread(web3.eth.get_block, height + 500)
    assert block.number == height + 500 and block.transactions == []
    parent = yield in_thread(web3.eth.get_block, height + 499)
    assert block.parentHash == parent.hash
    # The chain goes on after the run: a tx lands in the next block.
    receipt = yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": 0})
    assert receipt.blockNumber == height + 1001


@pytest_twisted.inlineCallbacks
def test_state_setters(node):
    web3 = w3(node)
    height = node.app.height
    target = "0x" + "33" * 20
    assert (yield call(node, "anvil_setBalance", target, hex(10**21))) is None
    assert (yield in_thread(web3.eth.get_balance, target)) == 10**21
    assert node.app.height == height
    yield call(node, "hardhat_setBalance", target, "0x5")
    assert (yield in_thread(web3.eth.get_balance, target)) == 5
    yield call(node, "anvil_setCode", target, "0x" + RUNTIME.hex())
    assert (yield in_thread(web3.eth.get_code, target)) == RUNTIME
    yield call(node, "anvil_setNonce", target, "0x7")
    assert (yield in_thread(web3.eth.get_transaction_count, target)) == 7
    assert (yield call(node, "anvil_setStorageAt", target, "0x0", "0x" + "00" * 31 + "2a")) is True
    assert (yield in_thread(web3.eth.get_storage_at, target, 0)) == (42).to_bytes(32, "big")
    for method, params in (("anvil_setBalance", ["0x22", "0x1"]), ("anvil_setBalance", [target, "zz"]),
                           ("anvil_setCode", [target, "0x1"]), ("anvil_setStorageAt", [target, "0x0", "0x01"])):
        err = yield error(node, method, *params)
        assert err["code"] == -32602, (method, err)
    # A tx still goes through on the amended head; its tip goes to the coinbase set.
    coinbase = "0x" + "55" * 20
    assert (yield call(node, "anvil_setCoinbase", coinbase)) is None
    receipt = yield in_thread(send, web3, {"to": target, "value": 1, "nonce": 0, "gas": 100000,
                                           "maxPriorityFeePerGas": 3})
    assert receipt.status == 1
    assert (yield in_thread(web3.eth.get_balance, coinbase)) == 3 * receipt.gasUsed


@pytest_twisted.inlineCallbacks
def test_dev_namespace_off(node_factory):
    node = node_factory(json_rpc={"api": "eth,net,web3"})
    err = yield error(node, "evm_snapshot")
    assert err["code"] == -32601 and "[json-rpc] api" in err["message"]


@pytest_twisted.inlineCallbacks
def test_dev_namespace_under_cometbft_says_why_not(node_factory):
    node = node_factory(abci={"mode": "socket", "address": "127.0.0.1:0"})
    assert "dev" in node.settings.json_rpc.api
    err = yield error(node, "anvil_mine", "0x2")
    assert err["code"] == -32601 and "[abci] mode = socket" in err["message"]
    assert node.app.options.allow_impersonated is False


@pytest_twisted.inlineCallbacks
def test_impersonation(node):
    web3 = w3(node)
    whale = "0x" + "77" * 20
    yield call(node, "anvil_setBalance", whale, hex(10**20))
    err = yield error(node, "eth_sendTransaction", {"from": whale, "to": OTHER, "value": "0x5"})
    assert err["message"] == "unknown account"
    assert (yield call(node, "anvil_impersonateAccount", whale)) is None
    tx_hash = yield call(node, "eth_sendTransaction", {"from": whale, "to": OTHER, "value": "0x5"})
    receipt = yield in_thread(web3.eth.wait_for_transaction_receipt, tx_hash, 10, 0.05)
    assert receipt.status == 1 and receipt["from"].lower() == whale
    tx = yield call(node, "eth_getTransactionByHash", tx_hash)
    assert tx["from"].lower() == whale and tx["hash"] == tx_hash
    trace = yield call(node, "debug_traceTransaction", tx_hash, {"tracer": "callTracer"})
    assert trace["from"].lower() == whale and trace["value"] == "0x5"
    deploy = yield call(node, "eth_sendTransaction", {"from": whale, "data": "0x" + INIT.hex()})
    deployed = yield in_thread(web3.eth.wait_for_transaction_receipt, deploy, 10, 0.05)
    assert (yield in_thread(web3.eth.get_code, deployed.contractAddress)) == RUNTIME
    yield call(node, "hardhat_stopImpersonatingAccount", whale)
    err = yield error(node, "eth_sendTransaction", {"from": whale, "to": OTHER, "value": "0x5"})
    assert err["message"] == "unknown account"
    yield call(node, "anvil_autoImpersonateAccount", True)
    anyone = "0x" + "78" * 20
    yield call(node, "anvil_setBalance", anyone, hex(10**20))
    tx_hash = yield call(node, "eth_sendTransaction", {"from": anyone, "to": OTHER, "value": "0x1"})
    assert (yield in_thread(web3.eth.wait_for_transaction_receipt, tx_hash, 10, 0.05)).status == 1


def test_impersonated_txs_never_enter_signed_roads(node, tmp_path):
    from chaind.chain import errors, txs
    from chaind.chain.app import App
    from chaind.store.db import Database

    g = node.app.genesis
    fields = {"chainId": 9000, "nonce": 0, "gas": 21000, "to": OTHER, "value": 1, "data": b"",
              "maxFeePerGas": 10**10, "maxPriorityFeePerGas": 0}
    unsigned = txs.wrap_impersonated(fields, bytes.fromhex("77" * 20), g.evm_chain_id, g.base_denom)
    assert unsigned.impersonated
    # broadcast_tx, gRPC BroadcastTx and eth_sendRawTransaction all check through check_tx.
    for check in (lambda: node.app.check_tx(unsigned.raw), lambda: node.app.check_decoded(unsigned)):
        try:
            check()
        except errors.TxError as e:
            assert "impersonated" in e.log
        else:
            raise AssertionError("an impersonated tx passed check_tx")
    # The same chain on an App that does not allow impersonation (its node serves no dev namespace).
    db = Database(tmp_path / "plain.db")
    try:
        App(db, g).check_decoded(unsigned, impersonated=True)
    except errors.TxError as e:
        assert "impersonated" in e.log
    else:
        raise AssertionError("a chain that does not allow impersonation took the tx")
    finally:
        db.close()


@pytest_twisted.inlineCallbacks
def test_dump_load_and_reset(node_factory):
    first = node_factory("a")
    second = node_factory("b")
    for n in (first, second):
        yield until_height(n, 1)
    target = "0x" + "44" * 20
    yield call(first, "anvil_setBalance", target, hex(12345))
    yield call(first, "anvil_setCode", target, "0x" + RUNTIME.hex())
    yield call(first, "anvil_setStorageAt", target, "0x1", "0x" + "00" * 31 + "07")
    lines = []
    observer = lambda event: lines.append(formatEvent(event))   # noqa: E731
    globalLogPublisher.addObserver(observer)
    try:
        dump = yield call(first, "anvil_dumpState")
        assert dump.startswith("0x1f8b")    # gzip, as Anvil's
        assert (yield call(second, "anvil_loadState", dump)) is True
        yield in_thread(time.sleep, 0.05)   # the lines are logged on the reactor, after the answer
    finally:
        globalLogPublisher.removeObserver(observer)
    # Long imports and exports say how far they are; a short one says once that it is done.
    dumped = [line for line in lines if line.startswith("anvil_dumpState: ")]
    assert len(dumped) == 1 and re.fullmatch(r"anvil_dumpState: ([\d,]+)/\1 entries \(100%\), [\d,.]+ entries/s, done",
                                             dumped[0]), dumped
    loaded = [line for line in lines if line.startswith("anvil_loadState: ")]
    assert loaded and re.fullmatch(r"anvil_loadState: ([\d,]+)/\1 entries \(100%\), [\d,.]+ entries/s, done",
                                   loaded[-1]), loaded
    web3 = w3(second)
    assert (yield in_thread(web3.eth.get_balance, target)) == 12345
    assert (yield in_thread(web3.eth.get_code, target)) == RUNTIME
    assert (yield in_thread(web3.eth.get_storage_at, target, 1))[-1] == 7
    err = yield error(second, "anvil_loadState", "0x00")
    assert err["code"] == -32602 and "Failed to decode state dump" in err["message"]
    # The loaded chain still takes txs.
    receipt = yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": 0})
    assert receipt.status == 1
    yield call(first, "anvil_mine", "0x5")
    assert (yield call(first, "anvil_reset")) is None
    assert first.app.height == 1
    assert (yield in_thread(w3(first).eth.get_balance, target)) == 0
    receipt = yield in_thread(send, w3(first), {"to": OTHER, "value": 1, "nonce": 0})
    assert receipt.blockNumber == 2
    err = yield error(first, "anvil_reset", {"forking": {"jsonRpcUrl": "http://x"}})
    assert err["code"] == -32602


@pytest_twisted.inlineCallbacks
def test_revert_tells_subscribers_and_filters(node):
    from chaind.events import types as ev

    web3 = w3(node)
    snap = yield call(node, "evm_snapshot")
    head = node.app.height
    block_filter = yield call(node, "eth_newBlockFilter")
    yield call(node, "evm_setAutomine", False)
    pending = yield call(node, "eth_sendTransaction", {"from": DEV0, "to": OTHER, "value": "0x1"})
    yield call(node, "evm_setAutomine", True)
    yield call(node, "evm_mine")
    yield call(node, "anvil_mine", "0x3")
    heads = node.bus.subscribe(lambda e: isinstance(e, ev.NewBlock))
    assert (yield call(node, "evm_revert", snap)) is True
    announced = heads.drain()
    assert [e.block.height for e in announced] == [head]
    assert announced[0].block.hash == node.app.head[1].hash
    # The filter keeps nothing of the blocks that are gone.
    changes = yield call(node, "eth_getFilterChanges", block_filter)
    assert changes == [Web3.to_hex(node.app.head[1].hash)]
    assert (yield call(node, "eth_getTransactionByHash", pending)) is None
    assert (yield in_thread(web3.eth.get_transaction_count, DEV0)) == 0


@pytest_twisted.inlineCallbacks
def test_interval_mining_and_dropping(node):
    yield call(node, "evm_setAutomine", False)
    tx_hash = yield call(node, "eth_sendTransaction", {"from": DEV0, "to": OTHER, "value": "0x1"})
    assert (yield call(node, "anvil_dropTransaction", tx_hash)) == tx_hash
    assert (yield call(node, "eth_getTransactionByHash", tx_hash)) is None
    assert (yield call(node, "anvil_dropTransaction", tx_hash)) is None
    height = node.app.height
    yield call(node, "evm_setIntervalMining", 1)
    yield until_height(node, height + 2)
    assert node.app.height >= height + 2
    yield call(node, "evm_setIntervalMining", 0)
    assert (yield call(node, "hardhat_getAutomine")) is False


@pytest_twisted.inlineCallbacks
def test_a_receipt_poll_waits_for_the_block_being_written(node):
    """In instant mode the send is answered at once and its block is made; a receipt poll that comes while the
    block is being written waits for it and answers with the receipt, not null. A tx that waits in the pool (a
    nonce gap) is answered null at once."""
    assert node.producer.automine
    gap = yield call(node, "eth_sendRawTransaction",
                     Web3.to_hex(sign({"to": OTHER, "value": 1, "nonce": 5}).raw_transaction))
    assert (yield call(node, "eth_getTransactionReceipt", gap)) is None
    height = node.app.height
    assert len(node.producer.mempool) == 1
    hold = threading.Event()
    # The writer is busy: the tx's block cannot be made until `hold` is set. (With the pool not empty, the
    # tx goes the pool's way: checked on the checker, answered, then built.)
    node.producer.writer.callInThread(hold.wait, 10)
    tx_hash = yield call(node, "eth_sendRawTransaction",
                         Web3.to_hex(sign({"to": OTHER, "value": 1, "nonce": 0}).raw_transaction))
    polled = rpc(node, "eth_getTransactionReceipt", tx_hash)
    yield task.deferLater(reactor, 0.3, lambda: None)
    assert not polled.called and node.app.height == height
    hold.set()
    receipt = (yield polled)[1]["result"]
    assert receipt["status"] == "0x1" and int(receipt["blockNumber"], 16) == height + 1
    assert node.app.height == height + 1 and len(node.producer.mempool) == 1


@pytest_twisted.inlineCallbacks
def test_one_sender_in_instant_mode_is_checked_and_built_in_one_writer_job(node):
    """With nothing pending, a sent tx is checked on the writer and its block made right after: it is pending
    (by hash, in the pending nonce) as soon as the send is answered, and a receipt poll right after waits for
    its block. A refused tx answers its error and leaves no block, nothing pending and the clock as set; a tx
    behind a nonce gap goes to the pool."""
    assert node.producer.automine and not len(node.producer.mempool)
    checked_before = node.producer.failed_txs
    height = node.app.height
    for nonce in range(20):
        raw = Web3.to_hex(sign({"to": OTHER, "value": 1, "nonce": nonce}).raw_transaction)
        tx_hash = yield call(node, "eth_sendRawTransaction", raw)
        pending = (yield call(node, "eth_getTransactionByHash", tx_hash))
        assert pending is not None and pending["hash"] == tx_hash
        receipt = yield call(node, "eth_getTransactionReceipt", tx_hash)
        assert receipt is not None and receipt["status"] == "0x1"
        assert int(receipt["blockNumber"], 16) == height + nonce + 1
    assert node.app.height == height + 20 and not len(node.producer.mempool)
    # Refused on the writer: a used nonce, then more value than the sender has. The next block's time, set
    # before, is still the one the next block gets.
    head_time = node.app.head[0].time_ns // 10**9
    yield call(node, "evm_setNextBlockTimestamp", hex(head_time + 1000))
    for bad, why in (({"to": OTHER, "value": 1, "nonce": 3}, "nonce too low"),
                     ({"to": OTHER, "value": 10**30, "nonce": 20}, "insufficient funds")):
        refused = yield error(node, "eth_sendRawTransaction", Web3.to_hex(sign(bad).raw_transaction))
        assert why in refused["message"], refused
    assert node.producer.failed_txs == checked_before + 2
    assert node.app.height == height + 20 and not len(node.producer.mempool)
    tx_hash = yield call(node, "eth_sendRawTransaction",
                         Web3.to_hex(sign({"to": OTHER, "value": 1, "nonce": 20}).raw_transaction))
    receipt = yield call(node, "eth_getTransactionReceipt", tx_hash)
    block = yield call(node, "eth_getBlockByNumber", receipt["blockNumber"], False)
    assert int(block["timestamp"], 16) == head_time + 1000
    assert node.app.head[0].time_ns == (head_time + 1000) * 10**9      # exactly the time set, not taken before
    # Behind a nonce gap: pooled, no block, its receipt null; the pending nonce does not count it.
    gap = yield call(node, "eth_sendRawTransaction",
                     Web3.to_hex(sign({"to": OTHER, "value": 1, "nonce": 30}).raw_transaction))
    assert (yield call(node, "eth_getTransactionReceipt", gap)) is None
    assert len(node.producer.mempool) == 1 and node.app.height == height + 21
    assert int((yield call(node, "eth_getTransactionCount", DEV0, "pending")), 16) == 21
