"""The ABCI socket face in one process: framing, order, Flush/Echo, Exception, bad frames, and a block
driven over the socket served by the EVM face as the block CometBFT decided."""

import json
import socket
import urllib.request

import grpc
import pytest
import pytest_twisted
import requests
from eth_account import Account
from prometheus_client.parser import text_string_to_metric_families
from twisted.logger import globalLogPublisher
from websockets.sync.client import connect

import chaind
import staking_msgs
from abci_driver import AbciClient, AbciClosed, Driver, Replica
from chaind import config
from chaind.chain import txs, valset
from chaind.consensus.abci.framing import FrameError, FrameReader, encode_uvarint, frame
from chaind.crypto.addresses import to_bech32
from chaind.events import types as ev
from chaind.pb.cosmos.bank.v1beta1 import query_pb2 as bank_query
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_service
from chaind.pb.cosmos.tx.v1beta1 import service_pb2_grpc as tx_grpc
from chaind.pb.tendermint.abci import types_pb2 as pb
from helpers import call, in_thread, url, ws_url
from native_client import signed_send
from native_txs import build_native


@pytest.fixture
def abci_node(node_factory):
    return node_factory(abci={"mode": "socket", "address": "127.0.0.1:0", "max_message_bytes": 65536})


@pytest.fixture
def logged():
    lines = []

    def observe(event):
        if "log_format" in event and event.get("log_namespace", "").startswith("chaind.consensus.abci"):
            from twisted.logger import formatEvent
            lines.append(formatEvent(event))
    globalLogPublisher.addObserver(observe)
    yield lines
    globalLogPublisher.removeObserver(observe)


def test_framing_round_trip_and_limits():
    reader = FrameReader(300)
    data = frame(b"a" * 200) + frame(b"") + frame(b"b" * 5)
    assert reader.feed(data[:1]) == [] and reader.feed(data[1:150]) == []
    assert reader.feed(data[150:]) == [b"a" * 200, b"", b"b" * 5]
    assert reader.pending() == 0
    assert encode_uvarint(300) == b"\xac\x02"
    with pytest.raises(FrameError, match="301 bytes exceeds the limit of 300"):
        FrameReader(300).feed(encode_uvarint(301))
    with pytest.raises(FrameError, match="not a valid varint"):
        FrameReader(300).feed(b"\xff" * 11)


def test_socket_mode_turns_the_producer_and_26657_off(abci_node):
    assert "cometbft" not in abci_node.listeners and "abci" in abci_node.listeners
    assert "consensus: CometBFT over ABCI (socket mode)" in abci_node.out.getvalue()
    assert abci_node.app.height == 0        # no block until CometBFT decides one


def _pipelined(port):
    client = AbciClient(port)
    client.send(pb.Request(echo=pb.RequestEcho(message="one")), pb.Request(info=pb.RequestInfo()),
                pb.Request(check_tx=pb.RequestCheckTx(tx=b"\x01junk")),
                pb.Request(query=pb.RequestQuery(path="/app/version")),
                pb.Request(echo=pb.RequestEcho(message="two")), pb.Request(flush=pb.RequestFlush()))
    answers = [client.receive() for _ in range(6)]
    client.close()
    return answers


@pytest_twisted.inlineCallbacks
def test_requests_are_answered_in_order(abci_node):
    answers = yield in_thread(_pipelined, abci_node.port_of("abci"))
    assert [a.WhichOneof("value") for a in answers] == ["echo", "info", "check_tx", "query", "echo", "flush"]
    assert answers[0].echo.message == "one" and answers[4].echo.message == "two"
    assert answers[2].check_tx.code != 0 and answers[2].check_tx.codespace == "sdk"
    assert answers[3].query.code == 0 and answers[3].query.value == chaind.__version__.encode()


def _bad_then_good(port, bad_bytes, close_after=False):
    """Send `bad_bytes` on one connection; returns (what that connection got, an Echo on another)."""
    bad = AbciClient(port)
    good = AbciClient(port)
    bad.sock.sendall(bad_bytes)
    if close_after:
        bad.sock.shutdown(socket.SHUT_WR)
    try:
        got = bad.receive()
    except AbciClosed as e:
        got = e
    echo = good.call("echo", pb.RequestEcho(message="still here"))
    bad.close()
    good.close()
    return got, echo.message


