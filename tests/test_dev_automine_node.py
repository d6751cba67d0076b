"""A dev home mines as Hardhat's network does with auto and interval mining both on: a block for each tx as it
arrives, so the receipt is there for the first poll (hardhat-ethers and its chai matchers read it at once on a node
that answers hardhat_metadata), and the interval's blocks besides."""

import threading
import time

import pytest_twisted

from chaind import config
from chaind.home import Home
from evm_client import OTHER, sign, w3
from helpers import in_thread, until, until_height


def test_a_dev_homes_config_automines_between_its_interval_blocks(tmp_path):
    dev = config.load(Home(tmp_path / "dev").init("dev", dev=True).config_file).chain
    assert (dev.automine, dev.block_interval, dev.empty_blocks) == (True, 1.0, True)
    plain = config.load(Home(tmp_path / "plain").init("plain").config_file).chain
    assert (plain.automine, plain.block_interval) == (False, 1.0)


def _send_and_read_at_once(node):
    web3 = w3(node)
    assert web3.provider.make_request("hardhat_getAutomine", [])["result"] is True
    tx_hash = web3.eth.send_raw_transaction(sign({"to": OTHER, "value": 1, "nonce": 0}).raw_transaction)
    # One poll, right after the send: the tx's block is made (or being made) already.
    receipt = web3.provider.make_request("eth_getTransactionReceipt", ["0x" + bytes(tx_hash).hex()])["result"]
    assert receipt is not None and receipt["status"] == "0x1"
    return int(receipt["blockNumber"], 16)


@pytest_twisted.inlineCallbacks
def test_a_tx_gets_its_block_at_once_between_interval_blocks(node_factory):
    # An interval far longer than the test: only automine can have made the tx's block.
    node = node_factory(chain={"block_interval": 600.0, "empty_blocks": True, "automine": True})
    yield until_height(node, 1)
    height = yield in_thread(_send_and_read_at_once, node)
    assert height == 2


@pytest_twisted.inlineCallbacks
def test_interval_blocks_go_on_without_txs_under_automine(node_factory):
    node = node_factory(chain={"block_interval": 0.2, "empty_blocks": True, "automine": True})
    yield until_height(node, 1)
    yield until(lambda: node.app.height >= 4, "three empty interval blocks", timeout=20)
    assert node.producer.automine


def _send_gapped(node):
    web3 = w3(node)
    web3.eth.send_raw_transaction(sign({"to": OTHER, "value": 1, "nonce": 5}).raw_transaction)


@pytest_twisted.inlineCallbacks
def test_a_tx_behind_a_nonce_gap_makes_no_empty_blocks(node_factory):
    # Automine makes a block for the txs that can go in one; a pending tx that cannot (its nonce ahead of its
    # sender's) asks for none, or the node would make empty blocks as fast as it can while it waits.
    node = node_factory(chain={"block_interval": 600.0, "empty_blocks": True, "automine": True})
    yield until_height(node, 1)
    yield in_thread(_send_gapped, node)
    yield in_thread(time.sleep, 1.0)
    assert node.app.height == 1 and len(node.mempool) == 1


def _poll_once(node, tx_hash):
    return w3(node).provider.make_request("eth_getTransactionReceipt", [tx_hash])["result"]


@pytest_twisted.inlineCallbacks
def test_a_tx_sent_while_a_block_is_made_has_its_receipt_at_the_first_poll(node_factory):
    # The writer is held (as while an interval block is made) when the tx comes: it waits in the pool, and the
    # poll right after the send waits for the block automine makes next rather than answer null.
    node = node_factory(chain={"block_interval": 600.0, "empty_blocks": True, "automine": True})
    yield until_height(node, 1)
    gate = threading.Event()
    held = node.producer.exclusive(gate.wait, 30)
    raw = sign({"to": OTHER, "value": 1, "nonce": 0}).raw_transaction
    tx_hash = yield in_thread(lambda: "0x" + bytes(w3(node).eth.send_raw_transaction(raw)).hex())
    poll = in_thread(_poll_once, node, tx_hash)
    yield in_thread(time.sleep, 0.3)
    assert not poll.called and node.app.height == 1
    gate.set()
    yield held
    receipt = yield poll
    assert receipt is not None and receipt["status"] == "0x1" and int(receipt["blockNumber"], 16) == 2
