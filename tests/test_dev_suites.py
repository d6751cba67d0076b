"""What Hardhat and Foundry suites do to a dev node, driven by web3.py: loadFixture (snapshot, deploy,
revert) 100 times, and a time-lock opened by evm_increaseTime + evm_mine."""

import pytest
import pytest_twisted
from web3 import Web3
from web3.exceptions import TransactionNotFound

from evm_client import DEV0
from helpers import in_thread

# A time lock: its runtime reverts while block.timestamp < UNLOCK and succeeds after.
#   PUSH4 unlock, TIMESTAMP, LT, PUSH1 revert, JUMPI, STOP, revert: JUMPDEST, PUSH1 0, DUP1, REVERT
_LOCK_RUNTIME = "63{unlock:08x}421060{dest:02x}57005b600080fd"
# PUSH1 size, PUSH1 offset, PUSH1 0, CODECOPY, PUSH1 size, PUSH1 0, RETURN; the runtime follows.
_INIT = "6010600c60003960106000f3"


def lock_init(unlock):
    return "0x" + _INIT + _LOCK_RUNTIME.format(unlock=unlock, dest=11)


def fixture_rounds(url, rounds):
    """Hardhat's loadFixture as a suite runs it: deploy once, then per test revert to the snapshot
    and take a new one; each test deploys its own contract and checks the chain started clean."""
    web3 = Web3(Web3.HTTPProvider(url))
    base_nonce = web3.eth.get_transaction_count(DEV0)
    base_height = web3.eth.block_number
    snapshot = web3.provider.make_request("evm_snapshot", [])["result"]
    for _ in range(rounds):
        tx_hash = web3.eth.send_transaction({"from": DEV0, "data": lock_init(0)})
        receipt = web3.eth.wait_for_transaction_receipt(tx_hash, timeout=10, poll_latency=0.01)
        assert receipt.status == 1 and web3.eth.get_code(receipt.contractAddress)
        assert web3.eth.get_transaction_count(DEV0) == base_nonce + 1
        assert web3.provider.make_request("evm_revert", [snapshot])["result"] is True
        # The deployment is gone: the same nonce, so the same address, is free again.
        assert web3.eth.get_code(receipt.contractAddress) == b""
        assert web3.eth.get_transaction_count(DEV0) == base_nonce
        assert web3.eth.block_number == base_height
        with pytest.raises(TransactionNotFound):
            web3.eth.get_transaction_receipt(tx_hash)
        snapshot = web3.provider.make_request("evm_snapshot", [])["result"]
    return receipt.contractAddress


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_load_fixture_a_hundred_times(node):
    address = yield in_thread(fixture_rounds, f"http://127.0.0.1:{node.port_of('json-rpc')}", 100)
    # Every round deployed at the same address: each one started from the same state.
    assert address == Web3.to_checksum_address(
        Web3.keccak(bytes.fromhex("d694") + bytes.fromhex(DEV0[2:]) + b"\x80")[-20:])


def time_lock(url):
    web3 = Web3(Web3.HTTPProvider(url))
    now = web3.eth.get_block("latest").timestamp
    unlock = now + 86400
    tx_hash = web3.eth.send_transaction({"from": DEV0, "data": lock_init(unlock)})
    lock = web3.eth.wait_for_transaction_receipt(tx_hash, timeout=10, poll_latency=0.01).contractAddress
    early = web3.eth.send_transaction({"from": DEV0, "to": lock, "gas": 50000})
    assert web3.eth.wait_for_transaction_receipt(early, timeout=10, poll_latency=0.01).status == 0
    offset = web3.provider.make_request("evm_increaseTime", [86400])["result"]
    assert offset >= 86400
    assert web3.provider.make_request("evm_mine", [])["result"] == "0x0"
    assert web3.eth.get_block("latest").timestamp >= unlock
    late = web3.eth.send_transaction({"from": DEV0, "to": lock, "gas": 50000})
    assert web3.eth.wait_for_transaction_receipt(late, timeout=10, poll_latency=0.01).status == 1
    return unlock


@pytest_twisted.inlineCallbacks
def test_time_lock_opens_after_increase_time(node):
    unlock = yield in_thread(time_lock, f"http://127.0.0.1:{node.port_of('json-rpc')}")
    # Native modules read the same clock: the head's CometBFT time is past the unlock too.
    assert node.app.head[0].time_ns // 10**9 >= unlock
