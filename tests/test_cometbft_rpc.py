"""The CometBFT RPC on a real node: URI GET and JSON-RPC POST routes, the indexer and tx_search, errors, restart."""

import base64
import hashlib
import json
import random
import urllib.parse
import urllib.request

import orjson
import pytest
import pytest_twisted
from cryptography.hazmat.primitives.asymmetric import ed25519

from chaind.chain import valset, votes
from chaind.chain.block import BlockId, Event
from chaind.chain.votes import sign_bytes
from chaind.store import eventindex, keys
from cometbft_client import base, fetch, post
from evm_client import DEV0, OTHER, send, w3
from helpers import in_thread


def get(node, route, **args):
    """GET /route?args (values already in CometBFT's URI form); fires with (status, reply)."""
    query = urllib.parse.urlencode(args)
    d = in_thread(fetch, f"{base(node)}/{route}" + (f"?{query}" if query else ""))
    return d.addCallback(lambda r: (r[0], json.loads(r[1])))


def transfer(web3, value=1):
    return send(web3, {"to": OTHER, "value": value, "nonce": web3.eth.get_transaction_count(DEV0)})


@pytest_twisted.inlineCallbacks
def send_transfers(node, count):
    web3 = w3(node)
    receipts = []
    for _ in range(count):
        receipts.append((yield in_thread(transfer, web3)))
    return receipts


@pytest_twisted.inlineCallbacks
def test_info_routes_over_get_and_post(node):
    status, reply = yield get(node, "status")
    assert status == 200 and reply["id"] == -1
    result = reply["result"]
    assert result["node_info"]["version"].startswith("0.38.")
    assert result["node_info"]["network"] == node.genesis.chain_id
    assert result["sync_info"]["latest_block_height"] == str(node.app.height)
    assert result["validator_info"]["pub_key"]["type"] == "tendermint/PubKeyEd25519"
    status, posted = yield post(node, "status", {})
    assert status == 200 and posted["id"] == 1 and posted["result"]["node_info"] == result["node_info"]
    assert (yield get(node, "health"))[1]["result"] == {}
    info = (yield get(node, "abci_info"))[1]["result"]["response"]
    assert info["last_block_height"] == str(node.app.height)
    assert base64.b64decode(info["last_block_app_hash"]) == node.app.head[1].app_hash
    net = (yield get(node, "net_info"))[1]["result"]
    assert net["n_peers"] == "0" and net["peers"] == []
    genesis = (yield get(node, "genesis"))[1]["result"]["genesis"]
    assert genesis["chain_id"] == node.genesis.chain_id
    # CometBFT's GenesisDoc: its members in its order, app_hash empty for an empty initial state.
    assert list(genesis) == ["genesis_time", "chain_id", "initial_height", "consensus_params", "validators",
                             "app_hash", "app_state"]
    assert genesis["app_hash"] == "" and genesis["initial_height"] == "1"
    v = node.genesis.validators[0]
    assert genesis["validators"] == [{"address": valset.address_of(v.consensus_pubkey).hex().upper(),
                                      "pub_key": {"type": "tendermint/PubKeyEd25519",
                                                  "value": base64.b64encode(v.consensus_pubkey).decode()},
                                      "power": str(v.power), "name": v.moniker}]
    chunk = (yield get(node, "genesis_chunked", chunk="0"))[1]["result"]
    assert chunk["total"] == "1" and json.loads(base64.b64decode(chunk["data"]))["chain_id"] == node.genesis.chain_id
    status, bad_chunk = yield get(node, "genesis_chunked", chunk="3")
    assert status == 500 and bad_chunk["error"]["data"] == "there are 0 chunks, 3 is invalid"
    params = (yield get(node, "consensus_params", height="1"))[1]["result"]
    assert params["block_height"] == "1" and params["consensus_params"]["block"]["max_gas"] == str(node.genesis.max_gas)
    vals = (yield post(node, "validators", {"height": "1"}))[1]["result"]
    assert vals["total"] == "1" and vals["validators"][0]["address"] == result["validator_info"]["address"]
    assert (yield get(node, "num_unconfirmed_txs"))[1]["result"]["txs"] is None
    assert (yield get(node, "unconfirmed_txs"))[1]["result"]["txs"] == []
    status, listing, _ = yield in_thread(fetch, base(node) + "/")
    assert status == 200 and b"Available endpoints:" in listing and b"tx_search?query=_" in listing
    status, abci = yield post(node, "abci_query", {"path": "/cosmos.bank.v1beta1.Query/AllBalances", "data": ""})
    assert abci["result"]["response"]["code"] == 18 and abci["result"]["response"]["codespace"] == "sdk"


