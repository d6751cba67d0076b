"""The dev methods that rewrite the chain say so in the node's log, as the blocks they undo were logged."""

import pytest_twisted
from twisted.logger import formatEvent, globalLogPublisher

from evm_client import OTHER, send, w3
from helpers import in_thread


@pytest_twisted.inlineCallbacks
def test_evm_revert_is_logged_with_the_height_it_goes_back_to(node):
    def call(method, *params):
        return in_thread(w3(node).provider.make_request, method, list(params))

    lines = []
    observer = lines.append
    globalLogPublisher.addObserver(observer)
    try:
        snapshot = (yield call("evm_snapshot"))["result"]
        back_to = node.app.height
        for nonce in range(2):
            yield in_thread(send, w3(node), {"to": OTHER, "value": 1, "nonce": nonce})
        undone = node.app.height - back_to
        assert (yield call("evm_revert", snapshot))["result"] is True
    finally:
        globalLogPublisher.removeObserver(observer)
    messages = [formatEvent(event) for event in lines]
    assert f"evm_revert to snapshot {snapshot}: back to height {back_to}, {undone} blocks undone" in messages, messages
