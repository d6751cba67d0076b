"""Prometheus metrics on [instrumentation] prometheus-listen-addr: parsed with prometheus_client's parser."""

import socket
import urllib.error
import urllib.request

import pytest
import pytest_twisted
import websockets.sync.client as ws_client
from prometheus_client.parser import text_string_to_metric_families
from twisted.internet import reactor, task

from chaind import config
from chaind.pb.cosmos.bank.v1beta1 import query_pb2 as bank_pb
from chaind.pb.cosmos.bank.v1beta1 import query_pb2_grpc as bank_grpc
from evm_client import DEV0, OTHER, rpc, send, w3
from helpers import b32, call, in_thread, rest, until, until_height, ws_url

METRICS_ON = {"instrumentation": {"prometheus": True, "prometheus_listen_addr": "127.0.0.1:0"}}


def scrape(node, path="/metrics"):
    with urllib.request.urlopen(f"http://127.0.0.1:{node.port_of('metrics')}{path}", timeout=10) as response:
        return response.headers["content-type"], response.read().decode()


def samples(text):
    """{(sample name, frozenset of labels): value} of every sample."""
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def value(table, name, **labels):
    return table.get((name, frozenset(labels.items())), 0)


@pytest.fixture
def metered(node_factory):
    node = node_factory(**METRICS_ON)
    pytest_twisted.blockon(until_height(node, node.app.genesis.initial_height))
    return node


@pytest_twisted.inlineCallbacks
def test_counters_move_after_traffic_on_every_face(metered):
    node = metered
    chain = {"chain_id": node.genesis.chain_id}
    content_type, text = yield in_thread(scrape, node)
    assert content_type.startswith("text/plain; version=0.0.4")
    before = samples(text)
    assert value(before, "cometbft_consensus_height", **chain) == node.app.height + 1
    assert value(before, "cometbft_consensus_validators", **chain) == 1
    assert value(before, "chaind_leveldb_size_bytes") > 0

    yield rpc(node, "eth_blockNumber")
    yield rpc(node, "eth_blockNumber")
    yield rpc(node, "eth_getBalance", "not an address", "latest")
    receipt = yield in_thread(send, w3(node), {"to": OTHER, "value": 5, "nonce": 0})
    assert receipt.status == 1
    yield in_thread(urllib.request.urlopen, f"http://127.0.0.1:{node.port_of('cometbft')}/status")
    status, _, _ = yield rest(node, f"/cosmos/bank/v1beta1/balances/{b32(node, OTHER)}")
    assert status == 200
    response, _ = yield call(node, bank_grpc.QueryStub, "Balance",
                             bank_pb.QueryBalanceRequest(address=b32(node, DEV0), denom=node.genesis.base_denom))
    assert response is not None
    response, (code, _) = yield call(node, bank_grpc.QueryStub, "Balance",
                                     bank_pb.QueryBalanceRequest(address="nonsense", denom="achain"))
    assert response is None

    # gRPC's loop records a failed call just after the client has its status: wait for it.
    def recorded(scraped):
        found = samples(scraped[1])
        return value(found, "chaind_request_errors_total", face="grpc", code=code.name) and found
    after = yield until(lambda: in_thread(scrape, node).addCallback(recorded), "the failed gRPC call counted",
                        timeout=5, every=0.01)
    assert value(after, "chaind_requests_total", face="json-rpc", method="eth_blockNumber") == \
        value(before, "chaind_requests_total", face="json-rpc", method="eth_blockNumber") + 2
    assert value(after, "chaind_request_duration_seconds_count", face="json-rpc", method="eth_blockNumber") == 2
    assert value(after, "chaind_request_duration_seconds_bucket", face="json-rpc", method="eth_blockNumber",
                 le="+Inf") == 2
    assert value(after, "chaind_request_errors_total", face="json-rpc", code="-32602") == 1
    assert value(after, "chaind_requests_total", face="json-rpc", method="eth_sendRawTransaction") == 1
    assert value(after, "chaind_requests_total", face="cometbft", method="status") == 1
    assert value(after, "chaind_requests_total", face="rest",
                 method="GET /cosmos/bank/v1beta1/balances/{address}") == 1
    assert value(after, "chaind_requests_total", face="grpc", method="/cosmos.bank.v1beta1.Query/Balance") == 2
    assert value(after, "chaind_request_errors_total", face="grpc", code=code.name) == 1
    # The transfer's block: CometBFT's consensus and mempool figures, and the node's block timings.
    assert value(after, "cometbft_consensus_latest_block_height", **chain) == node.app.height
    assert value(after, "cometbft_consensus_total_txs", **chain) >= 1
    assert value(after, "cometbft_mempool_tx_size_bytes_count", **chain) == 1
    assert value(after, "cometbft_mempool_size", **chain) == 0
    assert value(after, "chaind_block_execution_seconds_count") >= 1
    assert value(after, "chaind_block_commit_seconds_count") >= 1
    assert value(after, "cometbft_consensus_block_interval_seconds_count", **chain) >= 1