@pytest_twisted.inlineCallbacks
def test_oversized_frame_closes_that_connection_only(abci_node, logged):
    got, echo = yield in_thread(_bad_then_good, abci_node.port_of("abci"), encode_uvarint(70000) + b"x" * 10)
    assert isinstance(got, AbciClosed) and got.exception is None
    assert echo == "still here"
    assert any("message of 70000 bytes exceeds the limit of 65536" in line for line in logged), logged


@pytest_twisted.inlineCallbacks
def test_undecodable_message_closes_that_connection(abci_node, logged):
    got, echo = yield in_thread(_bad_then_good, abci_node.port_of("abci"), frame(b"\x0a\xff\xff"))
    assert isinstance(got, AbciClosed) and echo == "still here"
    assert any("undecodable request" in line for line in logged), logged


@pytest_twisted.inlineCallbacks
def test_truncated_message_is_logged(abci_node, logged):
    payload = pb.Request(echo=pb.RequestEcho(message="cut short")).SerializeToString()
    got, echo = yield in_thread(_bad_then_good, abci_node.port_of("abci"), frame(payload)[:-3], True)
    assert isinstance(got, AbciClosed) and echo == "still here"
    yield _settle()
    assert any("truncated message dropped" in line for line in logged), logged


@pytest_twisted.inlineCallbacks
def test_unknown_request_gets_an_exception_then_close(abci_node, logged):
    # Field 30 of Request: a oneof member this ABCI version does not have (an empty message).
    got, echo = yield in_thread(_bad_then_good, abci_node.port_of("abci"), frame(b"\xf2\x01\x00"))
    assert isinstance(got, AbciClosed) and "unknown request" in got.exception
    assert echo == "still here"
    assert any("unknown request" in line for line in logged)


def _settle():
    from twisted.internet import reactor, task
    return task.deferLater(reactor, 0.2, lambda: None)


def _init_chain(port, driver, changes=None, validators=()):
    replica = Replica(port)
    try:
        request = driver.init_chain_request()
        for name, value in (changes or {}).items():
            setattr(request, name, value)
        request.validators.extend(validators)
        return replica.consensus.call("init_chain", request)
    except AbciClosed as e:
        return e
    finally:
        replica.close()


@pytest_twisted.inlineCallbacks
def test_init_chain_refuses_another_chains_genesis(abci_node):
    driver = Driver(abci_node.genesis.document)
    port = abci_node.port_of("abci")
    got = yield in_thread(_init_chain, port, driver, {"chain_id": "other_1-1"})
    assert isinstance(got, AbciClosed) and "chain_id 'other_1-1'" in got.exception
    got = yield in_thread(_init_chain, port, driver, {"app_state_bytes": b'{"bank": {}}'})
    assert isinstance(got, AbciClosed) and "app_state differs" in got.exception
    wrong = pb.ValidatorUpdate(power=5)
    wrong.pub_key.ed25519 = b"\x07" * 32
    got = yield in_thread(_init_chain, port, driver, None, [wrong])
    assert isinstance(got, AbciClosed) and "genesis validators are not this chain's" in got.exception
    # CometBFT's genesis without validators: the app's set is the one used, and the answer names it.
    answer = yield in_thread(_init_chain, port, driver)
    assert [(v.pub_key.ed25519, v.power) for v in answer.validators] == \
        [(v.consensus_pubkey, v.power) for v in abci_node.genesis.validators]
    assert answer.app_hash == abci_node.app.head[1].app_hash


def _ws_call(ws, method, *params):
    ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}))
    return json.loads(ws.recv(timeout=10))["result"]


def _check_one(port, raw, ws):
    replica = Replica(port)
    driver = Driver(replica_genesis[0])
    assert driver.handshake(replica) == 0
    _ws_call(ws, "eth_subscribe", "newPendingTransactions")
    check = driver.check(replica, raw)
    assert check.code == 0, check.log
    pending = json.loads(ws.recv(timeout=10))["params"]["result"]
    again = driver.check(replica, raw)      # the pool's own rule, as in builtin mode
    return replica, driver, again, pending


def _drive_one_block(replica, driver, raw, time_ns, ws):
    _ws_call(ws, "eth_subscribe", "newHeads")
    assert driver.propose(replica, [b"\x01undecodable", raw], time_ns) == [raw]
    block = driver.decide([raw], time_ns)
    response = driver.run_block([replica], block)
    head = json.loads(ws.recv(timeout=10))["params"]["result"]
    recheck = driver.check(replica, raw, recheck=True)
    second = driver.handshake(replica)      # a restarted CometBFT: Info says height 1, nothing to replay
    replica.close()
    return block, response, recheck, second, head


