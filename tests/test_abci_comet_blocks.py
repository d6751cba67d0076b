"""In socket mode the blocks gRPC and REST serve take their part-set header and last commit from CometBFT's RPC
(ABCI never gives them to the app): what that RPC cannot give, or gives otherwise than this node committed, is a
clear error, never a made-up block. (The blocks served when it agrees: tests/test_cometbft_network.py.) Node info
and syncing are CometBFT's /status, as the SDK serves them."""

import json
import time

import grpc
import pytest
import pytest_twisted
from twisted.internet import reactor
from twisted.web import resource, server

from abci_driver import Driver, Replica
from chaind import config
from chaind.pb.cosmos.base.tendermint.v1beta1 import query_pb2, query_pb2_grpc
from helpers import call, in_thread, rest


class _CometBlockRpc(resource.Resource):
    """A stand-in for CometBFT's `/block`: it answers what the test sets (a JSON object, or None: never)."""

    isLeaf = True

    def __init__(self):
        super().__init__()
        self.answer, self.status, self.asked, self.held = None, None, [], []
        self.port = reactor.listenTCP(0, server.Site(self), interface="127.0.0.1")

    @property
    def address(self):
        return f"127.0.0.1:{self.port.getHost().port}"

    def render_GET(self, request):
        self.asked.append(request.uri.decode())
        if request.path == b"/status":
            request.setHeader(b"content-type", b"application/json")
            return json.dumps(self.status).encode()
        if self.answer is None:
            self.held.append(request)
            return server.NOT_DONE_YET
        request.setHeader(b"content-type", b"application/json")
        return json.dumps(self.answer).encode()

    def close(self):
        for request in self.held:
            if not request.finished and not request._disconnected:
                request.finish()
        return self.port.stopListening()


@pytest.fixture
def comet_rpc():
    rpc = _CometBlockRpc()
    yield rpc
    pytest_twisted.blockon(rpc.close())


def _two_blocks(port, genesis_doc, time_ns):
    replica = Replica(port)
    driver = Driver(genesis_doc)
    driver.handshake(replica)
    for i in range(2):
        driver.run_block([replica], driver.decide([], time_ns + i * 10**9))
    replica.close()


def _block(hash_hex, parent_hex, signature_b64):
    """/block's result as CometBFT v0.38 writes it (the fields chaind reads), a block carrying one signature."""
    parts = {"total": 1, "hash": "AB" * 32}
    return {"jsonrpc": "2.0", "id": -1, "result": {
        "block_id": {"hash": hash_hex, "parts": parts},
        "block": {"last_commit": {"height": "1", "round": 0, "block_id": {"hash": parent_hex, "parts": parts},
                                  "signatures": [{"block_id_flag": 2, "validator_address": "CD" * 20,
                                                  "timestamp": "2026-01-02T03:04:05.123456789Z",
                                                  "signature": signature_b64}]}}}}


