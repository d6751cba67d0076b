"""eth_getLogs and polled filters against a real node: selection, limits and bad criteria."""

import pytest_twisted
from twisted.internet import task

from contracts import INIT, STORED
from evm_client import OTHER, rpc, send, w3
from helpers import in_thread

OTHER_TOPIC = "0x" + "bb" * 32
STORED_HEX = "0x" + STORED.hex()


def word(n):
    return "0x" + n.to_bytes(32, "big").hex()


def store_values(web3, values, nonce=0, address=None):
    """Deploy the store contract (unless given) and store each value in its own tx; returns (address, receipts)."""
    receipts = []
    if address is None:
        address = send(web3, {"data": "0x" + INIT.hex(), "gas": 200000, "nonce": nonce}).contractAddress
        nonce += 1
    for i, value in enumerate(values):
        receipts.append(send(web3, {"to": address, "data": word(value), "gas": 100000, "nonce": nonce + i}))
    return address, receipts


@pytest_twisted.inlineCallbacks
def test_get_logs_selects_by_address_topics_and_range(node):
    web3 = w3(node)
    address, receipts = yield in_thread(store_values, web3, [5, 6, 7])
    first, last = receipts[0].blockNumber, receipts[-1].blockNumber

    found = yield in_thread(web3.eth.get_logs, {"fromBlock": first, "toBlock": last, "address": address})
    assert [int(log.data.hex(), 16) for log in found] == [5, 6, 7]
    assert found[1].transactionHash == receipts[1].transactionHash
    assert found[1].blockHash == receipts[1].blockHash and found[1].logIndex == receipts[1].logs[0].logIndex

    async_cases = [
        ({"fromBlock": hex(first), "toBlock": hex(last), "topics": [STORED_HEX]}, 3),
        ({"fromBlock": hex(first), "toBlock": hex(last), "topics": [[OTHER_TOPIC, STORED_HEX]]}, 3),
        ({"fromBlock": hex(first), "toBlock": hex(last), "topics": [None]}, 3),
        ({"fromBlock": hex(first), "toBlock": hex(last), "topics": [OTHER_TOPIC]}, 0),
        ({"fromBlock": hex(first), "toBlock": hex(last), "topics": [STORED_HEX, None]}, 0),
        ({"fromBlock": hex(first), "toBlock": hex(last), "address": [OTHER, address]}, 3),
        ({"fromBlock": hex(first), "toBlock": hex(last), "address": OTHER}, 0),
        ({"fromBlock": hex(last)}, 1),
        ({}, 1),
        ({"blockHash": receipts[1].blockHash.to_0x_hex()}, 1),
        ({"fromBlock": "earliest", "toBlock": "latest"}, 3),
    ]
    for criteria, count in async_cases:
        _, reply = yield rpc(node, "eth_getLogs", criteria)
        assert len(reply["result"]) == count, criteria
    _, reply = yield rpc(node, "eth_getLogs", {"blockHash": receipts[1].blockHash.to_0x_hex()})
    assert reply["result"][0]["data"] == word(6) and reply["result"][0]["removed"] is False


@pytest_twisted.inlineCallbacks
def test_get_logs_limits_and_bad_criteria(node_factory):
    node = node_factory(json_rpc={"logs_cap": 2, "block_range_cap": 3})
    web3 = w3(node)
    address, receipts = yield in_thread(store_values, web3, [1, 2, 3])
    head = receipts[-1].blockNumber
    cases = [
        ({"fromBlock": hex(head - 3), "toBlock": hex(head)}, -32000, "query returned more than 2 results"),
        ({"fromBlock": "0x0", "toBlock": hex(head)}, -32000, "maximum [from, to] blocks distance: 3"),
        ({"fromBlock": hex(head), "toBlock": hex(head - 1)}, -32602, "invalid block range params"),
        ({"fromBlock": hex(head), "toBlock": hex(head + 5)}, -32602, "block range extends beyond current head block"),
        ({"blockHash": "0x" + "00" * 32}, -32000, "unknown block"),
        ({"blockHash": "0x" + "00" * 32, "fromBlock": "0x1"}, -32602,
         "invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other"),
        ({"topics": ["0x12"]}, -32602, "invalid argument 0: invalid topic(s)"),
        ({"topics": [None] * 5}, -32602, "invalid argument 0: exceed max topics"),
        ({"address": "0x1234"}, -32602, None),
        ({"address": 7}, -32602, "invalid argument 0: invalid addresses in query"),
    ]
    for criteria, code, message in cases:
        _, reply = yield rpc(node, "eth_getLogs", criteria)
        assert reply["error"]["code"] == code, criteria
        if message:
            assert reply["error"]["message"] == message, criteria
    _, reply = yield rpc(node, "eth_getLogs", "latest")
    assert reply["error"]["code"] == -32602
    # Within both limits it still answers.
    _, reply = yield rpc(node, "eth_getLogs", {"fromBlock": hex(head - 1), "toBlock": hex(head), "address": address})
    assert len(reply["result"]) == 2


