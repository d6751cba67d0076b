"""/validators and /consensus_params answer for the height after the last committed one, as CometBFT's do (its
latestUncommittedHeight): a light client (Hermes's) asks for height H + 1's validators to verify block H."""

import re

import pytest_twisted

from helpers import comet, in_thread


def latest(node):
    return int(comet(node, "status")["result"]["sync_info"]["latest_block_height"])


def next_height_answers(node):
    height = latest(node)
    validators = comet(node, "validators", height=str(height + 1))["result"]
    current = comet(node, "validators", height=str(height))["result"]
    params = comet(node, "consensus_params", height=str(height + 1))["result"]
    far = comet(node, "validators", height=str(height + 1000))
    far_params = comet(node, "consensus_params", height=str(height + 1000))
    return height, validators, current, params, far, far_params


@pytest_twisted.inlineCallbacks
def test_validators_and_consensus_params_of_the_next_height(node):
    height, validators, current, params, far, far_params = yield in_thread(next_height_answers, node)
    assert validators["block_height"] == str(height + 1)
    assert validators["validators"] == current["validators"] and validators["total"] == "1"
    assert params["block_height"] == str(height + 1) and params["consensus_params"]["block"]["max_gas"]
    for refused in (far, far_params):
        text = refused["error"]["data"]
        found = re.fullmatch(rf"height {height + 1000} must be less than or equal to the current blockchain "
                             r"height (\d+)", text)
        assert found and int(found.group(1)) > height, text
