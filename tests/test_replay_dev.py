"""`chaind replay` of a dev chain whose state dev methods changed in place says why it differs: no tx records
such a change."""

import pytest_twisted

from cli_driver import failed, run
from evm_client import OTHER, send, w3
from helpers import in_thread


def _rpc(node, method, *params):
    return in_thread(w3(node).provider.make_request, method, list(params))


@pytest_twisted.inlineCallbacks
def test_a_replay_after_anvil_set_balance_says_dev_methods_changed_the_chain(node_factory, tmp_path):
    node = node_factory()
    yield in_thread(send, w3(node), {"to": OTHER, "value": 1, "nonce": 0})
    amended = node.app.height
    reply = yield _rpc(node, "anvil_setBalance", OTHER, hex(10**18))
    assert "error" not in reply, reply
    yield in_thread(send, w3(node), {"to": OTHER, "value": 1, "nonce": 1})
    yield node.stopService()
    result = failed((yield run("replay", "--home", tmp_path / "home")), "differs: stored ")
    assert result.stderr.strip().splitlines()[-1].endswith(
        f"dev methods (anvil_set*, anvil_mine, anvil_loadState, ...) changed this chain's state in place from "
        f"height {amended} on, which no tx records, so its blocks do not replay"), result.stderr

