"""The tests' waits (helpers.until_block, until_height, until_tx, until): they fire on the block that brings their
condition about, fail after their deadline saying what they waited for, and leave nothing subscribed."""

import pytest
import pytest_twisted
from twisted.internet import defer

from evm_client import OTHER, send, w3
from helpers import in_thread, until, until_block, until_height, until_tx


@pytest_twisted.inlineCallbacks
def test_until_height_fires_on_the_block_that_reaches_it_and_unsubscribes(node):
    before, subscribers = node.app.height, len(node.bus)
    waiting = until_height(node, before + 1)
    assert not waiting.called and len(node.bus) == subscribers + 1      # the test chain makes no empty blocks
    receipt = yield in_thread(send, w3(node), {"to": OTHER, "value": 1, "nonce": 0})
    yield waiting
    assert node.app.height == receipt.blockNumber == before + 1 and len(node.bus) == subscribers
    position = yield until_tx(node, receipt.transactionHash.to_0x_hex(), evm=True)
    assert position == (receipt.blockNumber, 0)


@pytest_twisted.inlineCallbacks
def test_a_wait_past_its_deadline_fails_saying_what_it_waited_for(node):
    subscribers = len(node.bus)
    with pytest.raises(AssertionError, match=r"^waited 0.2 s for height 1000 \(the head is at 1\)$"):
        yield until_height(node, 1000, timeout=0.2)
    with pytest.raises(AssertionError, match=r"^waited 0.2 s for the sky to fall$"):
        yield until(lambda: False, "the sky to fall", timeout=0.2)
    assert len(node.bus) == subscribers


@pytest_twisted.inlineCallbacks
def test_a_condition_may_answer_later_and_its_value_is_the_result(node):
    asked = []

    def condition():
        asked.append(len(asked))
        return defer.succeed(len(asked) >= 3 and "third")
    assert (yield until(condition, "the third answer", every=0.01)) == "third"
    assert (yield until_block(node, lambda: node.app.head[0].height, "a head")) == node.app.height
    with pytest.raises(ZeroDivisionError):
        yield until(lambda: 1 / 0, "a broken condition")