@pytest_twisted.inlineCallbacks
def test_a_block_cometbft_does_not_give_is_an_error_not_a_made_up_one(node_factory, comet_rpc):
    node = node_factory(abci={"mode": "socket", "address": "127.0.0.1:0", "cometbft_rpc": comet_rpc.address,
                              "cometbft_rpc_timeout": 0.5})
    yield in_thread(_two_blocks, node.port_of("abci"), node.genesis.document, node.genesis.genesis_time_ns + 10**9)
    stub, by_height = query_pb2_grpc.ServiceStub, query_pb2.GetBlockByHeightRequest(height=2)

    # CometBFT's RPC does not answer: unavailable once [abci] cometbft-rpc-timeout has passed.
    started = time.monotonic()
    status, _, body = yield rest(node, "/cosmos/base/tendermint/v1beta1/blocks/2")
    assert time.monotonic() - started < 5
    assert status == 503 and body["code"] == 14 and "did not answer" in body["message"], body
    assert comet_rpc.asked == ["/block?height=2"]
    _, error = yield call(node, stub, "GetBlockByHeight", by_height)
    assert error[0] == grpc.StatusCode.UNAVAILABLE and f"CometBFT's RPC at http://{comet_rpc.address}/block" in error[1]

    # It knows another block at that height than this node committed.
    header, meta = node.app.block_at(2)
    parent = header.last_block_id.hash.hex().upper()
    comet_rpc.answer = _block("00" * 32, parent, "c2lnbmF0dXJl")
    _, error = yield call(node, stub, "GetBlockByHeight", by_height)
    assert error[1] == f"CometBFT's block 2 is {'00' * 32}, this node committed {meta.hash.hex().upper()}"
    _, error = yield call(node, stub, "GetLatestBlock", query_pb2.GetLatestBlockRequest())
    assert error[1].startswith("CometBFT's block 2 is ")
    status, _, body = yield rest(node, "/cosmos/tx/v1beta1/txs/block/2")
    assert body["message"].startswith("CometBFT's block 2 is "), body

    # The same block, but a commit that does not make this node's header hash to it.
    comet_rpc.answer = _block(meta.hash.hex().upper(), parent, "c2lnbmF0dXJl")
    _, error = yield call(node, stub, "GetBlockByHeight", by_height)
    assert error[1] == (f"CometBFT's last commit of block 2 and this node's header of it do not hash to its "
                        f"block hash {meta.hash.hex().upper()}")

    # An error of CometBFT's (a pruned height, say) is passed on; an answer that is no block says so.
    comet_rpc.answer = {"jsonrpc": "2.0", "id": -1, "error": {
        "code": -32603, "message": "Internal error", "data": "height 2 is not available, lowest height is 3"}}
    _, error = yield call(node, stub, "GetBlockByHeight", by_height)
    assert error[1] == "CometBFT's /block?height=2: height 2 is not available, lowest height is 3"
    comet_rpc.answer = _block(meta.hash.hex().upper(), parent, "not base64!")
    _, error = yield call(node, stub, "GetBlockByHeight", by_height)
    assert error[1].startswith("CometBFT's /block?height=2 does not decode as a block: Error"), error


STATUS = {"jsonrpc": "2.0", "id": -1, "result": {
    "node_info": {"protocol_version": {"p2p": "8", "block": "11", "app": "0"},
                  "id": "e57cec6e4872051d759a8cd5e1246ad74cd4a8fb", "listen_addr": "tcp://127.0.0.1:26656",
                  "network": "chain_9000-1", "version": "0.38.25", "channels": "40202122233038606100",
                  "moniker": "node0", "other": {"tx_index": "on", "rpc_address": "tcp://127.0.0.1:26657"}},
    "sync_info": {"latest_block_height": "7", "catching_up": True},
    "validator_info": {"address": "CD" * 20, "voting_power": "100"}}}


@pytest_twisted.inlineCallbacks
def test_node_info_and_syncing_are_cometbfts(node_factory, comet_rpc):
    node = node_factory(abci={"mode": "socket", "address": "127.0.0.1:0", "cometbft_rpc": comet_rpc.address})
    comet_rpc.status = STATUS
    status, _, body = yield rest(node, "/cosmos/base/tendermint/v1beta1/syncing")
    assert (status, body) == (200, {"syncing": True})
    status, _, body = yield rest(node, "/cosmos/base/tendermint/v1beta1/node_info")
    assert body["default_node_info"] == {
        "protocol_version": {"p2p": "8", "block": "11", "app": "0"},
        "default_node_id": "e57cec6e4872051d759a8cd5e1246ad74cd4a8fb", "listen_addr": "tcp://127.0.0.1:26656",
        "network": "chain_9000-1", "version": "0.38.25", "channels": "QCAhIiMwOGBhAA==", "moniker": "node0",
        "other": {"tx_index": "on", "rpc_address": "tcp://127.0.0.1:26657"}}, body
    assert body["application_version"]["app_name"] == "chaind"
    comet_rpc.status = {**STATUS, "result": {**STATUS["result"], "sync_info": {"catching_up": "no"}}}
    _, error = yield call(node, query_pb2_grpc.ServiceStub, "GetSyncing", query_pb2.GetSyncingRequest())
    assert error[1] == "CometBFT's /status does not decode as a status: TypeError catching_up is 'no'"


def test_cometbft_rpc_timeout_is_checked():
    assert config.load(text="").abci.cometbft_rpc_timeout == 10.0
    with pytest.raises(config.ConfigError, match="cometbft-rpc-timeout"):
        config.load(text="[abci]\ncometbft-rpc-timeout = 0\n")
