"""/websocket on the CometBFT port: tm.event subscriptions fed by the event bus, routes, limits, slow clients."""

import base64
import json
import urllib.request

import pytest_twisted
from cryptography.hazmat.primitives.asymmetric import ed25519
from websockets.sync.client import connect

from chaind.chain import votes as votes_mod
from chaind.chain.block import BlockId
from chaind.events import query as q
from evm_client import DEV0, OTHER, send, w3
from helpers import in_thread, until_height


def ws_url(node):
    return f"ws://127.0.0.1:{node.port_of('cometbft')}/websocket"


def call(ws, method, params=None, request_id=1):
    """The reply to one request; events of earlier subscriptions arriving first (they carry their
    subscribe's id) are passed over."""
    ws.send(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}}))
    while True:
        message = json.loads(ws.recv(timeout=5))
        result = message.get("result")
        if not (isinstance(result, dict) and "query" in result and "data" in result):
            return message


def transfer(web3):
    return send(web3, {"to": OTHER, "value": 1, "nonce": web3.eth.get_transaction_count(DEV0)})


@pytest_twisted.inlineCallbacks
def test_new_block_and_tx_by_evm_hash(node):
    web3 = w3(node)

    def scenario():
        with connect(ws_url(node)) as blocks, connect(ws_url(node)) as txs:
            assert call(blocks, "subscribe", {"query": "tm.event='NewBlock'"}, 7) == \
                {"jsonrpc": "2.0", "id": 7, "result": {}}
            assert call(blocks, "status")["result"]["node_info"]["version"].startswith("0.38.")
            # The EVM hash is known only after signing; subscribe for the next EVM tx from our sender.
            from evm_client import sign

            signed = sign({"to": OTHER, "value": 1, "nonce": web3.eth.get_transaction_count(DEV0)})
            evm_hash = "0x" + bytes(signed.hash).hex()
            query = f"tm.event='Tx' AND ethereum_tx.ethereumTxHash='{evm_hash}'"
            assert call(txs, "subscribe", [query], 9)["result"] == {}
            web3.eth.send_raw_transaction(signed.raw_transaction)
            tx_event = json.loads(txs.recv(timeout=5))
            block_event = json.loads(blocks.recv(timeout=5))
            return tx_event, block_event, evm_hash, query

    tx_event, block_event, evm_hash, query = yield in_thread(scenario)
    assert tx_event["id"] == 9 and tx_event["result"]["query"] == query
    data = tx_event["result"]["data"]
    assert data["type"] == "tendermint/event/Tx"
    tx_result = data["value"]["TxResult"]
    assert "index" not in tx_result and "code" not in tx_result["result"]     # omitted when 0
    # Both ethereum_tx events (ante and message) carry the hash, as in Evmos.
    assert tx_event["result"]["events"]["ethereum_tx.ethereumTxHash"] == [evm_hash, evm_hash]
    assert tx_event["result"]["events"]["tm.event"] == ["Tx"]
    assert tx_event["result"]["events"]["tx.height"] == [tx_result["height"]]
    assert block_event["id"] == 7 and block_event["result"]["data"]["type"] == "tendermint/event/NewBlock"
    value = block_event["result"]["data"]["value"]
    assert value["block"]["header"]["height"] == tx_result["height"]
    assert value["result_finalize_block"]["tx_results"][0]["code"] == 0


@pytest_twisted.inlineCallbacks
def test_block_events_in_new_block_and_new_block_events(node):
    web3 = w3(node)

    def scenario():
        with connect(ws_url(node)) as ws:
            # Only blocks past the next one match: the block events' keys are in NewBlock's events map.
            after = node.app.height + 1
            query = f"tm.event='NewBlock' AND block_gas.height > {after}"
            assert call(ws, "subscribe", {"query": query}, 3)["result"] == {}
            assert call(ws, "subscribe", {"query": "tm.event='NewBlockEvents' AND block_gas.amount > 0"}, 4)[
                "result"] == {}
            got = {}
            transfer(web3)      # block `after`: NewBlockEvents only
            transfer(web3)      # block `after + 1`: both
            while len(got.get(3, [])) < 1 or len(got.get(4, [])) < 2:
                message = json.loads(ws.recv(timeout=5))
                got.setdefault(message["id"], []).append(message["result"])
            results = call(ws, "block_results", {"height": str(after)}, 5)["result"]
            return after, got, results

    after, got, results = yield in_thread(scenario)
    [block] = got[3]
    assert block["data"]["value"]["block"]["header"]["height"] == str(after + 1)
    assert block["events"]["block_gas.height"] == [str(after + 1)] and block["events"]["tm.event"] == ["NewBlock"]
    assert block["events"]["fee_market.mode"] == ["BeginBlock"] and block["events"]["block_gas.amount"] == ["21000"]
    finalize = block["data"]["value"]["result_finalize_block"]
    # BeginBlock's fee_market first, EndBlock's block_gas last; distribution's begin-block events between.
    types = [e["type"] for e in finalize["events"]]
    assert types[0] == "fee_market" and types[-1] == "block_gas" and "commission" in types
    first, second = got[4]
    assert first["data"] == {"type": "tendermint/event/NewBlockEvents", "value": {
        "height": str(after), "events": results["finalize_block_events"], "num_txs": "1"}}
    assert first["events"]["tm.event"] == ["NewBlockEvents"] and second["data"]["value"]["height"] == str(after + 1)


