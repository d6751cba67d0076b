"""The EVM WebSocket face: subscriptions fed by the event bus, the method table, limits and slow clients."""

import asyncio
import json
import socket

import pytest
import pytest_twisted
import websockets
from web3 import AsyncWeb3, WebSocketProvider
from websockets.sync.client import connect

from contracts import INIT, STORED
from evm_client import OTHER, rpc, send, w3
from helpers import in_thread, on_reactor, until, until_height, ws_url

STORED_HEX = "0x" + STORED.hex()


def call(ws, method, *params, request_id=1):
    ws.send(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": list(params)}))
    return json.loads(ws.recv(timeout=5))


def notifications(ws, count, timeout=5):
    return [json.loads(ws.recv(timeout=timeout))["params"] for _ in range(count)]


def nothing_more(ws, wait=0.3):
    try:
        ws.recv(timeout=wait)
    except TimeoutError:
        return True
    return False


@pytest_twisted.inlineCallbacks
def test_new_heads_match_blocks_over_http(node):
    web3 = w3(node)

    def scenario():
        # The node's first block is made at start; subscribing before it is committed would see it first.
        on_reactor(until_height, node, node.app.genesis.initial_height)
        with connect(ws_url(node)) as ws:
            sub = call(ws, "eth_subscribe", "newHeads")["result"]
            receipt = send(web3, {"to": OTHER, "value": 1, "nonce": 0})
            (note,) = notifications(ws, 1)
            assert note["subscription"] == sub
            return note["result"], receipt

    head, receipt = yield in_thread(scenario)
    _, block = yield rpc(node, "eth_getBlockByNumber", hex(receipt.blockNumber), False)
    body_only = {"transactions", "uncles", "size", "totalDifficulty"}
    assert head == {k: v for k, v in block["result"].items() if k not in body_only}
    assert head["hash"] == receipt.blockHash.to_0x_hex()


@pytest_twisted.inlineCallbacks
def test_logs_filters_and_pending_transactions(node):
    web3 = w3(node)

    def scenario():
        address = send(web3, {"data": "0x" + INIT.hex(), "gas": 200000, "nonce": 0}).contractAddress
        with connect(ws_url(node)) as ws:
            wanted = call(ws, "eth_subscribe", "logs", {"address": address, "topics": [STORED_HEX]})["result"]
            call(ws, "eth_subscribe", "logs", {"address": OTHER})
            call(ws, "eth_subscribe", "logs", {"topics": [None, STORED_HEX]})
            hashes = call(ws, "eth_subscribe", "newPendingTransactions")["result"]
            full = call(ws, "eth_subscribe", "newPendingTransactions", True)["result"]
            receipt = send(web3, {"to": address, "data": "0x" + (3).to_bytes(32, "big").hex(),
                                  "gas": 100000, "nonce": 1})
            got = {}
            for note in notifications(ws, 3):
                got.setdefault(note["subscription"], []).append(note["result"])
            assert nothing_more(ws)
            return receipt, wanted, hashes, full, got

    receipt, wanted, hashes, full, got = yield in_thread(scenario)
    assert set(got) == {wanted, hashes, full}
    (entry,) = got[wanted]
    assert entry["transactionHash"] == receipt.transactionHash.to_0x_hex() and int(entry["data"], 16) == 3
    assert got[hashes] == [receipt.transactionHash.to_0x_hex()]
    assert got[full][0]["hash"] == receipt.transactionHash.to_0x_hex() and got[full][0]["blockHash"] is None


@pytest_twisted.inlineCallbacks
def test_logs_by_topic_address_list_or_nothing_get_the_same_entry(node):
    web3 = w3(node)
    unrelated = "0x" + "bb" * 32

    def scenario():
        address = send(web3, {"data": "0x" + INIT.hex(), "gas": 200000, "nonce": 0}).contractAddress
        with connect(ws_url(node)) as ws:
            wanted = [call(ws, "eth_subscribe", "logs", criteria, request_id=i)["result"] for i, criteria in
                      enumerate([{"topics": [STORED_HEX]}, {"topics": [[unrelated, STORED_HEX]]},
                                 {"address": [OTHER, address]}, {}, {"topics": [None]}])]
            for criteria in ({"topics": [None, STORED_HEX]}, {"topics": [unrelated]},
                             {"address": address, "topics": [unrelated]}, {"address": [OTHER]}):
                call(ws, "eth_subscribe", "logs", criteria)
            receipt = send(web3, {"to": address, "data": "0x" + (5).to_bytes(32, "big").hex(),
                                  "gas": 100000, "nonce": 1})
            got = notifications(ws, len(wanted))
            assert nothing_more(ws)
            return receipt, wanted, got

    receipt, wanted, got = yield in_thread(scenario)
    assert sorted(note["subscription"] for note in got) == sorted(wanted)
    entries = [note["result"] for note in got]
    assert all(entry == entries[0] for entry in entries)
    assert entries[0]["transactionHash"] == receipt.transactionHash.to_0x_hex()
    assert entries[0]["topics"] == [STORED_HEX] and int(entries[0]["data"], 16) == 5
    _, logs = yield rpc(node, "eth_getLogs", {"blockHash": receipt.blockHash.to_0x_hex()})
    assert logs["result"] == [entries[0]]


@pytest_twisted.inlineCallbacks
def test_answers_of_every_frame_length_arrive_whole(node):
    def scenario():
        with connect(ws_url(node), max_size=None) as ws:
            small = call(ws, "eth_chainId")
            medium = call(ws, "eth_getBlockByNumber", "latest", False)
            ws.send(json.dumps([{"jsonrpc": "2.0", "id": i, "method": "eth_getBlockByNumber",
                                 "params": ["latest", False]} for i in range(200)]))
            large = ws.recv(timeout=5)
            # A frame longer or shorter than its header says would garble the next one.
            after = call(ws, "eth_chainId", request_id=2)
            return small, medium, large, after

    small, medium, large, after = yield in_thread(scenario)
    # One answer each for a frame length in 7 bits, in 16 bits and in 64 bits.
    assert len(json.dumps(small)) < 126 and 126 <= len(json.dumps(medium)) < 65536 and len(large) >= 65536
    assert small["result"] == after["result"] == hex(9000) and after["id"] == 2
    assert [r["result"] for r in json.loads(large)] == [medium["result"]] * 200


@pytest_twisted.inlineCallbacks
def test_methods_batches_unsubscribe_and_errors(node):
    def scenario():
        with connect(ws_url(node)) as ws:
            assert call(ws, "eth_chainId")["result"] == hex(9000)
            ws.send(json.dumps([{"jsonrpc": "2.0", "id": i, "method": "eth_blockNumber", "params": []}
                                for i in range(3)]))
            batch = json.loads(ws.recv(timeout=5))
            ws.send(b"{nope")
            bad_json = json.loads(ws.recv(timeout=5))
            unknown = call(ws, "eth_subscribe", "fooBar")
            no_kind = call(ws, "eth_subscribe")
            bad_filter = call(ws, "eth_subscribe", "logs", {"topics": ["0x12"]})
            sub = call(ws, "eth_subscribe", "newHeads")["result"]
            first = call(ws, "eth_unsubscribe", sub)["result"]
            second = call(ws, "eth_unsubscribe", sub)["result"]
            return batch, bad_json, unknown, no_kind, bad_filter, first, second

    batch, bad_json, unknown, no_kind, bad_filter, first, second = yield in_thread(scenario)
    assert [r["id"] for r in batch] == [0, 1, 2]
    assert bad_json["error"]["code"] == -32700
    assert bad_json["error"]["message"].startswith("the request body is not JSON: ")
    assert unknown["error"] == {"code": -32601, "message": 'no "fooBar" subscription in eth namespace'}
    assert no_kind["error"]["code"] == -32602
    assert bad_filter["error"]["code"] == -32602
    assert (first, second) == (True, False)
    assert len(node.bus) == 0
    _, reply = yield rpc(node, "eth_subscribe", "newHeads")
    assert reply["error"] == {"code": -32601, "message": "notifications not supported"}


@pytest_twisted.inlineCallbacks
def test_subscriptions_die_with_their_connection(node):
    def scenario():
        with connect(ws_url(node)) as ws:
            for kind in ("newHeads", "logs", "newPendingTransactions", "syncing"):
                assert call(ws, "eth_subscribe", kind)["result"].startswith("0x")
            return len(node.bus)

    assert (yield in_thread(scenario)) == 4
    yield until(lambda: len(node.bus) == 0, "the closed connection's subscriptions to end")
    assert len(node.bus) == 0


@pytest_twisted.inlineCallbacks
def test_connection_subscription_and_message_limits(node_factory):
    node = node_factory(json_rpc={"ws_max_connections": 1, "ws_max_subscriptions": 1, "ws_max_message_bytes": 200})

    def scenario():
        with connect(ws_url(node)) as ws:
            with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
                connect(ws_url(node))
            assert call(ws, "eth_subscribe", "newHeads")["result"]
            second = call(ws, "eth_subscribe", "newHeads")
            ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": ["x" * 300]}))
            with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
                ws.recv(timeout=5)
            return refused.value.response.status_code, second, closed.value.rcvd.code

    status, second, close_code = yield in_thread(scenario)
    assert status == 503
    assert second["error"]["code"] == -32000 and "at most 1" in second["error"]["message"]
    assert close_code == 1009


@pytest_twisted.inlineCallbacks
def test_the_message_limit_bounds_what_clients_send_not_what_they_are_sent(node_factory):
    node = node_factory(json_rpc={"ws_max_message_bytes": 200})
    web3 = w3(node)

    def scenario():
        on_reactor(until_height, node, node.app.genesis.initial_height)
        with connect(ws_url(node)) as ws:
            assert call(ws, "eth_subscribe", "newHeads")["result"]
            send(web3, {"to": OTHER, "value": 1, "nonce": 0})
            (head,) = notifications(ws, 1)
            block = call(ws, "eth_getBlockByNumber", head["result"]["number"], True)["result"]
            return head, block

    head, block = yield in_thread(scenario)
    assert len(json.dumps(head)) > 200 and block["hash"] == head["result"]["hash"]
    assert len(block["transactions"]) == 1


@pytest_twisted.inlineCallbacks
def test_a_slow_client_is_closed_and_the_chain_goes_on(node_factory):
    node = node_factory(chain={"block_interval": 0.002, "empty_blocks": True}, json_rpc={"ws_send_queue": 20})

    def scenario():
        # A client that subscribes (50 times, to fill buffers fast) and then never reads.
        with connect(ws_url(node), max_queue=1) as ws:
            ws.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            for i in range(50):
                call(ws, "eth_subscribe", "newHeads", request_id=i)
            height = node.app.height
            on_reactor(until, lambda: not node.ws_factory.connections, "the slow client to be closed", timeout=12)
            return height

    start = yield in_thread(scenario)
    assert not node.ws_factory.connections
    assert len(node.bus) == 0
    yield until_height(node, start + 51)
    assert node.app.height > start + 50, (start, node.app.height)


@pytest_twisted.inlineCallbacks
def test_web3_websocket_provider(node):
    async def scenario():
        async with AsyncWeb3(WebSocketProvider(ws_url(node))) as web3:
            assert await web3.eth.chain_id == 9000
            sub = await web3.eth.subscribe("newHeads")
            await asyncio.get_running_loop().run_in_executor(
                None, lambda: send(w3(node), {"to": OTHER, "value": 1, "nonce": 0}))
            async for message in web3.socket.process_subscriptions():
                assert message["subscription"] == sub
                return message["result"]["number"]

    number = yield in_thread(lambda: asyncio.run(asyncio.wait_for(scenario(), 10)))
    assert number >= 1