@pytest_twisted.inlineCallbacks
def test_blocks_headers_results_and_signed_commit(node):
    receipt, = yield send_transfers(node, 1)
    height = receipt["blockNumber"]
    status, reply = yield get(node, "block", height=str(height))
    block = reply["result"]
    header = block["block"]["header"]
    assert header["height"] == str(height) and block["block_id"]["hash"] == receipt["blockHash"].hex().upper()
    assert block["block_id"]["parts"]["total"] == 1
    raw = base64.b64decode(block["block"]["data"]["txs"][0])
    assert block["block"]["last_commit"]["height"] == str(height - 1)
    by_hash = (yield post(node, "block_by_hash", {"hash": base64.b64encode(receipt["blockHash"]).decode()}))[1]
    assert by_hash["result"] == block
    assert (yield get(node, "block_by_hash", hash="0x" + "00" * 32))[1]["result"]["block"] is None
    assert (yield get(node, "header", height=str(height)))[1]["result"]["header"] == header
    assert (yield post(node, "header_by_hash", {"hash": receipt["blockHash"].hex()}))[1]["result"]["header"] == header
    results = (yield get(node, "block_results", height=str(height)))[1]["result"]
    tx_result = results["txs_results"][0]
    assert tx_result["code"] == 0 and tx_result["gas_used"] == "21000" and tx_result["data"] is None
    assert {"type": "ethereum_tx", "attributes": [
        {"key": "ethereumTxHash", "value": "0x" + receipt["transactionHash"].hex().removeprefix("0x"), "index": True},
        {"key": "txIndex", "value": "0", "index": True}]} in tx_result["events"]
    chain = (yield get(node, "blockchain", minHeight="1", maxHeight=str(height)))[1]["result"]
    assert [m["header"]["height"] for m in chain["block_metas"]] == [str(h) for h in range(height, 0, -1)]
    assert chain["block_metas"][0]["num_txs"] == "1"
    # The commit is our validator's real precommit: it verifies against the validator's key.
    commit = (yield get(node, "commit", height=str(height)))[1]["result"]
    assert commit["signed_header"]["header"] == header
    sig = commit["signed_header"]["commit"]["signatures"][0]
    vote_time = node.app.block_at(height + 1)[0].time_ns if node.app.height > height else None
    pubkey = ed25519.Ed25519PublicKey.from_public_bytes(node.genesis.validators[0].consensus_pubkey)
    block_hash = bytes.fromhex(block["block_id"]["hash"])
    bid = BlockId(block_hash, 1, bytes.fromhex(block["block_id"]["parts"]["hash"]))
    if vote_time is None:
        vote_time = node.app.block_at(height)[0].time_ns + 1_000_000
    pubkey.verify(base64.b64decode(sig["signature"]), sign_bytes(node.genesis.chain_id, height, 0, bid, vote_time))
    assert sig["block_id_flag"] == 2 and commit["canonical"] is (node.app.height > height)
    assert hashlib.sha256(raw).hexdigest().upper() == (yield get(node, "tx", hash="0x" + hashlib.sha256(
        raw).hexdigest()))[1]["result"]["hash"]


