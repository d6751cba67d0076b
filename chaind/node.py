"""The node: one MultiService holding the chain, the producer and every face, under one reactor."""

import hashlib
import os
import sys
import time

import attrs
import plyvel
from cryptography.hazmat.primitives.asymmetric import ed25519
from twisted.application import internet, service
from twisted.internet import defer, endpoints, threads
from twisted.internet.error import CannotListenError
from twisted.logger import Logger
from twisted.python.threadpool import ThreadPool

from chaind import config as config_mod
from chaind.api import cosmos
from chaind.api.call_pool import CallPool
from chaind.api.calls import CallRunner
from chaind.api.cosmos.node import NodeService
from chaind.api.cosmos.tendermint import TendermintService
from chaind.api.cosmos.tx import TxService
from chaind.api.debug import DebugApi
from chaind.api.dev import DevApi, Impersonation, disabled_methods
from chaind.api.dev_wallet import DevWallet
from chaind.api.eth import EthApi
from chaind.api.fees import FeeApi
from chaind.api.filters import FilterApi
from chaind.api.held_traces import HeldTraces
from chaind.api.net import net_methods, web3_methods
from chaind.api.raw import RawApi
from chaind.api.txpool import TxPoolApi
from chaind.chain import authority, registry
from chaind.chain.app import App, NoValidatorsError, StaleHomeError
from chaind.chain.genesis import Genesis, GenesisError
from chaind.chain.module import NodeServices
from chaind.chain.modules import inflation, slashing, upgrade
from chaind.chain.options import AppOptions
from chaind.chain.rollback import RollbackError, replay_kept_block
from chaind.cometbft.routes import CometRoutes
from chaind.cometbft.server import CallError, make_site
from chaind.cometbft.websocket import CometWebSocketFactory
from chaind.consensus.abci.application import AbciApplication, Pools
from chaind.consensus.abci.comet_records import CometRecords
from chaind.consensus.abci.forward import CometForwarder
from chaind.consensus.abci.protocol import AbciFactory
from chaind.consensus.mempool import Mempool
from chaind.consensus.producer import Producer
from chaind.consensus.snapshots import SnapshotManager, SnapshotStore
from chaind.crypto import addresses
from chaind.events.bus import EventBus
from chaind.explorer import site as explorer_site
from chaind.grpc import abci
from chaind.grpc.router import QueryRouter
from chaind.grpc.server import GrpcBindError, GrpcServer
from chaind.home import Home
from chaind.metrics import faces as metric_faces
from chaind.metrics import sources as metric_sources
from chaind.metrics.node import NodeMetrics
from chaind.private_files import make_private_dirs
from chaind.rest import errors as rest_errors
from chaind.rest.gateway import RestGateway
from chaind.rpc.connection_limit import ConnectionLimit
from chaind.rpc.cors_resource import CorsResource
from chaind.rpc.errors import INTERNAL_ERROR, METHOD_NOT_FOUND, RPCError, as_rpc_error
from chaind.rpc.evm_ws import EvmWebSocketFactory
from chaind.rpc.http import HttpAccess, HttpLimits, JsonRpcHttpFactory
from chaind.rpc.jsonrpc import Dispatcher
from chaind.rpc.origins import OriginPolicy, OriginRule, split_list
from chaind.rpc.web_limits import LimitedSite
from chaind.store.db import Database
from chaind.tracing.pool import TracePool
from chaind.tracing.processes import TraceProcesses

log = Logger()


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


