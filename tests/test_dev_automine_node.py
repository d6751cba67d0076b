"""A dev home mines as Hardhat's network does with auto and interval mining both on: a block for each tx as it
arrives, so the receipt is there for the first poll (hardhat-ethers and its chai matchers read it at once on a node
that answers hardhat_metadata), and the interval's blocks besides."""

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