replica_genesis = []       # the node's genesis document, for the driver thread


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_a_decided_block_is_the_block_the_node_serves(abci_node):
    sub = abci_node.bus.subscribe(lambda e: isinstance(e, (ev.NewBlock, ev.Tx, ev.PendingTx)))
    replica_genesis[:] = [abci_node.genesis.document]
    key = abci_node.dev_keys[0]
    signed = Account.sign_transaction({"chainId": 9000, "gas": 21000, "maxFeePerGas": 10**10,
                                       "maxPriorityFeePerGas": 1, "nonce": 0, "to": "0x" + "33" * 20,
                                       "value": 12345}, key.private_key)
    raw = txs.wrap_evm(signed.raw_transaction, 9000, abci_node.genesis.base_denom).raw
    time_ns = abci_node.genesis.genesis_time_ns + 5 * 10**9 + 123
    ws = yield in_thread(connect, ws_url(abci_node))
    replica, driver, again, pending = yield in_thread(_check_one, abci_node.port_of("abci"), raw, ws)
    assert pending == "0x" + bytes(signed.hash).hex()
    assert again.code == 19 and "already exists in cache" in again.log
    # CheckTx admitted it: the faces see it pending (txpool, pending nonce, newPendingTransactions).
    assert abci_node.mempool.get(evm_hash=bytes(signed.hash)) is not None
    block, response, recheck, second, head = yield in_thread(_drive_one_block, replica, driver, raw, time_ns, ws)
    ws.close()
    # newHeads fired on Commit, with the block CometBFT decided.
    assert head["hash"] == "0x" + block.hash.hex() and head["number"] == "0x1"
    assert len(abci_node.mempool) == 0
    assert second == 1
    assert [r.code for r in response.tx_results] == [0]
    assert recheck.code == 32 and "account sequence mismatch" in recheck.log
    late = yield in_thread(_init_chain, abci_node.port_of("abci"), Driver(abci_node.genesis.document))
    assert isinstance(late, AbciClosed) and "committed blocks up to 1" in late.exception
    assert abci_node.app.height == 1 and response.app_hash == abci_node.app.head[1].app_hash
    got = yield in_thread(lambda: requests.post(url(abci_node), json={
        "jsonrpc": "2.0", "id": 1, "method": "eth_getBlockByNumber", "params": ["0x1", False]}).json()["result"])
    assert got["hash"] == "0x" + block.hash.hex()
    assert int(got["timestamp"], 16) == time_ns // 10**9
    assert got["miner"].lower() == "0x" + block.proposer.hex()
    assert got["transactions"] == ["0x" + signed.hash.hex().removeprefix("0x")]
    kinds = [type(e).__name__ for e in sub.drain()]
    assert kinds == ["PendingTx", "NewBlock", "Tx"], kinds


class _CometRpc:
    """A stand-in for CometBFT's RPC: broadcast_tx_sync answers are queued by the test; txs are recorded."""

    def __init__(self):
        from twisted.internet import reactor
        from twisted.web import resource, server

        self.received, self.answers = [], []
        outer = self

        class Root(resource.Resource):
            isLeaf = True

            def render_POST(self, request):
                import base64
                import json
                body = json.loads(request.content.read())
                outer.received.append((body["method"], base64.b64decode(body["params"]["tx"])))
                return json.dumps({"jsonrpc": "2.0", "id": body["id"], **outer.answers.pop(0)}).encode()
        self.port = reactor.listenTCP(0, server.Site(Root()), interface="127.0.0.1")

    @property
    def address(self):
        return f"127.0.0.1:{self.port.getHost().port}"