class Node(service.MultiService):
    """modules: the chain's Modules (chain/registry.py's by default); every face serves theirs.
    upgrade_handlers: {plan name: handler} this binary can run (chain/modules/upgrade/handlers.py's by default).
    on_halt(message): called once the chain refuses a block (a broken invariant, an upgrade it cannot run);
    by default the message goes to `out` and the reactor stops, as an SDK node exits (tap.py then ends the
    process with a failure status). Either way an upgrade's halt first writes data/upgrade-info.json."""

    def __init__(  # noqa: C901 (the service tree, built in one commented order)
            self, home, settings, reactor=None, out=None, modules=registry.MODULES, upgrade_handlers=None,
            on_halt=None):
        super().__init__()
        from twisted.internet import reactor as default_reactor

        self.reactor = reactor or default_reactor
        self.home = home
        self.settings = settings
        self.out = out or sys.stdout
        try:
            self.genesis = Genesis.load(home.genesis_file, modules)
        except GenesisError as e:
            raise SystemExit(f"{home.genesis_file}: {e}") from None
        # A home assembled by hand or by a tool (config/ only, as CometBFT's operators make them) gets its data/.
        make_private_dirs(home.data_dir)
        try:
            self.db = Database(home.data_dir / "chain.db", settings.storage.leveldb_cache_mb * 2**20,
                               sync=settings.storage.fsync, compression=settings.storage.compression)
        except plyvel.IOError as e:
            # Another process holds LevelDB's LOCK: as `chaind replay` says it.
            raise SystemExit(f"chaind: cannot open the chain's store ({e.args[0].decode(errors='replace')}); "
                             f"is the node still running?") from None
        validator = self.genesis.initial_validators[0] if self.genesis.initial_validators else None
        self.validator_operator = validator.operator if validator else bytes(20)
        proposer = hashlib.sha256(validator.consensus_pubkey).digest()[:20] if validator else bytes(20)
        self.serves_dev = _serves_dev(settings)
        storage = settings.storage
        options = AppOptions(
            pruning=storage.pruning, prune_interval=storage.prune_interval, iavl_cache_nodes=storage.iavl_cache_nodes,
            state_cache_keys=storage.state_cache_keys, subspace_max_keys=storage.subspace_max_keys,
            allow_unprotected=settings.json_rpc.allow_unprotected_txs,
            # A chain whose node serves the dev namespace runs (and replays) the txs of impersonated accounts.
            allow_impersonated=self.serves_dev,
            check_invariants_every=settings.debug.check_invariants_every,
            upgrade_handlers=upgrade.HANDLERS if upgrade_handlers is None else upgrade_handlers,
            # This node's validator precommits every block it proposes; the next header hashes the commit.
            vote_key=ed25519.Ed25519PrivateKey.from_private_bytes(home.validator_key()) if validator else None,
            validator_address=proposer if validator else b"")
        try:
            self.app = App(self.db, self.genesis, options, modules)
        except (StaleHomeError, NoValidatorsError, GenesisError) as e:
            self.db.close()
            raise SystemExit(str(e)) from None
        refused = upgrade.refusal_at_start(self.app)
        if refused is not None:
            self.db.close()
            self._write_upgrade_info(refused)
            raise SystemExit(str(refused))
        if settings.abci.mode != "socket":
            # A block `chaind rollback` kept above the state is executed again first, as CometBFT's handshake
            # replays it (in socket mode CometBFT does).
            try:
                replayed = replay_kept_block(self.app)
            except RollbackError as e:
                self.db.close()
                raise SystemExit(str(e)) from None
            if replayed is not None:
                log.info("re-executed the block kept by a rollback: height={height} app_hash={app_hash}",
                         height=replayed.height, app_hash=replayed.meta.app_hash.hex().upper())
        self.on_halt = on_halt
        self.halted = None      # the operator's message once the chain refused a block
        self.bus = EventBus()
        self.mempool = Mempool(settings.mempool)
        self.dev_keys = home.dev_keys()
        self.socket_mode = settings.abci.mode == "socket"
        # The state-sync snapshots, taken every [state-sync] snapshot-interval blocks (consensus/snapshots.py).
        self.snapshots = SnapshotManager(self.app, SnapshotStore(home.data_dir / "snapshots"),
                                         settings.state_sync.snapshot_interval,
                                         settings.state_sync.snapshot_keep_recent, self.reactor,
                                         settings.state_sync.max_restore_bytes,
                                         settings.state_sync.restore_batch_bytes,
                                         settings.state_sync.snapshot_read_ahead_bytes)
        if self.socket_mode:
            # CometBFT drives the chain (consensus/abci/) on this node's writer and checker threads; txs
            # sent to the faces here go to CometBFT's mempool.
            self.writer = ThreadPool(minthreads=1, maxthreads=1, name="chaind-writer")
            self.checker = ThreadPool(minthreads=1, maxthreads=1, name="chaind-check")
            _Pool(self.writer).setServiceParent(self)
            _Pool(self.checker).setServiceParent(self)
            self.producer = CometForwarder(self.app, self.checker, settings.abci.cometbft_rpc, self.reactor)
        else:
            self.producer = Producer(self.app, self.mempool, self.bus, settings.chain, proposer, self.reactor)
            self.producer.on_halt = self._halted
            self.producer.snapshots = self.snapshots
            self.producer.setServiceParent(self)
            self.consensus = self.producer      # what makes the blocks (the metrics read its figures)
        # The calls' threads, shared by every face in turns per request (api/call_pool.py).
        self.call_pool = CallPool(ThreadPool(minthreads=1, maxthreads=2, name="chaind-calls"), settings.json_rpc,
                                  self.reactor)
        self.call_pool.setServiceParent(self)
        # Trace threads of their own, which the node never waits for; JavaScript tracers run in trace processes
        # the node kills past their deadline (a tracer may be stuck in a native built-in).
        self.traces = TracePool(settings.tracing, self.reactor, TraceProcesses(self.app, settings.tracing))
        self.traces.setServiceParent(self)
        self.listeners = {}
        self._faces_by_address = {}     # (interface, port) -> face name, to name a face whose port is taken
        # With metrics on, each face gets its tables wrapped with timers; off, nothing is wrapped.
        self.metrics = NodeMetrics(settings.instrumentation) if settings.instrumentation.prometheus else None
        # While the explorer is on, every face it reads admits its origin (CORS, WebSocket origins).
        explorer = settings.explorer
        origin = _origin_of(explorer.address) if explorer.enable else None
        rpc = settings.json_rpc
        if rpc.enable:
            self.evm_methods = self._evm_methods(rpc.api)
            dispatcher = Dispatcher(self._timed(self.evm_methods, "json-rpc"), rpc.max_batch_size)
            limits = HttpLimits(rpc.max_body_bytes, rpc.max_header_bytes, rpc.idle_timeout, rpc.stream_buffer_bytes,
                                rpc.read_timeout)
            access = HttpAccess(tuple(split_list(rpc.vhosts)), _admit(
                OriginPolicy.parse(rpc.cors_domains) if rpc.cors_domains.strip() else None, origin))
            self._listen("json-rpc", rpc.address, JsonRpcHttpFactory(dispatcher, limits, self.reactor, access),
                         rpc.max_open_connections)
        if rpc.enable and rpc.ws_enable:
            # The socket serves its own eth_subscribe and eth_unsubscribe over the same table.
            self.ws_factory = EvmWebSocketFactory(self.bus, self._timed(self.evm_methods, "websocket"), rpc,
                                                  self.reactor)
            self.ws_factory.origins = _admit(self.ws_factory.origins, origin)
            self._listen("websocket", rpc.ws_address, self.ws_factory)
        comet = settings.cometbft_rpc
        self.comet_routes = None
        # The query services by method path (gRPC, abci_query, REST): the modules', then the node's own.
        self.queries = QueryRouter(self.app, self._query_services())
        if self.socket_mode:
            self._serve_abci(settings.abci)
        if comet.enable and not self.socket_mode:
            # One route table for URI GET, JSON-RPC POST and /websocket, as CometBFT serves them.
            self.comet_routes = CometRoutes(self.app, comet, queries=self.queries, mempool=self.mempool,
                                            producer=self.producer, bus=self.bus, reactor=self.reactor,
                                            call_pool=self.call_pool)
            table = self.comet_routes.table()
            self.comet_ws_factory = CometWebSocketFactory(self.app, self.bus, self._timed_routes(table, "cometbft-ws"),
                                                          comet, self.reactor)
            site = make_site(self._timed_routes(table, "cometbft"), comet, self.comet_ws_factory.as_resource())
            cors = _admit(OriginPolicy.parse(comet.cors_allowed_origins) if comet.cors_allowed_origins.strip()
                          else None, origin)
            # A POST (JSON-RPC, or a form to a route) from a page on a site not listed is refused, and so is
            # a /websocket handshake from one: CometBFT serves both to any page.
            site.resource = CorsResource(site.resource, cors, refusal=b"origin not allowed: list it in "
                                                                      b"[cometbft-rpc] cors-allowed-origins\n")
            self.comet_ws_factory.origins = cors
            self._listen("cometbft", comet.address, site, comet.max_open_connections)
        if settings.grpc.enable:
            # grpcio binds and serves on its own event loop and threads; it is a child service all the same.
            grpc_server = GrpcServer(self.queries, settings.grpc, self.reactor,
                                     timed=self.metrics.grpc if self.metrics is not None else None)
            grpc_server.setServiceParent(self)
            self.listeners["grpc"] = grpc_server
        if settings.rest.enable:
            gateway = RestGateway(self.queries, self.call_pool, self.reactor)
            rest_resource = gateway.resource()
            if self.metrics is not None:
                rest_resource = self.metrics.resource(rest_resource, metric_faces.werkzeug_route_of(
                    gateway.app.url_map), "rest")
            cors = _admit(OriginPolicy.parse("*") if settings.rest.enabled_unsafe_cors else None, origin)
            if cors is not None:
                rest_resource = CorsResource(rest_resource, cors)
            rest = settings.rest
            site = LimitedSite(rest_resource, rest.max_header_bytes, rest_errors.too_large, "[rest] max-header-bytes",
                               read_timeout=rest.read_timeout, idle_timeout=rest.idle_timeout)
            self._listen("rest", rest.address, site, rest.max_open_connections)
        if explorer.enable:
            g = self.genesis
            self._listen("explorer", explorer.address, explorer_site.make_site(self._explorer_urls, {
                "chainId": g.chain_id, "evmChainId": g.evm_chain_id, "bech32Prefix": g.bech32_prefix,
                "denom": g.base_denom, "decimals": 18}, self._chain_now_ms, explorer.read_timeout,
                explorer.idle_timeout),
                explorer.max_open_connections)
        if self.metrics is not None:
            instrumentation = settings.instrumentation
            self._listen("metrics", instrumentation.prometheus_listen_addr,
                         metric_sources.build(self, self.metrics), instrumentation.max_open_connections)

    def _chain_now_ms(self):
        """The chain's time now (ms): the wall clock as the producer's time controls moved it, never before the
        head's time (the explorer's "ago" counts on it, as the next block's time would)."""
        now = time.time_ns()
        if isinstance(self.producer, Producer):
            now += self.producer.clock.offset_ns
        return max(now, self.app.head[0].time_ns) // 10**6

    def _explorer_urls(self, request):
        """Where the explorer page reaches each face: the configured URL, else this node's listener (at the
        host name the browser used, when the face listens on every interface)."""
        explorer = self.settings.explorer
        urls = {}
        for key, name, scheme, configured in (("jsonRpc", "json-rpc", "http", explorer.json_rpc_url),
                                              ("websocket", "websocket", "ws", explorer.websocket_url),
                                              ("cometbft", "cometbft", "http", explorer.cometbft_url),
                                              ("rest", "rest", "http", explorer.rest_url)):
            if configured or name not in self.listeners:
                urls[key] = configured
                continue
            host = self.listeners[name]._waitingForPort.result.getHost().host
            if host in ("0.0.0.0", "::"):
                host = request.getRequestHostname().decode("idna")
            urls[key] = f"{scheme}://{host}:{self.port_of(name)}"
        return urls

    def _timed(self, methods, face):
        if self.metrics is None:
            return methods
        # The code the JSON-RPC face answers a method's failure with (a domain error mapped as rpc/errors does).
        return self.metrics.methods(methods, face, lambda e: getattr(as_rpc_error(e), "code", INTERNAL_ERROR))

    def _timed_routes(self, table, face):
        if self.metrics is None:
            return table
        # What CometBFT answers a route's failure with: its CallError's code, else -32603 (domain errors too).
        return self.metrics.routes(table, face, lambda e: e.code if isinstance(e, CallError) else -32603)

    def _serve_abci(self, settings):
        """Socket mode: the ABCI connections CometBFT opens, answered by the app."""
        def query(path, data, height, prove):
            return abci.query(self.queries, path, data, height, prove)

        self.abci = AbciApplication(self.app, query, self.bus, Pools(self.writer, self.checker, self.call_pool.threads),
                                    self.reactor, self.mempool, retain_blocks=settings.min_retain_blocks,
                                    snapshots=self.snapshots)
        self.abci.on_halt = self._halted
        self.consensus = self.abci
        self._listen("abci", settings.address,
                     AbciFactory(self.abci, settings, self.reactor))

    def _query_services(self):
        """(QueryService, servicer) of every module of the app, then of the node's own services."""
        app, settings = self.app, self.settings
        rpc, tracing = settings.json_rpc, settings.tracing
        # A trace answered over gRPC is held whole: no larger than one held for a batch, nor than gRPC may send.
        held = min(tracing.max_buffered_bytes, settings.grpc.max_send_msg_size - 1024)
        shared = NodeServices(calls=CallRunner(app, rpc.gas_cap, rpc.evm_timeout),
                              traces=HeldTraces(app, self.traces, tracing, held))
        found = [(entry, entry.make_servicer(app, settings, shared))
                 for module in app.modules for entry in module.services]

        def rpc_address():
            return self.comet_routes.rpc_address if self.comet_routes is not None else ""

        def abci_query(path, data, height, prove):
            return abci.query(self.queries, path, data, height, prove)

        comet_records = (CometRecords(settings.abci.cometbft_rpc, settings.abci.cometbft_rpc_timeout)
                        if self.socket_mode else None)
        return found + [
            (cosmos.TENDERMINT, TendermintService(app, settings.cometbft_rpc.max_per_page, rpc_address, abci_query,
                                                  comet_records)),
            (cosmos.NODE, NodeService(app, settings.storage)),
            (cosmos.TX, TxService(app, settings.cometbft_rpc, self.producer, self.reactor, comet_records)),
        ]

    def _evm_methods(self, api):
        enabled = _namespaces(api)
        app, rpc, reactor = self.app, self.settings.json_rpc, self.reactor
        eth = EthApi(app, rpc, self.validator_operator, self.mempool, self.producer, reactor, self.call_pool)
        fees = FeeApi(app, rpc)
        filters = FilterApi(app, rpc, self.bus, reactor, self.call_pool)
        filters.setServiceParent(self)
        debug = self.debug_api = DebugApi(app, eth.runner, self.settings.tracing, reactor, self.traces)
        debug.setServiceParent(self)
        impersonation = Impersonation()
        dev_on = self.serves_dev
        wallet = DevWallet(app, self.dev_keys, eth.runner, fees, self.mempool, self.producer, reactor, self.call_pool,
                           impersonation if dev_on else None)
        dev = DevApi(app, self.producer, self.mempool, filters, impersonation, reactor, self.call_pool.threads,
                     self.settings.dev)
        tables = {"eth": {**eth.methods(), **fees.methods(), **filters.methods(), **wallet.methods()},
                  "net": net_methods(self.genesis.evm_chain_id), "web3": web3_methods(),
                  "txpool": TxPoolApi(app, self.mempool).methods(),
                  "debug": {**debug.methods(), **RawApi(app, self.mempool).methods()}, "dev": dev.methods()}
        methods = {}
        for namespace, table in tables.items():
            if namespace in enabled and (namespace != "dev" or dev_on):
                methods.update(table)
        if "dev" not in enabled:
            # A test suite pointed at a non-dev node learns which setting it needs.
            methods.update(disabled_methods(tables["dev"]))
        elif not dev_on:
            methods.update(disabled_methods(tables["dev"], "CometBFT makes this node's blocks ([abci] mode = "
                                                           "socket), so there is no block producer to control"))
        if "eth" in enabled:
            methods["eth_subscribe"] = methods["eth_unsubscribe"] = _notifications_unsupported
        return methods

    def _listen(self, name, address, factory, max_connections=0):
        """Serve `factory` at host:port; with `max_connections`, at most that many connections at once
        (rpc/connection_limit.py): the node's file descriptors stay bounded."""
        if max_connections:
            factory = ConnectionLimit(factory, max_connections, self.reactor)
        host, _, port = address.rpartition(":")
        endpoint = endpoints.TCP4ServerEndpoint(self.reactor, int(port), interface=host or "127.0.0.1")
        self._faces_by_address[(host or "127.0.0.1", int(port))] = name
        listener = internet.StreamServerEndpointService(endpoint, factory)
        listener._raiseSynchronously = True
        listener.setServiceParent(self)
        self.listeners[name] = listener

    def port_of(self, name):
        """The bound port of a face (useful with port 0)."""
        listener = self.listeners[name]
        if isinstance(listener, GrpcServer):
            return listener.port
        return listener._waitingForPort.result.getHost().port

    def privilegedStartService(self):
        # twistd's first step: the TCP faces listen here (before it drops privileges).
        service.Service.privilegedStartService(self)
        self._faces_first(lambda child: child.privilegedStartService())

    def startService(self):
        service.Service.startService(self)
        self._faces_first(lambda child: child.startService())
        if self.comet_routes is not None:
            self.comet_routes.rpc_address = f"tcp://{self._address('cometbft')}"
        self._announce()

    @defer.inlineCallbacks
    def stopService(self):
        # Children stop together; LevelDB closes only once all of them (the writer above all) are done.
        yield super().stopService()
        self.db.close()

    def _halted(self, halt):
        if self.halted is not None:
            return
        self.halted = str(halt)
        d = threads.deferToThreadPool(self.reactor, self.call_pool.threads, self._write_upgrade_info, halt)
        d.addErrback(lambda f: log.failure("could not write {path}", f, path=self._upgrade_info_path()))
        d.addCallback(lambda _: self._stop_for(halt))

    def _stop_for(self, halt):
        if self.on_halt is not None:
            self.on_halt(str(halt))
            return
        self.out.write(f"chaind: the chain stopped at height {self.app.height + 1}: {halt}\n")
        self.out.flush()
        self.reactor.stop()

    def _upgrade_info_path(self):
        return self.home.data_dir / "upgrade-info.json"

    def _write_upgrade_info(self, halt):
        """What the SDK's x/upgrade writes before it panics for a plan without a handler, and Cosmovisor waits
        for: written whole (a temporary file renamed), owner-only as the SDK's 0600."""
        if halt.upgrade_info is None:
            return
        path = self._upgrade_info_path()
        partial = path.with_name(path.name + ".tmp")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(halt.upgrade_info)
        partial.replace(path)

    def _announce(self):
        g = self.genesis
        lines = [f"chaind: chain-id {g.chain_id} (EVM chain id {g.evm_chain_id}), height {self.app.height}",
                 f"home: {self.home.path}"]
        if self.socket_mode:
            lines.append(f"consensus: CometBFT over ABCI (socket mode): run `cometbft node --proxy_app "
                         f"tcp://{self._address('abci')}`; its RPC ({self.settings.abci.cometbft_rpc}, "
                         f"[abci] cometbft-rpc) serves blocks and takes the txs sent here")
        else:
            lines.append("consensus: builtin solo producer (this node's validator makes every block)")
        if self.settings.storage.fsync:
            lines.append("storage: each block fsync'd before it counts as committed ([storage] fsync = true)")
        else:
            lines.append("storage: blocks written without fsync ([storage] fsync = false, a dev home's default): a "
                         "killed node loses none, an OS crash could lose the last ones")
        for name in self.listeners:
            scheme = {"websocket": "ws", "grpc": "grpc+http", "abci": "tcp"}.get(name, "http")
            lines.append(f"{name}: {scheme}://{self._address(name)}" + ("/metrics" if name == "metrics" else ""))
        if self.metrics is None:
            lines.append("metrics: off (turn on with [instrumentation] prometheus = true)")
        if "explorer" not in self.listeners:
            lines.append("explorer: off (turn on with [explorer] enable = true)")
        rpc = self.settings.json_rpc
        if rpc.enable:
            opt_in = sorted({"txpool", "debug", "dev"} & {n.strip() for n in rpc.api.split(",")})
            lines.append(f"json-rpc namespaces: {rpc.api}" + (
                f" ({', '.join(opt_in)} enabled: keep this node off untrusted networks, or drop them "
                f"from [json-rpc] api)" if opt_in else ""))
            if "dev" in opt_in:
                lines.append("dev methods on: evm_snapshot/evm_revert, evm_mine/anvil_mine, time controls, "
                             "anvil_set*, impersonation (Anvil's names, and hardhat_* for anvil_*)")
        if inflation.MODULE in self.app.modules:
            lines.append(self.app.keepers["inflation"].describe(self.app.view()))
        if slashing.MODULE in self.app.modules:
            lines.append(slashing.describe(self.app.view()))
        if self.dev_keys:
            lines.append("dev accounts (funded; these keys are public, use them for development only):")
            for i, key in enumerate(self.dev_keys):
                bech32 = addresses.to_bech32(g.bech32_prefix, key.address)
                lines.append(f"  ({i}) {addresses.to_hex(key.address)}  {bech32}")
                lines.append(f"      private key 0x{key.private_key.hex()}")
        extra = g.erc20_authority
        if extra and extra != authority.GOV:
            who = next((f"dev account ({i})" for i, k in enumerate(self.dev_keys) if k.address == extra),
                       addresses.to_bech32(g.bech32_prefix, extra))
            lines.append(f"authority: the gov module account {addresses.to_bech32(g.bech32_prefix, authority.GOV)}; "
                         f"{who} may also register erc20 pairs and change erc20 params (a dev genesis says so)")
        self.out.write("\n".join(lines) + "\n")
        self.out.flush()

    def _faces_first(self, start):
        """`start` each child, the faces first: a taken port stops the node (ListenError) before any thread
        or block starts, with the faces already bound closed again."""
        faces = list(self.listeners.values())
        bound = []
        try:
            for face in faces:
                start(face)
                bound.append(face)
        except (CannotListenError, GrpcBindError) as e:
            for face in reversed(bound):
                face.stopService()
            self.running = False
            raise ListenError(self._listen_failure(e)) from None
        for child in self:
            if child not in faces:
                start(child)

    def _listen_failure(self, error):
        """One line: which face could not listen where, and the setting (or twistd option) that moves it."""
        if isinstance(error, GrpcBindError):
            name, address, reason = "grpc", self.settings.grpc.address, str(error)
        else:
            name = self._faces_by_address[(error.interface, error.port)]
            address = f"{error.interface}:{error.port}"
            reason = getattr(error.socketError, "strerror", None) or str(error.socketError)
        section, key, option = LISTEN_SETTINGS[name]
        return (f"the {name} face cannot listen on {address} ({reason}): change [{section}] {key} in "
                f"chaind.toml" + (f" or give {option}" if option else ""))

    def _address(self, name):
        listener = self.listeners[name]
        host = listener.host if isinstance(listener, GrpcServer) else listener._waitingForPort.result.getHost().host
        return f"{host}:{self.port_of(name)}"