@pytest_twisted.inlineCallbacks
def test_unsubscribe_and_limits(node_factory):
    node = node_factory(cometbft_rpc={"max_subscriptions_per_client": 2, "max_subscription_clients": 1})
    # A new chain makes block 1 at start: its NewBlock must not come between a request and its reply below.
    yield until_height(node, node.genesis.initial_height)

    def scenario():
        out = {}
        with connect(ws_url(node)) as ws, connect(ws_url(node)) as other:
            call(ws, "subscribe", {"query": "tm.event='NewBlock'"})
            out["dup"] = call(ws, "subscribe", {"query": "tm.event = 'NewBlock'"})["error"]
            out["parse"] = call(ws, "subscribe", {"query": "tm.event="})["error"]
            call(ws, "subscribe", {"query": "tm.event='Tx'"})
            out["per_client"] = call(ws, "subscribe", {"query": "tm.event='NewBlockHeader'"})["error"]
            out["clients"] = call(other, "subscribe", {"query": "tm.event='Tx'"})["error"]
            out["unsub"] = call(ws, "unsubscribe", {"query": "tm.event  =  'Tx'"})
            out["missing"] = call(ws, "unsubscribe", {"query": "tm.event='Tx'"})["error"]
            out["all"] = call(ws, "unsubscribe_all")
            out["after"] = call(other, "subscribe", {"query": "tm.event='Tx'"})
        return out

    out = yield in_thread(scenario)
    assert out["dup"]["data"] == "already subscribed"
    assert out["per_client"]["data"] == "max_subscriptions_per_client 2 reached"
    assert out["clients"]["data"] == "max_subscription_clients 1 reached"
    assert out["parse"] == {"code": -32603, "message": "Internal error", "data": "failed to parse query: offset 9: EOF"}
    assert out["unsub"]["result"] == {} and out["missing"]["data"] == "subscription not found"
    assert out["all"]["result"] == {} and out["after"]["result"] == {}


@pytest_twisted.inlineCallbacks
def test_overflowing_subscription_is_canceled(node_factory):
    node = node_factory(cometbft_rpc={"subscription_buffer_size": 1})
    web3 = w3(node)
    messages = []

    def subscribe_and_wait():
        ws = connect(ws_url(node)).__enter__()   # closed in read() below
        assert call(ws, "subscribe", {"query": "tm.event='Tx'"}, 3)["result"] == {}
        return ws

    ws = yield in_thread(subscribe_and_wait)
    # The transport pauses a connection whose socket buffer is full; events then wait in the
    # subscription's buffer (of one here), and the second one cancels it.
    socket = next(iter(node.comet_ws_factory.subscribers))
    socket.pauseProducing()
    yield in_thread(transfer, web3)
    yield in_thread(transfer, web3)

    def read():
        try:
            messages.append(json.loads(ws.recv(timeout=5)))
        finally:
            ws.close()

    socket.resumeProducing()
    yield in_thread(read)
    assert messages[0] == {"jsonrpc": "2.0", "id": 3, "error": {
        "code": -32000, "message": "Server error",
        "data": "subscription was canceled (reason: internal subscription event buffer is out of capacity)"}}


def test_subscription_matching_across_events():
    query = q.parse("tm.event='Tx' AND transfer.amount > 100 AND message.module EXISTS")
    events = {"tm.event": ["Tx"], "transfer.amount": ["50achain", "250achain"], "message.module": ["evm"]}
    assert query.matches(events)
    assert not query.matches({**events, "tm.event": ["NewBlock"]})
    assert not query.matches({"tm.event": ["Tx"], "transfer.amount": ["50achain"], "message.module": ["evm"]})
    assert str(q.parse("a.b>=TIME 2013-05-03T14:45:00Z AND c.d CONTAINS 'x'")) == \
        "a.b >= TIME 2013-05-03T14:45:00Z AND c.d CONTAINS 'x'"