@pytest_twisted.inlineCallbacks
def test_each_block_carries_its_parents_signed_commit(node):
    web3 = w3(node)
    for nonce in range(2):
        yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": nonce})
    height = node.app.height
    block = (yield get(node, "block", height=str(height)))[1]["result"]["block"]
    parent_commit = (yield get(node, "commit", height=str(height - 1)))[1]["result"]["signed_header"]["commit"]
    # The block's last_commit is the signed commit `commit` serves for its parent ...
    assert block["last_commit"]["signatures"] == parent_commit["signatures"] != []
    assert block["last_commit"]["block_id"] == parent_commit["block_id"]
    # ... and its header commits to it: last_commit_hash is the Merkle root of the encoded CommitSigs.
    header, _ = node.app.block_at(height)
    assert block["header"]["last_commit_hash"] == votes.commit_hash(node.app.commit_sigs(header)).hex().upper()
    sig = block["last_commit"]["signatures"][0]
    pubkey = ed25519.Ed25519PublicKey.from_public_bytes(node.genesis.validators[0].consensus_pubkey)
    pubkey.verify(base64.b64decode(sig["signature"]),
                  sign_bytes(node.genesis.chain_id, height - 1, 0, header.last_block_id, header.time_ns))


def test_sign_bytes_match_cometbft_vector():
    # types/vote_test.go TestVoteSignBytesTestVectors case 4 (height 1, round 1, zero time, chain id).
    zero_time_ns = -62135596800 * 10**9
    expected = bytes([0x2e, 0x11, 1, 0, 0, 0, 0, 0, 0, 0, 0x19, 1, 0, 0, 0, 0, 0, 0, 0,
                      0x2a, 0xb, 0x8, 0x80, 0x92, 0xb8, 0xc3, 0x98, 0xfe, 0xff, 0xff, 0xff, 0x1,
                      0x32, 0xd]) + b"test_chain_id"
    from chaind.pb.tendermint.types import canonical_pb2, types_pb2

    # CometBFT's vector is a vote of type 0; ours are precommits (08 02), otherwise the same bytes.
    ours = sign_bytes("test_chain_id", 1, 1, BlockId(), zero_time_ns)
    vote = canonical_pb2.CanonicalVote.FromString(ours[1:])
    assert vote.type == types_pb2.SIGNED_MSG_TYPE_PRECOMMIT
    vote.type = 0
    body = vote.SerializeToString()
    assert bytes([len(body)]) + body == expected


@pytest_twisted.inlineCallbacks
def test_tx_and_tx_search_by_evm_hash_hash_height_and_proof(node):
    receipts = yield send_transfers(node, 3)
    target = receipts[1]
    evm_hash = "0x" + target["transactionHash"].hex().removeprefix("0x")
    status, reply = yield get(node, "tx_search", query=f"\"ethereum_tx.ethereumTxHash='{evm_hash}'\"")
    assert status == 200 and reply["result"]["total_count"] == "1"
    found = reply["result"]["txs"][0]
    assert found["height"] == str(target["blockNumber"]) and found["index"] == 0
    raw = base64.b64decode(found["tx"])
    assert found["hash"] == hashlib.sha256(raw).hexdigest().upper()
    # The same over JSON-RPC, with a proof that hashes up to the block's data_hash.
    posted = (yield post(node, "tx_search", {"query": f"ethereum_tx.ethereumTxHash='{evm_hash}'",
                                             "prove": True}))[1]["result"]
    proof = posted["txs"][0]["proof"]
    header = (yield get(node, "header", height=found["height"]))[1]["result"]["header"]
    assert proof["root_hash"] == header["data_hash"] and proof["proof"]["total"] == "1"
    by_hash = (yield post(node, "tx", {"hash": base64.b64encode(bytes.fromhex(found["hash"])).decode()}))[1]["result"]
    assert by_hash["hash"] == found["hash"] and by_hash["tx_result"]["code"] == 0
    by_native = (yield get(node, "tx_search", query=f"\"tx.hash='{found['hash']}'\""))[1]["result"]
    assert by_native["txs"][0]["hash"] == found["hash"]
    heights = [str(r["blockNumber"]) for r in receipts]
    ranged = (yield get(node, "tx_search", query=f"\"tx.height>={heights[1]} AND tx.height<={heights[2]}\""))[1]
    assert [t["height"] for t in ranged["result"]["txs"]] == heights[1:]
    status, missing = yield get(node, "tx", hash="0x" + "00" * 32)
    assert status == 500 and missing["error"]["data"] == "tx (" + "00" * 32 + ") not found"


