"""eth_call and eth_estimateGas at the pending block run on the latest state as the next block would be made now
(its number and time, the dev clock's next timestamp included), and eth_estimateGas estimates there by default, as
cosmos/evm's and Hardhat's nodes do: a contract whose gas depends on the block's time gets an estimate that holds
in the block the tx goes into."""

import time

import pytest_twisted

from chaind.consensus.abci.forward import CometForwarder
from contracts import assemble, init_code
from evm_client import DEV0, call, send, w3
from helpers import in_thread, until_height

# Stores TIMESTAMP in slot 0 unless it is there already (as Uniswap v3's oracle writes once a second).
STAMPER = assemble([
    "TIMESTAMP", "PUSH0", "SLOAD", "EQ", ("REF", "same"), "JUMPI",
    "TIMESTAMP", "PUSH0", "SSTORE",
    ("LABEL", "same"), "JUMPDEST", "STOP",
])
# Returns (NUMBER, TIMESTAMP).
CLOCK = assemble(["NUMBER", "PUSH0", "MSTORE", "TIMESTAMP", ("PUSH", 32, 1), "MSTORE", ("PUSH", 64, 1), "PUSH0",
                  "RETURN"])


def _deploy(web3, runtime, nonce):
    receipt = send(web3, {"data": init_code(runtime), "gas": 200_000, "nonce": nonce})
    assert receipt["status"] == 1
    return receipt["contractAddress"]


@pytest_twisted.inlineCallbacks
def test_the_pending_block_runs_at_the_next_number_and_time_and_estimates_there(node_factory):
    # No interval blocks during the test: each block is a tx's (automine).
    node = node_factory(chain={"block_interval": 600.0, "empty_blocks": True, "automine": True})
    yield until_height(node, 1)
    web3 = w3(node)
    stamper = yield in_thread(_deploy, web3, STAMPER, 0)
    clock = yield in_thread(_deploy, web3, CLOCK, 1)
    stamped = yield in_thread(send, web3, {"to": stamper, "gas": 100_000, "nonce": 2})
    assert stamped["status"] == 1
    head = node.app.head[0]
    head_seconds = head.time_ns // 10**9
    assert int((yield call(node, "eth_getStorageAt", stamper, "0x0", "latest")), 16) == head_seconds

    next_seconds = head_seconds + 100
    yield call(node, "evm_setNextBlockTimestamp", hex(next_seconds))
    latest = yield call(node, "eth_call", {"to": clock}, "latest")
    pending = yield call(node, "eth_call", {"to": clock}, "pending")
    assert (int(latest[2:66], 16), int(latest[66:], 16)) == (head.height, head_seconds)
    assert (int(pending[2:66], 16), int(pending[66:], 16)) == (head.height + 1, next_seconds)
    # A block override still wins over the pending block's fields.
    overridden = yield call(node, "eth_call", {"to": clock}, "pending", None, {"time": hex(next_seconds + 5)})
    assert int(overridden[66:], 16) == next_seconds + 5

    # The estimate includes the store the next block's time makes, so a tx with exactly that gas succeeds.
    at_latest = int((yield call(node, "eth_estimateGas", {"from": DEV0, "to": stamper}, "latest")), 16)
    estimate = int((yield call(node, "eth_estimateGas", {"from": DEV0, "to": stamper})), 16)
    assert estimate > at_latest + 2_000     # the SSTORE of a changed slot
    receipt = yield in_thread(send, web3, {"to": stamper, "gas": estimate, "nonce": 3})
    assert receipt["status"] == 1
    assert int((yield call(node, "eth_getStorageAt", stamper, "0x0", "latest")), 16) == next_seconds



def test_under_cometbft_the_pending_block_is_timed_now_after_the_head(node):
    # CometBFT times its blocks (its proposer's clock): the forwarder's guess is now, never before the head's + 1 ms.
    forwarder = CometForwarder(node.app, None, "127.0.0.1:1", None)
    before = time.time_ns()
    guess = forwarder.pending_time_ns()
    assert before <= guess <= time.time_ns()
    assert guess >= node.app.head[0].time_ns + 10**6