STEPS = ("NewRound", "CompleteProposal", "Vote", "ValidBlock", "Polka", "Lock")


@pytest_twisted.inlineCallbacks
def test_consensus_step_events(node):
    web3 = w3(node)
    comet = f"http://127.0.0.1:{node.port_of('cometbft')}"

    def scenario():
        with connect(ws_url(node)) as ws, connect(ws_url(node)) as lock:
            for i, name in enumerate(STEPS[:-1]):
                assert call(ws, "subscribe", {"query": f"tm.event='{name}'"}, i)["result"] == {}
            # Five subscriptions per connection at most.
            assert call(lock, "subscribe", {"query": "tm.event='Lock'"}, 5)["result"] == {}
            receipt = transfer(web3)
            height = str(receipt["blockNumber"])
            got = []
            # For this block: NewRound, CompleteProposal, its prevote, the parent's precommit, ValidBlock, Polka.
            while sum(_belongs(m["result"]["data"]["value"], height) for m in got) < 6:
                got.append(json.loads(ws.recv(timeout=5)))
            while True:
                got.append(json.loads(lock.recv(timeout=5)))
                if _belongs(got[-1]["result"]["data"]["value"], height):
                    break
            block = json.loads(urllib.request.urlopen(f"{comet}/block?height={height}", timeout=5).read())
            validators = json.loads(urllib.request.urlopen(f"{comet}/validators", timeout=5).read())
            return height, got, block["result"], validators["result"]["validators"][0]

    height, got, block, validator = yield in_thread(scenario)
    mine = [m["result"] for m in got if _belongs(m["result"]["data"]["value"], height)]
    # One of each step; as in CometBFT, subscriptions do not keep order among themselves, each one does
    # (the parent's precommit comes first: see Producer._steps).
    assert sorted((r["query"], r["data"]["value"].get("Vote", {}).get("type") or 0) for r in mine) == sorted([
        ("tm.event='Vote'", 2), ("tm.event='NewRound'", 0), ("tm.event='CompleteProposal'", 0),
        ("tm.event='Vote'", 1), ("tm.event='ValidBlock'", 0), ("tm.event='Polka'", 0), ("tm.event='Lock'", 0)])
    assert [r["data"]["value"]["Vote"]["type"] for r in mine if "Vote" in r["data"]["value"]] == [2, 1]
    by_type = {}
    for r in mine:
        assert r["events"] == {"tm.event": [r["query"].split("'")[1]]}
        by_type.setdefault(r["data"]["type"], []).append(r["data"]["value"])
    block_id = block["block_id"]
    [new_round] = by_type["tendermint/event/NewRound"]
    assert new_round == {"height": height, "round": 0, "step": "RoundStepNewRound",
                         "proposer": {"address": validator["address"], "index": 0}}
    [proposal] = by_type["tendermint/event/CompleteProposal"]
    assert proposal == {"height": height, "round": 0, "step": "RoundStepPropose", "block_id": block_id}
    # ValidBlock, Polka and Lock all send EventDataRoundState.
    states = by_type["tendermint/event/RoundState"]
    assert states == [{"height": height, "round": 0, "step": "RoundStepPrevote"}] * 3
    votes = {v["Vote"]["type"]: v["Vote"] for v in by_type["tendermint/event/Vote"]}
    prevote, precommit = votes[1], votes[2]
    assert prevote["block_id"] == block_id and prevote["round"] == 0 and prevote["validator_index"] == 0
    assert prevote["validator_address"] == validator["address"] and prevote["extension"] is None
    # The parent's precommit is the very signature this block's last_commit carries.
    sig = block["block"]["last_commit"]["signatures"][0]
    assert precommit["block_id"] == block["block"]["last_commit"]["block_id"]
    assert (precommit["signature"], precommit["timestamp"], precommit["validator_address"]) == \
        (sig["signature"], sig["timestamp"], sig["validator_address"])
    # The prevote verifies under the validator's key over CometBFT's prevote sign bytes.
    public = ed25519.Ed25519PublicKey.from_public_bytes(base64.b64decode(validator["pub_key"]["value"]))
    bid = BlockId(bytes.fromhex(block_id["hash"]), block_id["parts"]["total"], bytes.fromhex(block_id["parts"]["hash"]))
    header = block["block"]["header"]
    time_ns = node.app.block_at(int(height))[0].time_ns
    public.verify(base64.b64decode(prevote["signature"]),
                  votes_mod.sign_bytes(header["chain_id"], int(height), 0, bid, time_ns, vote_type=votes_mod.PREVOTE))
    public.verify(base64.b64decode(sig["signature"]), votes_mod.sign_bytes(
        header["chain_id"], int(height) - 1, 0, node.app.block_at(int(height))[0].last_block_id, time_ns))