@pytest_twisted.inlineCallbacks
def test_and_across_event_types_paging_and_order(node):
    receipts = yield send_transfers(node, 5)
    sender = node.app.keepers["bank"].bech32(bytes.fromhex(DEV0[2:]))
    # message.module (one event) AND ethereum_tx.txIndex and transfer.sender (other events): all 5 txs.
    query = f"message.module='evm' AND ethereum_tx.txIndex=0 AND transfer.sender='{sender}'"
    everything = (yield post(node, "tx_search", {"query": query}))[1]["result"]
    assert everything["total_count"] == "5"
    heights = [t["height"] for t in everything["txs"]]
    assert heights == sorted(heights, key=int) == [str(r["blockNumber"]) for r in receipts]
    page2 = (yield post(node, "tx_search", {"query": query, "page": "2", "per_page": "2"}))[1]["result"]
    assert [t["height"] for t in page2["txs"]] == heights[2:4] and page2["total_count"] == "5"
    desc = (yield post(node, "tx_search", {"query": query, "order_by": "desc", "per_page": "3"}))[1]["result"]
    assert [t["height"] for t in desc["txs"]] == heights[::-1][:3]
    none = (yield post(node, "tx_search", {"query": query + " AND message.module='bank'"}))[1]["result"]
    assert none == {"txs": [], "total_count": "0"}
    # A range over attribute values reads that tag's index; amounts are whole numbers here.
    gas = (yield post(node, "tx_search", {"query": "ethereum_tx.txGasUsed >= 21000 AND tx.height > 1"}))[1]
    assert gas["result"]["total_count"] == str(sum(1 for r in receipts if r["blockNumber"] > 1))
    blocks = (yield get(node, "block_search", query="\"block.height >= 2 AND block.height <= 4\""))[1]["result"]
    assert [b["block"]["header"]["height"] for b in blocks["blocks"]] == ["4", "3", "2"]
    assert blocks["total_count"] == "3"


@pytest_twisted.inlineCallbacks
def test_block_events_indexed_and_block_search(node):
    receipts = yield send_transfers(node, 3)
    heights = [r["blockNumber"] for r in receipts]
    # Every block carries x/feemarket's events, BeginBlock's first, with the mode the SDK appends.
    results = (yield get(node, "block_results", height=str(heights[0])))[1]["result"]
    base_fee = str(node.app.block_at(heights[0])[1].base_fee)
    # (distribution's and epochs' begin-block events come between them; tested with those modules)
    feemarket = [e for e in results["finalize_block_events"] if e["type"] in ("fee_market", "block_gas")]
    assert feemarket == [
        {"type": "fee_market", "attributes": [{"key": "base_fee", "value": base_fee, "index": True},
                                              {"key": "mode", "value": "BeginBlock", "index": True}]},
        {"type": "block_gas", "attributes": [{"key": "height", "value": str(heights[0]), "index": True},
                                             {"key": "amount", "value": "21000", "index": True},
                                             {"key": "mode", "value": "EndBlock", "index": True}]}]

    def search(query, **params):
        return post(node, "block_search", {"query": query, **params}).addCallback(lambda r: r[1])

    def block_heights(reply):
        return [int(b["block"]["header"]["height"]) for b in reply["result"]["blocks"]]

    # Blocks with gas used: the ones holding the transfers (block 1 is empty), newest first by default.
    used = yield search("block_gas.amount > 0")
    assert block_heights(used) == heights[::-1] and used["result"]["total_count"] == "3"
    first = used["result"]["blocks"][-1]
    assert first == (yield get(node, "block", height=str(heights[0])))[1]["result"]
    assert block_heights((yield search(f"block_gas.height = {heights[1]}"))) == [heights[1]]
    # Conditions on different events of a block and on block.height intersect; asc pages upward.
    both = yield search(f"fee_market.mode = 'BeginBlock' AND block_gas.amount = 21000 AND block.height > {heights[0]}",
                        order_by="asc", per_page="1", page="2")
    assert block_heights(both) == [heights[2]] and both["result"]["total_count"] == "2"
    assert block_heights((yield search("tm.event = 'NewBlock' AND block_gas.amount < 1"))) == [1]
    assert (yield search("tm.event = 'Tx' AND block.height > 0"))["result"] == {"blocks": [], "total_count": "0"}
    assert (yield search("block_gas.amount EXISTS AND block_gas.mode CONTAINS 'End'"))["result"]["total_count"] == \
        str(node.app.height)
    status, over = yield get(node, "block_search", query='"block.height >= 1"', per_page="1000")
    assert status == 200 and len(over["result"]["blocks"]) == min(100, node.app.height)
    status, bad = yield get(node, "block_search", query='"block.height >= 1"', page="9")
    assert status == 500 and bad["error"]["data"] == "page should be within [1, 1] range, given 9"
    assert (yield search("block.height >= 1", order_by="sideways"))["error"]["data"] == \
        "expected order_by to be either `asc` or `desc` or empty"
    assert (yield search("block_gas.amount >"))["error"]["data"] == "offset 18: EOF"
    status, unquoted = yield get(node, "block_search", query="block.height>1")
    assert status == 500 and unquoted["error"]["code"] == -32602


