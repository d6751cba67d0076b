"""The node: one MultiService holding the chain, the producer and every face, under one reactor."""

import hashlib
import sys

from twisted.application import internet, service
from twisted.internet import endpoints
from twisted.python.threadpool import ThreadPool
from twisted.web import server

from chaind import config as config_mod
from chaind.api.eth import EthApi
from chaind.api.net import net_methods, web3_methods
from chaind.chain.app import App
from chaind.chain.genesis import Genesis
from chaind.consensus.mempool import Mempool
from chaind.consensus.producer import Producer
from chaind.crypto import addresses
from chaind.events.bus import EventBus
from chaind.home import Home
from chaind.rpc.evm_http import EvmJsonRpcResource
from chaind.rpc.jsonrpc import Dispatcher
from chaind.store.db import Database


class _Pool(service.Service):
    """A thread pool that starts and stops with the node."""

    def __init__(self, pool):
        self.pool = pool

    def startService(self):
        super().startService()
        self.pool.start()

    def stopService(self):
        self.pool.stop()
        return super().stopService()


class _Database(service.Service):
    """Closes LevelDB last, after every other service has stopped."""

    def __init__(self, db):
        self.db = db

    def stopService(self):
        self.db.close()
        return super().stopService()


class Node(service.MultiService):
    def __init__(self, home, settings, reactor=None, out=None):
        super().__init__()
        from twisted.internet import reactor as default_reactor

        self.reactor = reactor or default_reactor
        self.home = home
        self.settings = settings
        self.out = out or sys.stdout
        self.genesis = Genesis.load(home.genesis_file)
        self.db = Database(home.data_dir / "chain.db")
        _Database(self.db).setServiceParent(self)
        self.app = App(self.db, self.genesis, pruning=settings.storage.pruning,
                       prune_interval=settings.storage.prune_interval)
        self.app.allow_unprotected = settings.json_rpc.allow_unprotected_txs
        self.bus = EventBus()
        self.mempool = Mempool(settings.mempool)
        self.dev_keys = home.dev_keys()
        validator = self.genesis.validators[0] if self.genesis.validators else None
        self.validator_operator = validator.operator if validator else bytes(20)
        proposer = hashlib.sha256(validator.consensus_pubkey).digest()[:20] if validator else bytes(20)
        self.producer = Producer(self.app, self.mempool, self.bus, settings.chain, proposer, self.reactor)
        self.producer.setServiceParent(self)
        self.call_pool = ThreadPool(minthreads=1, maxthreads=2, name="chaind-calls")
        _Pool(self.call_pool).setServiceParent(self)
        self.listeners = {}
        rpc = settings.json_rpc
        if rpc.enable:
            self.evm_methods = self._evm_methods(rpc.api)
            dispatcher = Dispatcher(self.evm_methods, rpc.max_batch_size)
            site = server.Site(EvmJsonRpcResource(dispatcher, rpc.max_body_bytes))
            site.displayTracebacks = False
            self._listen("json-rpc", rpc.address, site)

    def _evm_methods(self, api):
        enabled = {name.strip() for name in api.split(",") if name.strip()}
        tables = {"eth": EthApi(self).methods(), "net": net_methods(self), "web3": web3_methods(self)}
        methods = {}
        for namespace, table in tables.items():
            if namespace in enabled:
                methods.update(table)
        return methods

    def _listen(self, name, address, factory):
        host, _, port = address.rpartition(":")
        endpoint = endpoints.TCP4ServerEndpoint(self.reactor, int(port), interface=host or "127.0.0.1")
        listener = internet.StreamServerEndpointService(endpoint, factory)
        listener._raiseSynchronously = True
        listener.setServiceParent(self)
        self.listeners[name] = listener

    def port_of(self, name):
        """The bound port of a face (useful with port 0)."""
        return self.listeners[name]._waitingForPort.result.getHost().port

    def startService(self):
        super().startService()
        self._announce()

    def _announce(self):
        g = self.genesis
        lines = [f"chaind: chain-id {g.chain_id} (EVM chain id {g.evm_chain_id}), height {self.app.height}",
                 f"home: {self.home.path}"]
        for name in self.listeners:
            lines.append(f"{name}: http://{self._address(name)}")
        if self.dev_keys:
            lines.append("dev accounts (funded; these keys are public, use them for development only):")
            for i, key in enumerate(self.dev_keys):
                lines.append(f"  ({i}) {addresses.to_hex(key.address)}  {addresses.to_bech32(g.bech32_prefix, key.address)}")
                lines.append(f"      private key 0x{key.private_key.hex()}")
        self.out.write("\n".join(lines) + "\n")
        self.out.flush()

    def _address(self, name):
        host = getattr(self.settings.json_rpc, "address").rpartition(":")[0]
        return f"{host}:{self.port_of(name)}"


def open_node(home_path=None, config_path=None, settings=None, reactor=None, out=None):
    """Build a Node from a home (creating a dev home when none is given and none exists)."""
    home = Home(home_path) if home_path else Home(_default_home())
    if not home.exists():
        if home_path:
            raise SystemExit(f"no chain at {home.path}: run `chaind init MONIKER --home {home.path}` first")
        home.init("dev-validator", dev=True)
    if settings is None:
        path = config_path or (home.config_file if home.config_file.is_file() else None)
        settings = config_mod.load(path)
    return Node(home, settings, reactor=reactor, out=out)


def _default_home():
    from chaind.home import DEFAULT_HOME

    return DEFAULT_HOME
