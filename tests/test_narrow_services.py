"""Each service and face class is built from what it uses, without a Node: a real App on LevelDB, a
real bus and mempool, a Clock for the reactor; then asked something it answers at once."""

import pytest
from twisted.internet.task import Clock
from twisted.python.threadpool import ThreadPool

from chain_driver import PROPOSER, Chain
from chaind.api.debug import DebugApi
from chaind.api.dev_wallet import DevWallet
from chaind.api.eth import EthApi
from chaind.api.fees import FeeApi
from chaind.api.filters import FilterApi
from chaind.api.net import net_methods, web3_methods
from chaind.api.txpool import TxPoolApi
from chaind.cometbft.routes import CometRoutes
from chaind.cometbft.websocket import CometWebSocketFactory
from chaind.config import Settings
from chaind.consensus.mempool import Mempool
from chaind.consensus.producer import Producer
from chaind.events.bus import EventBus
from chaind.rpc.evm_ws import EvmWebSocketFactory
from chaind.tracing.pool import TracePool


@pytest.fixture
def parts(tmp_path):
    chain = Chain(tmp_path, "chain.db")
    chain.block([chain.evm(1, 0, to=b"\x22" * 20, value=5)])
    settings = Settings()
    reactor, pool, bus, mempool = Clock(), ThreadPool(), EventBus(), Mempool(settings.mempool)
    producer = Producer(chain.app, mempool, bus, settings.chain, PROPOSER, reactor)
    yield chain, settings, reactor, pool, bus, mempool, producer
    chain.close()


def test_evm_services_built_alone(parts):
    chain, settings, reactor, pool, bus, mempool, producer = parts
    app, rpc = chain.app, settings.json_rpc
    eth = EthApi(app, rpc, PROPOSER, mempool, producer, reactor, pool).methods()
    assert eth["eth_blockNumber"]([]) == hex(app.height)
    assert eth["eth_coinbase"]([]) == "0x" + PROPOSER.hex()
    assert int(eth["eth_getBalance"](["0x" + "22" * 20, "latest"]), 16) == 5
    fees = FeeApi(app, rpc)
    assert fees.methods()["eth_feeHistory"](["0x1", "latest", []])["oldestBlock"] == hex(app.height)
    filters = FilterApi(app, rpc, bus, reactor, pool)
    filter_id = filters.methods()["eth_newBlockFilter"]([])
    reactor.advance(rpc.filter_timeout + 1)      # its expiry runs on the reactor it was given
    assert filter_id not in filters.filters
    runner = EthApi(app, rpc, PROPOSER, mempool, producer, reactor, pool).runner
    wallet = DevWallet(app, chain.keys, runner, fees, mempool, producer, reactor, pool)
    assert [a.lower() for a in wallet.methods()["eth_accounts"]([])] == ["0x" + k.address.hex() for k in chain.keys]
    assert TxPoolApi(app, mempool).methods()["txpool_status"]([]) == {"pending": "0x0", "queued": "0x0"}
    debug = DebugApi(app, runner, settings.tracing, reactor, TracePool(settings.tracing, reactor))
    assert set(debug.methods()) >= {"debug_traceTransaction", "debug_traceCall"}
    assert net_methods(9000)["net_version"]([]) == "9000"
    assert web3_methods()["web3_clientVersion"]([]).startswith("chaind/")
    assert EvmWebSocketFactory(bus, eth, rpc).bus is bus


def test_cometbft_face_built_alone(parts):
    chain, settings, reactor, pool, bus, mempool, producer = parts
    comet = settings.cometbft_rpc
    routes = CometRoutes(chain.app, comet, queries=None, mempool=mempool, producer=producer, bus=bus,
                         reactor=reactor, call_pool=pool)
    table = routes.table()
    assert table["status"].func()["sync_info"]["latest_block_height"] == str(chain.app.height)
    assert table["num_unconfirmed_txs"].func()["n_txs"] == "0"
    assert CometWebSocketFactory(chain.app, bus, table, comet).bus is bus