@pytest_twisted.inlineCallbacks
def test_block_search_uses_the_index_after_restart(node_factory):
    node = node_factory()
    receipt, = yield send_transfers(node, 1)
    yield node.stopService()
    again = node_factory()
    reply = (yield post(again, "block_search", {"query": f"block_gas.height={receipt['blockNumber']}"}))[1]
    assert [b["block"]["header"]["height"] for b in reply["result"]["blocks"]] == [str(receipt["blockNumber"])]
    # The block's index entries landed in its own batch: one key per indexed attribute, ending in the height.
    prefix = eventindex.value_prefix(keys.BLOCK_EVENT, "block_gas.height", str(receipt["blockNumber"]))
    assert list(again.app.db.keys(prefix)) == [prefix + keys.height_bytes(receipt["blockNumber"])]


def test_index_entries_and_event_records_of_random_events():
    """A tx's and a block's index entries are value_prefix(tag, value) + position for each attribute marked for
    indexing, with a type and a key, whose tag is not reserved; an event's record is the JSON of its type and
    attribute lists, and reads back as the same event."""
    rng = random.Random(15)
    types_ = ["transfer", "tx", "tm", "block", "", "commission", "ünï"]
    keys_ = ["amount", "hash", "height", "event", "", "validator", "mode", "ключ"]
    for _ in range(300):
        events = tuple(Event(rng.choice(types_), tuple(
            (rng.choice(keys_), rng.choice(["", "1achain", "BeginBlock", "värde", str(rng.randrange(10**30))]),
             rng.random() < 0.8) for _ in range(rng.randrange(4)))) for _ in range(rng.randrange(6)))
        height, index = rng.randrange(1, 10**6), rng.randrange(100)
        indexed = [(f"{e.type}.{k}", v) for e in events for k, v, marked in e.attributes
                   if marked and e.type and k and f"{e.type}.{k}" not in eventindex.RESERVED]
        assert eventindex.tx_entries(height, index, events) == {
            eventindex.value_prefix(keys.TX_EVENT, tag, value) + keys.position_bytes(height, index): b""
            for tag, value in indexed}
        assert eventindex.block_entries(height, events) == {
            eventindex.value_prefix(keys.BLOCK_EVENT, tag, value) + keys.height_bytes(height): b""
            for tag, value in indexed}
        for e in events:
            record = orjson.dumps(e.to_record())
            assert record == orjson.dumps([e.type, [list(a) for a in e.attributes]])
            assert Event.from_record(orjson.loads(record)) == e