def _belongs(value, height):
    """Whether a step event is one of block `height`'s (whose events carry the parent's precommit)."""
    if "Vote" in value:
        vote = value["Vote"]
        return (vote["type"], vote["height"]) in ((1, height), (2, str(int(height) - 1)))
    return value["height"] == height


@pytest_twisted.inlineCallbacks
def test_every_event_of_a_block_in_cometbft_order(node):
    web3 = w3(node)

    def scenario():
        with connect(ws_url(node)) as ws:
            assert call(ws, "subscribe", {"query": "tm.event EXISTS"}, 1)["result"] == {}
            height = transfer(web3)["blockNumber"]
            got = []
            while not got or got[-1]["events"]["tm.event"] != ["NewRoundStep"] or \
                    got[-1]["data"]["value"]["step"] != "RoundStepNewHeight":
                got.append(json.loads(ws.recv(timeout=5))["result"])
            return height, got

    height, got = yield in_thread(scenario)

    def label(result):
        name, value = result["events"]["tm.event"][0], result["data"]["value"]
        if name == "NewRoundStep":
            return name, value["step"], int(value["height"])
        if name == "Vote":
            return name, value["Vote"]["type"], int(value["Vote"]["height"])
        return name

    # One validator goes through CometBFT's steps in order (consensus/state.go), no timeouts; its
    # precommit for the parent comes first, being signed at this block's time.
    assert [label(r) for r in got] == [
        ("Vote", 2, height - 1), "NewRound", ("NewRoundStep", "RoundStepPropose", height), "CompleteProposal",
        ("NewRoundStep", "RoundStepPrevote", height), ("Vote", 1, height), "ValidBlock", "Polka", "Lock",
        ("NewRoundStep", "RoundStepPrecommit", height), ("NewRoundStep", "RoundStepCommit", height),
        "NewBlock", "NewBlockHeader", "NewBlockEvents", "Tx", ("NewRoundStep", "RoundStepNewHeight", height + 1)]
    steps = [r["data"] for r in got if r["events"]["tm.event"] == ["NewRoundStep"]]
    assert steps[0] == {"type": "tendermint/event/RoundState",
                        "value": {"height": str(height), "round": 0, "step": "RoundStepPropose"}}
    assert steps[-1]["value"] == {"height": str(height + 1), "round": 0, "step": "RoundStepNewHeight"}


@pytest_twisted.inlineCallbacks
def test_bad_input_over_websocket(node_factory):
    node = node_factory(cometbft_rpc={"max_query_length": 30})

    def scenario():
        out = {}
        with connect(ws_url(node)) as ws:
            ws.send("{not json")
            out["json"] = json.loads(ws.recv(timeout=5))
            ws.send(json.dumps([{"jsonrpc": "2.0", "id": 1, "method": "health"}]))
            out["batch"] = json.loads(ws.recv(timeout=5))
            out["unknown"] = call(ws, "no_such_route", {}, 2)
            out["int"] = call(ws, "block", {"height": 1}, 3)
            out["long"] = call(ws, "subscribe", {"query": "tm.event='NewBlock' AND a.b EXISTS"}, 4)
            out["empty"] = call(ws, "subscribe", {}, 5)
            out["number"] = call(ws, "subscribe", {"query": 5}, 6)
            out["arity"] = call(ws, "unsubscribe", ["tm.event='Tx'", 1], 7)
            out["none"] = call(ws, "unsubscribe_all", {}, 8)
            out["still"] = call(ws, "subscribe", ["tm.event='Tx'"], 9)
        return out

    out = yield in_thread(scenario)
    assert out["json"]["error"]["code"] == -32700 and "id" not in out["json"]
    assert out["batch"]["error"]["code"] == -32600
    assert out["unknown"] == {"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "Method not found"}}
    # Over WebSocket CometBFT reports argument errors as internal errors.
    assert out["int"]["error"] == {"code": -32603, "message": "Internal error", "data": (
        'error converting json params to arguments: invalid 64-bit integer encoding "1", expected string')}
    assert out["long"]["error"]["data"] == "maximum query length exceeded"
    assert out["empty"]["error"]["data"] == "failed to parse query: offset 0: EOF"
    assert out["number"]["error"]["data"] == ("error converting json params to arguments: json: cannot unmarshal "
                                              "number into Go value of type string")
    assert out["arity"]["error"]["data"] == ('error converting json params to arguments: expected 1 parameters '
                                             '([query]), got 2 (["tm.event=\'Tx\'" 1])')
    assert out["none"]["error"]["data"] == "subscription not found"
    assert out["still"] == {"jsonrpc": "2.0", "id": 9, "result": {}}