def _serves_dev(settings):
    """Whether the node serves the dev namespace: [json-rpc] api names it, and the node makes its own blocks (the
    dev controls drive its producer: under CometBFT, socket mode, there is none to drive)."""
    rpc = settings.json_rpc
    return rpc.enable and "dev" in _namespaces(rpc.api) and settings.abci.mode != "socket"


def _namespaces(api):
    return {name.strip() for name in api.split(",") if name.strip()}


def _origin_of(address):
    """The browser origin of a face listening at host:port; with port 0 (tests) any port of that host."""
    host, _, port = address.rpartition(":")
    return f"http://{host or '127.0.0.1'}" + (f":{port}" if port != "0" else "")


def _admit(policy, origin):
    """`policy` (an OriginPolicy, or None for none) admitting `origin` as well (None: unchanged)."""
    if origin is None:
        return policy
    rule = OriginRule.parse(origin)
    return OriginPolicy((rule,)) if policy is None else attrs.evolve(policy, rules=policy.rules + (rule,))


def _notifications_unsupported(params):
    raise RPCError(METHOD_NOT_FOUND, "notifications not supported")


# Each face's listening address: its config section and key, and the twistd option that overrides it.
LISTEN_SETTINGS = {
    "json-rpc": ("json-rpc", "address", "--json-rpc-address"),
    "websocket": ("json-rpc", "ws-address", "--ws-address"),
    "cometbft": ("cometbft-rpc", "address", "--cometbft-address"),
    "grpc": ("grpc", "address", "--grpc-address"),
    "rest": ("rest", "address", "--rest-address"),
    "explorer": ("explorer", "address", "--explorer-address"),
    "metrics": ("instrumentation", "prometheus-listen-addr", "--metrics-address"),
    "abci": ("abci", "address", "--abci-address"),
}


class ListenError(Exception):
    """A face could not listen (its port taken, say); the message is one line for the operator."""


def open_node(home_path=None, config_path=None, settings=None, reactor=None, out=None, addresses=None):
    """Build a Node from a home (creating a dev home when none is given and none exists); `addresses`
    ({face: host:port}, faces as LISTEN_SETTINGS names them) override the config's for this run."""
    home = Home(home_path) if home_path else Home(_default_home())
    if not home.exists():
        if home_path:
            raise SystemExit(f"no chain at {home.path}: make one with `chaind init MONIKER --home {home.path}` "
                             f"(add --dev for a dev chain with funded accounts and the dev methods)")
        home.init("dev-validator", dev=True)
    if settings is None:
        path = config_path or (home.config_file if home.config_file.is_file() else None)
        settings = config_mod.load(path)
    if addresses:
        sections = {}
        for face, address in addresses.items():
            section, key, _ = LISTEN_SETTINGS[face]
            sections.setdefault(section.replace("-", "_"), {})[key.replace("-", "_")] = address
        settings = settings.evolve(**sections)
    return Node(home, settings, reactor=reactor, out=out)


def _default_home():
    from chaind.home import DEFAULT_HOME

    return DEFAULT_HOME