@pytest.mark.parametrize("params, data", [
    ({"query": "tx.height 5"}, "offset 10: got number, wanted <= operator, >= operator, < operator, > operator, "
                               "= operator, CONTAINS operator or EXISTS operator"),
    ({"query": "tx.height>0", "page": "3"}, "page should be within [1, 1] range, given 3"),
    ({"query": "tx.height>0", "order_by": "up"}, "expected order_by to be either `asc` or `desc` or empty"),
    ({"query": "a.b='" + "x" * 600 + "'"}, "maximum query length exceeded"),
    ({"query": "tx.hash='XYZ'"}, "error during searching for a hash in the query: encoding/hex: invalid byte: "
                                 "U+0058 'X'"),
])
@pytest_twisted.inlineCallbacks
def test_search_errors(node, params, data):
    status, reply = yield post(node, "tx_search", params)
    assert status == 200 and reply["error"] == {"code": -32603, "message": "Internal error", "data": data}


@pytest_twisted.inlineCallbacks
def test_envelope_and_argument_errors(node):
    status, reply = yield post(node, "block", {"height": 1})
    assert status == 200 and reply["error"]["code"] == -32602
    assert reply["error"]["data"] == ('error converting json params to arguments: invalid 64-bit integer encoding '
                                      '"1", expected string')
    status, reply = yield post(node, "block", [])
    assert reply["error"]["data"].endswith("expected 1 parameters ([height]), got 0 ([])")
    status, reply = yield get(node, "tx_search", query="tx.height>0")     # unquoted
    assert status == 500 and reply["error"]["code"] == -32602
    status, reply = yield get(node, "block", height="99999")
    assert status == 500 and reply["error"]["data"].startswith("height 99999 must be less than or equal to")
    status, reply = yield post(node, "no_such_route", {})
    assert reply["error"] == {"code": -32601, "message": "Method not found"}
    status, reply = yield post(node, "subscribe", {"query": "tm.event='NewBlock'"})
    assert reply["error"]["code"] == -32601
    status, body, _ = yield in_thread(fetch, base(node) + "/", b"{not json")
    assert status == 500 and json.loads(body)["error"]["code"] == -32700
    batch = [{"jsonrpc": "2.0", "id": i, "method": "health"} for i in range(11)]
    status, body, _ = yield in_thread(fetch, base(node) + "/", json.dumps(batch).encode())
    assert json.loads(body)["error"]["data"] == "batch request exceeds maximum (10) allowed number of requests"
    status, body, _ = yield in_thread(fetch, base(node) + "/", json.dumps(batch[:2] + [
        {"jsonrpc": "2.0", "method": "health"}]).encode())
    assert [r["id"] for r in json.loads(body)] == [0, 1]
    status, body, headers = yield in_thread(fetch, base(node) + "/foo")
    assert status == 404 and body == b"404 page not found\n"
    status, _, headers = yield in_thread(fetch, base(node) + "/genesis")
    assert headers["Cache-Control"] == "public, max-age=86400" and "X-Server-Time" in headers
    # Still serving after all that.
    assert (yield get(node, "health"))[0] == 200


@pytest_twisted.inlineCallbacks
def test_page_size_limits_are_settings(node_factory):
    node = node_factory(cometbft_rpc={"default_per_page": 2, "max_per_page": 3})
    yield send_transfers(node, 4)
    query = "message.module='evm'"
    default = (yield post(node, "tx_search", {"query": query}))[1]["result"]
    assert len(default["txs"]) == 2 and default["total_count"] == "4"
    capped = (yield post(node, "tx_search", {"query": query, "per_page": "50"}))[1]["result"]
    assert len(capped["txs"]) == 3
    # With the cap of 3, four txs make two pages: page 2 holds the last one, page 3 is out of range.
    last = (yield post(node, "tx_search", {"query": query, "per_page": "50", "page": "2"}))[1]["result"]
    assert [t["height"] for t in last["txs"]] == [str(node.app.height)]
    status, beyond = yield get(node, "tx_search", query=f'"{query}"', per_page="50", page="3")
    assert status == 500 and beyond["error"]["data"] == "page should be within [1, 2] range, given 3"
    blocks = (yield post(node, "block_search", {"query": "block.height >= 1", "per_page": "0"}))[1]["result"]
    assert len(blocks["blocks"]) == 2 and blocks["total_count"] == "5"
    blocks = (yield post(node, "block_search", {"query": "block.height >= 1", "per_page": "100"}))[1]["result"]
    assert [b["block"]["header"]["height"] for b in blocks["blocks"]] == ["5", "4", "3"]
    assert (yield post(node, "block_search", {"query": "block.height >= 1", "page": "0"}))[1]["error"]["data"] == \
        "page should be within [1, 3] range, given 0"