def _eth(node, method, *params):
    return requests.post(url(node), json={"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}).json()


@pytest_twisted.inlineCallbacks
def test_eth_send_raw_transaction_goes_to_cometbfts_mempool(node_factory):
    rpc = _CometRpc()
    try:
        node = node_factory(abci={"mode": "socket", "address": "127.0.0.1:0", "cometbft_rpc": rpc.address})
        key = node.dev_keys[0]

        def signed(nonce):
            return Account.sign_transaction({"chainId": 9000, "gas": 21000, "maxFeePerGas": 10**10,
                                             "maxPriorityFeePerGas": 1, "nonce": nonce, "to": "0x" + "33" * 20,
                                             "value": 1}, key.private_key)
        rpc.answers += [{"result": {"code": 0, "data": "", "log": "", "codespace": "", "hash": "AB"}},
                        {"result": {"code": 5, "log": "insufficient funds", "codespace": "sdk", "hash": "AB"}},
                        {"error": {"code": -32603, "message": "Internal error", "data": "tx already exists in cache"}}]
        first = signed(0)
        reply = yield in_thread(_eth, node, "eth_sendRawTransaction", "0x" + bytes(first.raw_transaction).hex())
        assert reply["result"] == "0x" + bytes(first.hash).hex()
        method, tx = rpc.received[0]
        assert method == "broadcast_tx_sync"
        assert tx == txs.wrap_evm(bytes(first.raw_transaction), 9000, node.genesis.base_denom).raw
        reply = yield in_thread(_eth, node, "eth_sendRawTransaction", "0x" + bytes(signed(1).raw_transaction).hex())
        assert "insufficient funds" in reply["error"]["message"]
        reply = yield in_thread(_eth, node, "eth_sendRawTransaction", "0x" + bytes(signed(2).raw_transaction).hex())
        assert "already in mempool" in reply["error"]["message"] or "already known" in reply["error"]["message"]
        # A tx the node's own check refuses never reaches CometBFT.
        stale = Account.sign_transaction({"chainId": 9000, "gas": 100, "maxFeePerGas": 10**10,
                                          "maxPriorityFeePerGas": 1, "nonce": 0, "to": "0x" + "33" * 20,
                                          "value": 1}, key.private_key)
        reply = yield in_thread(_eth, node, "eth_sendRawTransaction", "0x" + bytes(stale.raw_transaction).hex())
        assert "intrinsic gas" in reply["error"]["message"] and len(rpc.received) == 3
        yield rpc.port.stopListening()
        reply = yield in_thread(_eth, node, "eth_sendRawTransaction", "0x" + bytes(signed(3).raw_transaction).hex())
        assert "did not take the tx" in reply["error"]["message"], reply
    finally:
        if rpc.port.connected:
            yield rpc.port.stopListening()


def _flood(port, count):
    client = AbciClient(port)
    client.send(*[pb.Request(echo=pb.RequestEcho(message=str(i))) for i in range(count)],
                pb.Request(flush=pb.RequestFlush()))
    answers = [client.receive() for _ in range(count + 1)]
    client.close()
    return answers


@pytest_twisted.inlineCallbacks
def test_a_flood_of_requests_pauses_reading_and_is_answered_in_order(node_factory):
    node = node_factory(abci={"mode": "socket", "address": "127.0.0.1:0", "max_pending_requests": 2})
    answers = yield in_thread(_flood, node.port_of("abci"), 5000)
    assert [a.echo.message for a in answers[:-1]] == [str(i) for i in range(5000)]
    assert answers[-1].WhichOneof("value") == "flush"


def _create_validator_tx(node, who, pubkey):
    key, view = node.dev_keys[who], node.app.view()
    number, _ = node.app.keepers["auth"].account(view, key.address)
    msg = staking_msgs.create(node.genesis.bech32_prefix, key.address, pubkey, 10**20)
    gas = 300000
    return build_native([msg], key, node.genesis.chain_id, number, view.accounts.get_nonce(key.address),
                        [(node.genesis.base_denom, 2 * node.app.next_base_fee() * gas)], gas)


def _misbehaving_block(port, genesis_doc, time_ns, create_raw, pubkey):
    """A second validator created (in the set two blocks later), then CometBFT's DUPLICATE_VOTE misbehavior
    of it at the height after, in FinalizeBlock; returns (the FinalizeBlock response, the misbehavior height)."""
    replica = Replica(port)
    driver = Driver(genesis_doc)
    driver.handshake(replica)
    driver.run_block([replica], driver.decide([create_raw], time_ns))
    for i in (1, 2):
        driver.run_block([replica], driver.decide([], time_ns + i * 10**9))
    height = driver.next_height() - 1
    validators = driver.validators_at(height)
    address = valset.address_of(pubkey)
    power = next(v.power for v in validators if v.address == address)
    block = driver.decide([], time_ns + 3 * 10**9)
    evidence = pb.Misbehavior(type=pb.DUPLICATE_VOTE, height=height,
                              total_voting_power=sum(v.power for v in validators),
                              validator=pb.Validator(address=address, power=power))
    evidence.time.FromNanoseconds(driver.blocks[height].time_ns)
    request = pb.RequestFinalizeBlock(hash=block.hash, height=block.height, misbehavior=[evidence],
                                      next_validators_hash=block.next_validators_hash,
                                      proposer_address=block.proposer, decided_last_commit=driver._commit_info(block))
    request.time.FromNanoseconds(block.time_ns)
    response = replica.consensus.call("finalize_block", request)
    replica.consensus.call("commit", pb.RequestCommit())
    replica.close()
    return response, height


@pytest_twisted.inlineCallbacks
def test_misbehavior_from_finalize_block_slashes_jails_and_tombstones(abci_node):
    """CometBFT's misbehavior goes through x/evidence as the solo producer's evidence does."""
    _, pubkey = staking_msgs.new_consensus_key()
    raw = _create_validator_tx(abci_node, 4, pubkey)
    time_ns = abci_node.genesis.genesis_time_ns + 10**9
    response, height = yield in_thread(_misbehaving_block, abci_node.port_of("abci"), abci_node.genesis.document,
                                       time_ns, raw, pubkey)
    assert response.app_hash == abci_node.app.head[1].app_hash
    prefix = abci_node.genesis.bech32_prefix
    valcons = to_bech32(prefix + "valcons", valset.address_of(pubkey))
    slashes = [{a.key: a.value for a in e.attributes} for e in response.events if e.type == "slash"]
    assert slashes == [{"address": valcons, "power": "100", "reason": "double_sign", "burned_coins": str(5 * 10**18),
                        "mode": "BeginBlock"}, {"jailed": valcons, "mode": "BeginBlock"}]
    view = abci_node.app.view()
    operator = abci_node.dev_keys[4].address
    assert abci_node.app.keepers["staking"].validator(view, operator).jailed
    assert abci_node.app.keepers["slashing"].signing_info(view, valset.address_of(pubkey)).tombstoned
    # The block record keeps the misbehavior, so a replay hands the app the same.
    _, misbehavior, _ = abci_node.app.consensus_info(abci_node.app.height)
    assert [(m.address, m.height) for m in misbehavior] == [(valset.address_of(pubkey), height)]


@pytest_twisted.inlineCallbacks
def test_grpc_broadcast_tx_with_cometbft_away_is_unavailable(node_factory):
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    node = node_factory(abci={"mode": "socket", "address": "127.0.0.1:0", "cometbft_rpc": f"127.0.0.1:{port}"})
    raw = signed_send(node, 0, b"\x44" * 20, 5)
    request = tx_service.BroadcastTxRequest(tx_bytes=raw, mode=tx_service.BROADCAST_MODE_SYNC)
    response, error = yield call(node, tx_grpc.ServiceStub, "BroadcastTx", request)
    assert response is None and error[0] == grpc.StatusCode.UNAVAILABLE and "did not take the tx" in error[1]


def test_abci_mode_is_checked():
    with pytest.raises(config.ConfigError, match="mode must be one of builtin, socket"):
        config.load(text='[abci]\nmode = "both"\n')
    with pytest.raises(config.ConfigError, match="max-message-bytes must be at least 1024"):
        config.load(text='[abci]\nmax-message-bytes = 10\n')
    assert config.load(text='[abci]\nmode = "socket"\n').abci.address == "127.0.0.1:26658"


def _empty_blocks_and_queries(port, genesis_doc, time_ns, count, address, account_key):
    replica = Replica(port)
    driver = Driver(genesis_doc)
    driver.handshake(replica)
    retains = []
    for i in range(count):
        block = driver.decide([], time_ns + i * 10**9)
        driver.run_block([replica], block)
    for i in range(2):
        block = driver.decide([], time_ns + (count + i) * 10**9)
        response = driver.finalize(replica, block)
        retains.append(replica.consensus.call("commit", pb.RequestCommit()).retain_height)
        driver.store(block, response.app_hash, response.tx_results)
    request = bank_query.QueryBalanceRequest(address=address, denom="achain")
    path = "/cosmos.bank.v1beta1.Query/Balance"
    answers = [replica.query.call("query", pb.RequestQuery(path=path, data=request.SerializeToString(), height=h,
                                                           prove=prove))
               for h, prove in ((0, False), (1, False), (99, False), (0, True))]
    answers.append(replica.query.call("query", pb.RequestQuery(path="/store/acc/key", data=account_key, prove=True)))
    replica.close()
    return retains, answers


@pytest_twisted.inlineCallbacks
def test_commit_retain_height_and_query_paths(node_factory):
    node = node_factory(abci={"mode": "socket", "address": "127.0.0.1:0", "min_retain_blocks": 3})
    address = to_bech32(node.genesis.bech32_prefix, node.dev_keys[0].address)
    retains, answers = yield in_thread(_empty_blocks_and_queries, node.port_of("abci"), node.genesis.document,
                                       node.genesis.genesis_time_ns + 10**9, 3, address,
                                       b"\x01" + node.dev_keys[0].address)
    assert retains == [2, 3]         # heights 4 and 5 keep the last 3 blocks
    latest, first, future, proved, stored = answers
    balance = node.app.keepers["bank"].balance(node.app.view(), node.dev_keys[0].address, "achain")
    assert latest.code == 0 and latest.height == 5
    assert bank_query.QueryBalanceResponse.FromString(latest.value).balance.amount == str(balance)
    assert first.code == 0 and first.height == 1
    assert future.code == 26 and "height in the future" in future.log
    assert proved.code == 18 and "cannot prove the answer" in proved.log
    # A store key with its proof (IAVL, then the multistore's simple Merkle proof), as abci_query gives it.
    assert stored.code == 0 and stored.value and stored.key == b"\x01" + node.dev_keys[0].address
    assert [op.type for op in stored.proof_ops.ops] == ["ics23:iavl", "ics23:simple"]


def _process(port, genesis_doc, block_txs):
    replica = Replica(port)
    driver = Driver(genesis_doc)
    driver.handshake(replica)
    block = driver.decide(block_txs, 10**18)
    status = driver.process(replica, block).status
    replica.close()
    return status


@pytest_twisted.inlineCallbacks
def test_process_proposal_rejects_a_block_with_an_undecodable_tx(abci_node):
    key = abci_node.dev_keys[1]
    signed = Account.sign_transaction({"chainId": 9000, "gas": 21000, "maxFeePerGas": 10**10,
                                       "maxPriorityFeePerGas": 1, "nonce": 0, "to": "0x" + "33" * 20,
                                       "value": 1}, key.private_key)
    good = txs.wrap_evm(signed.raw_transaction, 9000, abci_node.genesis.base_denom).raw
    port, doc = abci_node.port_of("abci"), abci_node.genesis.document
    assert (yield in_thread(_process, port, doc, [good])) == pb.ResponseProcessProposal.ACCEPT
    assert (yield in_thread(_process, port, doc, [good, b"\x0a\x03not a tx"])) == pb.ResponseProcessProposal.REJECT


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_metrics_in_socket_mode_count_what_cometbft_drove(node_factory):
    node = node_factory(abci={"mode": "socket", "address": "127.0.0.1:0"},
                        instrumentation={"prometheus": True, "prometheus_listen_addr": "127.0.0.1:0"})
    replica_genesis[:] = [node.genesis.document]
    signed = Account.sign_transaction({"chainId": 9000, "gas": 21000, "maxFeePerGas": 10**10,
                                       "maxPriorityFeePerGas": 1, "nonce": 0, "to": "0x" + "33" * 20,
                                       "value": 1}, node.dev_keys[2].private_key)
    raw = txs.wrap_evm(signed.raw_transaction, 9000, node.genesis.base_denom).raw
    ws = yield in_thread(connect, ws_url(node))
    replica, driver, _, _ = yield in_thread(_check_one, node.port_of("abci"), raw, ws)
    yield in_thread(_drive_one_block, replica, driver, raw, node.genesis.genesis_time_ns + 10**9, ws)
    ws.close()

    def scrape():
        with urllib.request.urlopen(f"http://127.0.0.1:{node.port_of('metrics')}/metrics", timeout=10) as r:
            return {(s.name, frozenset(s.labels.items())): s.value
                    for f in text_string_to_metric_families(r.read().decode()) for s in f.samples}
    table = yield in_thread(scrape)
    assert table[("chaind_block_execution_seconds_count", frozenset())] == 1
    assert table[("chaind_block_commit_seconds_count", frozenset())] == 1
    assert table[("cometbft_consensus_height", frozenset({("chain_id", node.genesis.chain_id)}))] == 2