@pytest_twisted.inlineCallbacks
def test_subscriptions_and_traces_are_counted(metered):
    node = metered
    receipt = yield in_thread(send, w3(node), {"to": OTHER, "value": 5, "nonce": 0})

    def subscribed_scrape():
        with ws_client.connect(ws_url(node)) as connection:
            connection.send('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}')
            connection.recv(10)
            return scrape(node)[1]

    text = yield in_thread(subscribed_scrape)
    assert value(samples(text), "chaind_subscriptions", face="websocket") == 1
    _, reply = yield rpc(node, "debug_traceTransaction", receipt.transactionHash.to_0x_hex(), {})
    assert "result" in reply
    _, text = yield in_thread(scrape, node)
    after = samples(text)
    assert value(after, "chaind_subscriptions", face="websocket") == 0
    assert value(after, "chaind_trace_streamed_bytes_total") > 0
    assert value(after, "chaind_trace_jobs_running") == 0


@pytest_twisted.inlineCallbacks
def test_other_paths_are_not_found(metered):
    with pytest.raises(urllib.error.HTTPError) as error:
        yield in_thread(scrape, metered, "/")
    assert error.value.code == 404


def test_metrics_are_off_by_default_and_on_in_a_dev_home(tmp_path):
    from chaind.home import Home

    assert config.Settings().instrumentation.prometheus is False
    home = Home(tmp_path / "dev").init("dev", dev=True)
    assert config.load(home.config_file).instrumentation.prometheus is True
    plain = Home(tmp_path / "plain").init("plain")
    assert config.load(plain.config_file).instrumentation.prometheus is False


def test_a_bad_namespace_is_refused():
    with pytest.raises(config.ConfigError, match="namespace"):
        config.load(text='[instrumentation]\nnamespace = "1-bad"\n')


def test_the_banner_says_when_metrics_are_off(node):
    assert "metrics: off" in node.out.getvalue()


def _get(port, timeout):
    """A raw GET /metrics on its own connection: the first bytes of the answer, or None when none came."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        s.settimeout(timeout)
        try:
            return s.recv(12)
        except TimeoutError:
            return None


@pytest_twisted.inlineCallbacks
def test_max_open_connections_idle_connections_give_way_to_a_new_client(node_factory):
    # Two idle connections fill a limit of 2: a third client is neither refused nor kept waiting, the idle
    # connection that waited longest gives way to it (rpc/connection_limit.py).
    node = node_factory(instrumentation={**METRICS_ON["instrumentation"], "max_open_connections": 2})
    port = node.port_of("metrics")
    idle = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(2)]
    try:
        yield task.deferLater(reactor, 0.2, lambda: None)
        assert (yield in_thread(_get, port, 2)) == b"HTTP/1.1 200"
        idle[0].settimeout(2)
        assert idle[0].recv(1) == b""           # the first gave way
    finally:
        for s in idle:
            s.close()
    assert (yield in_thread(_get, port, 10)) == b"HTTP/1.1 200"


@pytest_twisted.inlineCallbacks
def test_max_open_connections_zero_is_no_limit(node_factory):
    node = node_factory(instrumentation={**METRICS_ON["instrumentation"], "max_open_connections": 0})
    port = node.port_of("metrics")
    idle = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(5)]
    try:
        assert (yield in_thread(_get, port, 10)) == b"HTTP/1.1 200"
    finally:
        for s in idle:
            s.close()


def test_max_open_connections_defaults_to_cometbfts_3_and_is_checked():
    assert config.Settings().instrumentation.max_open_connections == 3
    assert config.load(text="[instrumentation]\nmax-open-connections = 7\n").instrumentation.max_open_connections == 7
    with pytest.raises(config.ConfigError, match="max-open-connections"):
        config.load(text="[instrumentation]\nmax-open-connections = -1\n")