@pytest_twisted.inlineCallbacks
def test_query_length_limit_is_a_setting(node_factory):
    node = node_factory(cometbft_rpc={"max_query_length": 20})
    ok = (yield post(node, "tx_search", {"query": "a.b='" + "x" * 14 + "'"}))[1]
    assert ok["result"] == {"txs": [], "total_count": "0"}
    for route in ("tx_search", "block_search"):
        over = (yield post(node, route, {"query": "a.b='" + "x" * 15 + "'"}))[1]
        assert over["error"]["data"] == "maximum query length exceeded"


@pytest.mark.parametrize("request_body, status, error", [
    (b'{"jsonrpc":"2.0","id":true,"method":"health"}', 500,
     {"code": -32700, "message": "Parse error. Invalid JSON",
      "data": "error unmarshaling request: json-rpc ID (true) is of unknown type (bool)"}),
    (b'{"jsonrpc":"2.0","id":1}', 200,
     {"code": -32600, "message": "Invalid Request", "data": "invalid request object"}),
    (b'[1]', 200, {"code": -32600, "message": "Invalid Request", "data": "invalid request object"}),
    (b'{"jsonrpc":"2.0","id":1,"method":"tx","params":{"hash":"not base64!"}}', 200,
     {"code": -32602, "message": "Invalid params",
      "data": "error converting json params to arguments: illegal base64 data at input byte 3"}),
    (b'{"jsonrpc":"2.0","id":1,"method":"header_by_hash","params":{"hash":"ZZ"}}', 200,
     {"code": -32602, "message": "Invalid params",
      "data": "error converting json params to arguments: encoding/hex: invalid hex string 'ZZ'"}),
    (b'{"jsonrpc":"2.0","id":1,"method":"tx_search","params":{"query":5}}', 200,
     {"code": -32602, "message": "Invalid params",
      "data": "error converting json params to arguments: json: cannot unmarshal number into Go value of type string"}),
])
@pytest_twisted.inlineCallbacks
def test_malformed_json_rpc(node, request_body, status, error):
    got_status, body, _ = yield in_thread(fetch, base(node) + "/", request_body)
    reply = json.loads(body)
    reply = reply[0] if isinstance(reply, list) else reply
    assert got_status == status and reply["error"] == error
    assert (yield get(node, "health"))[0] == 200


@pytest.mark.parametrize("route, args, data", [
    ("tx", {"hash": "0xZZ"}, "error converting http params to arguments: encoding/hex: invalid hex 'ZZ'"),
    ("header_by_hash", {"hash": "0x12G4"},
     "error converting http params to arguments: encoding/hex: invalid hex '12G4'"),
    ("block", {"height": "ten"}, "error converting http params to arguments: invalid character 't' looking for "
                                 "beginning of value"),
    ("tx_search", {"query": "'tx.height=1'"}, "error converting http params to arguments: invalid character \"'\" "
                                              "looking for beginning of value"),
])
@pytest_twisted.inlineCallbacks
def test_bad_uri_arguments(node, route, args, data):
    status, reply = yield get(node, route, **args)
    assert status == 500 and reply["error"] == {"code": -32602, "message": "Invalid params", "data": data}