@pytest_twisted.inlineCallbacks
def test_log_block_and_pending_filters(node):
    web3 = w3(node)
    address, _ = yield in_thread(store_values, web3, [1])
    _, reply = yield rpc(node, "eth_newFilter", {"address": address, "topics": [STORED_HEX], "fromBlock": "earliest"})
    log_filter = reply["result"]
    _, reply = yield rpc(node, "eth_newFilter", {"address": OTHER})
    other_filter = reply["result"]
    _, reply = yield rpc(node, "eth_newBlockFilter")
    block_filter = reply["result"]
    _, reply = yield rpc(node, "eth_newPendingTransactionFilter")
    pending_filter = reply["result"]
    assert len({log_filter, other_filter, block_filter, pending_filter}) == 4
    assert all(f.startswith("0x") for f in (log_filter, block_filter, pending_filter))

    _, receipts = yield in_thread(store_values, web3, [8, 9], 2, address)
    _, changes = yield rpc(node, "eth_getFilterChanges", log_filter)
    assert [int(log["data"], 16) for log in changes["result"]] == [8, 9]
    _, changes = yield rpc(node, "eth_getFilterChanges", log_filter)
    assert changes["result"] == []
    _, changes = yield rpc(node, "eth_getFilterChanges", other_filter)
    assert changes["result"] == []
    _, changes = yield rpc(node, "eth_getFilterChanges", block_filter)
    assert changes["result"] == [r.blockHash.to_0x_hex() for r in receipts]
    _, changes = yield rpc(node, "eth_getFilterChanges", pending_filter)
    assert changes["result"] == [r.transactionHash.to_0x_hex() for r in receipts]
    _, logs = yield rpc(node, "eth_getFilterLogs", log_filter)
    assert [int(log["data"], 16) for log in logs["result"]] == [1, 8, 9]
    _, reply = yield rpc(node, "eth_getFilterLogs", block_filter)
    assert reply["error"] == {"code": -32000, "message": "filter not found"}

    _, reply = yield rpc(node, "eth_uninstallFilter", log_filter)
    assert reply["result"] is True
    _, reply = yield rpc(node, "eth_uninstallFilter", log_filter)
    assert reply["result"] is False
    _, reply = yield rpc(node, "eth_getFilterChanges", log_filter)
    assert reply["error"] == {"code": -32000, "message": "filter not found"}
    # web3.py's own filter objects work against the same methods.
    block_watch = yield in_thread(web3.eth.filter, "latest")
    yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": 4})
    assert len((yield in_thread(block_watch.get_new_entries))) == 1


@pytest_twisted.inlineCallbacks
def test_filter_cap_timeout_and_queue_limits(node_factory):
    from twisted.internet import reactor

    node = node_factory(json_rpc={"filter_cap": 2, "filter_queue": 1})
    web3 = w3(node)
    _, first = yield rpc(node, "eth_newBlockFilter")
    _, second = yield rpc(node, "eth_newPendingTransactionFilter")
    _, third = yield rpc(node, "eth_newFilter", {})
    assert third["error"]["code"] == -32000 and "max limit reached" in third["error"]["message"]
    # Two blocks overflow the block filter's queue of one: its next poll says why it is gone.
    yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": 0})
    yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": 1})
    _, reply = yield rpc(node, "eth_getFilterChanges", first["result"])
    assert reply["error"]["code"] == -32000 and "out of capacity" in reply["error"]["message"]
    # A filter nobody polls expires (on a node of its own: its short timeout must not race the sends).
    idle = node_factory(home="idle", json_rpc={"filter_timeout": 0.3})
    _, unpolled = yield rpc(idle, "eth_newPendingTransactionFilter")
    yield task.deferLater(reactor, 0.5, lambda: None)
    _, reply = yield rpc(idle, "eth_getFilterChanges", unpolled["result"])
    assert reply["error"] == {"code": -32000, "message": "filter not found"}
    assert len(idle.bus) == 0
    node = idle
    _, reply = yield rpc(node, "eth_newBlockFilter")
    assert reply["result"].startswith("0x")