@pytest_twisted.inlineCallbacks
def test_broadcast_and_check_tx(node):
    from chaind.chain import txs
    from evm_client import sign

    web3 = w3(node)
    nonce = yield in_thread(web3.eth.get_transaction_count, DEV0)

    def envelope(n):
        return txs.wrap_evm(bytes(sign({"to": OTHER, "value": 1, "nonce": n}).raw_transaction),
                            node.genesis.evm_chain_id, node.genesis.base_denom).raw

    checked = (yield post(node, "check_tx", {"tx": base64.b64encode(envelope(nonce)).decode()}))[1]["result"]
    assert checked["code"] == 0 and checked["gas_wanted"] == "21000"
    committed = (yield post(node, "broadcast_tx_commit", {"tx": base64.b64encode(envelope(nonce)).decode()}))[1]
    result = committed["result"]
    assert result["check_tx"]["code"] == 0 and result["tx_result"]["code"] == 0 and result["height"] != "0"
    again = (yield post(node, "broadcast_tx_sync", {"tx": base64.b64encode(envelope(nonce)).decode()}))[1]["result"]
    assert again["code"] == 32 and again["codespace"] == "sdk" and "sequence" in again["log"]
    garbage = (yield post(node, "broadcast_tx_sync", {"tx": base64.b64encode(b"junk").decode()}))[1]["result"]
    assert garbage["code"] == 2
    raw = envelope(nonce + 1)
    sync = (yield get(node, "broadcast_tx_sync", tx="0x" + raw.hex()))[1]["result"]
    assert sync == {"code": 0, "data": "", "log": "", "codespace": "", "hash": hashlib.sha256(raw).hexdigest().upper()}


@pytest_twisted.inlineCallbacks
def test_index_persists_across_restart(node_factory):
    node = node_factory()
    receipt, = yield send_transfers(node, 1)
    evm_hash = "0x" + receipt["transactionHash"].hex().removeprefix("0x")
    yield node.stopService()
    again = node_factory()
    reply = (yield post(again, "tx_search", {"query": f"ethereum_tx.ethereumTxHash='{evm_hash}'"}))[1]["result"]
    assert reply["total_count"] == "1" and reply["txs"][0]["height"] == str(receipt["blockNumber"])


@pytest_twisted.inlineCallbacks
def test_abci_query_answers_the_grpc_query_services(node):
    from chaind.pb.cosmos.bank.v1beta1 import query_pb2 as bank_query

    web3 = w3(node)
    receipt = yield in_thread(send, web3, {"to": OTHER, "value": 5, "nonce": 0})
    address = bech32(node, OTHER)

    def balance_at(height=None):
        request = bank_query.QueryBalanceRequest(address=address, denom=node.genesis.base_denom)
        params = {"path": "/cosmos.bank.v1beta1.Query/Balance", "data": request.SerializeToString().hex()}
        if height is not None:
            params["height"] = str(height)
        return post(node, "abci_query", params)

    _, reply = yield balance_at()
    response = reply["result"]["response"]
    assert response["code"] == 0 and response["height"] == str(node.app.height)
    answer = bank_query.QueryBalanceResponse.FromString(base64.b64decode(response["value"]))
    assert int(answer.balance.amount) == 5 == (yield in_thread(web3.eth.get_balance, OTHER))
    _, reply = yield balance_at(receipt.blockNumber - 1)
    past = bank_query.QueryBalanceResponse.FromString(base64.b64decode(reply["result"]["response"]["value"] or ""))
    assert reply["result"]["response"]["height"] == str(receipt.blockNumber - 1) and past.balance.amount in ("", "0")
    _, reply = yield post(node, "abci_query", {"path": "/cosmos.bank.v1beta1.Query/Nope", "data": ""})
    assert reply["result"]["response"]["code"] == 6 and "unknown query path" in reply["result"]["response"]["log"]
    bad = bank_query.QueryBalanceRequest(address="chain1notanaddress", denom="achain").SerializeToString().hex()
    _, reply = yield post(node, "abci_query", {"path": "/cosmos.bank.v1beta1.Query/Balance", "data": bad})
    assert reply["result"]["response"]["code"] == 18 and "InvalidArgument" in reply["result"]["response"]["log"]


def bech32(node, hex_address):
    from chaind.crypto.addresses import to_bech32

    return to_bech32(node.genesis.bech32_prefix, bytes.fromhex(hex_address[2:]))
