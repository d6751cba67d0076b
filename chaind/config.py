"""Node settings: defaults here, documented in etc/chaind.toml, overridden by the home's config file.

Each section is an attrs class; a key the node does not know is an error, not a silent no-op.
"""

import re
import tomllib

import attrs


class ConfigError(ValueError):
    """A config file that cannot be used; the message says which key and why."""


def is_host_port(address):
    """Whether `address` is host:port (or a bare port) a face can listen on or be reached at."""
    _, _, port = address.rpartition(":")
    return port.isdigit() and int(port) <= 65535


def _listen(section, default):
    def check(instance, attribute, value):
        if not is_host_port(value):
            # The words of the twistd options (tap.py) that override these keys.
            raise ConfigError(f"[{section}] {attribute.name.replace('_', '-')} must be host:port "
                              f"(e.g. 127.0.0.1:8545), not {value!r}")
    return attrs.field(default=default, validator=[attrs.validators.instance_of(str), check])


LOG_LEVELS = ("debug", "info", "warn", "error")


def _at_least(section, low):
    def check(instance, attribute, value):
        if value < low:
            raise ConfigError(f"[{section}] {attribute.name.replace('_', '-')} must be at least {low}, got {value}")
    return check


def _one_of(section, choices):
    def check(instance, attribute, value):
        if value not in choices:
            raise ConfigError(f"[{section}] {attribute.name.replace('_', '-')} must be one of "
                              f"{', '.join(choices)}, got {value!r}")
    return check


@attrs.frozen
class NodeSettings:
    moniker: str = ""                   # this node's name (CometBFT's moniker); gentx's default --moniker
    # the least level logged: debug, info (one line per block), warn or error (CometBFT's log_level)
    log_level: str = attrs.field(default="info", validator=[attrs.validators.instance_of(str),
                                                            _one_of("node", LOG_LEVELS)])
    # net allocations between two young garbage collections (Python's default 700; 0 keeps Python's)
    gc_young_threshold: int = attrs.field(default=20_000, validator=_at_least("node", 0))


@attrs.frozen
class ChainSettings:
    # seconds between blocks; 0 = a block as soon as a tx arrives
    block_interval: float = attrs.field(default=1.0, validator=_at_least("chain", 0))
    empty_blocks: bool = True           # produce blocks with no txs at block_interval
    # with block_interval > 0, also a block as soon as a tx arrives (Hardhat's auto and interval mining at once)
    automine: bool = False
    # txs taken from the mempool per block
    max_block_txs: int = attrs.field(default=5000, validator=_at_least("chain", 1))


@attrs.frozen
class MempoolSettings:
    size: int = 10000                   # txs held at most
    max_queued_per_sender: int = 64     # txs of one sender behind a nonce gap at most (geth's account queue)
    max_tx_bytes: int = 131072          # size of one tx at most
    price_bump: int = 10                # percent a replacement must raise both fee caps by


@attrs.frozen
class StorageSettings:
    # 0 = archive (every height readable); N = keep the last N heights
    pruning: int = attrs.field(default=0, validator=_at_least("storage", 0))
    # blocks between pruning passes, and how long a height's state outlives its readability
    prune_interval: int = attrs.field(default=100, validator=_at_least("storage", 1))
    # MB of LevelDB's block cache; the OS page cache holds the files as well
    leveldb_cache_mb: int = attrs.field(default=1, validator=_at_least("storage", 1))
    # decoded IAVL nodes kept in memory (about 500 bytes each, key and value included), shared by commits and proofs
    iavl_cache_nodes: int = attrs.field(default=150_000, validator=_at_least("storage", 1000))
    # native store values at the head kept in memory for the next block's reads (0: none)
    state_cache_keys: int = attrs.field(default=100_000, validator=_at_least("storage", 0))
    # keys one abci_query /store/<name>/subspace may list; a larger listing is refused
    subspace_max_keys: int = attrs.field(default=10_000, validator=_at_least("storage", 1))
    # fsync each block's write batch (a dev home turns it off: then only an OS crash, not a killed process,
    # could lose committed blocks)
    fsync: bool = True
    # LevelDB's compression of the table files it writes: "snappy", or "none" (a dev home's: no CPU spent
    # compressing what compaction rewrites again and again; files of either kind are read whatever it is)
    compression: str = attrs.field(default="snappy", validator=_one_of("storage", ("snappy", "none")))


JSON_RPC_NAMESPACES = ("eth", "net", "web3", "txpool", "debug", "dev")


@attrs.frozen
class JsonRpcSettings:
    enable: bool = True
    address: str = _listen("json-rpc", "127.0.0.1:8545")
    api: str = "eth,net,web3"           # enabled namespaces (txpool, debug and dev are opt-in)
    max_body_bytes: int = 5 * 1024 * 1024
    max_header_bytes: int = 16384       # request line and headers of one HTTP request
    # seconds a keep-alive connection may wait for its next request (geth's IdleTimeout)
    idle_timeout: float = attrs.field(default=120.0, validator=_at_least("json-rpc", 0.1))
    # seconds a request may take to arrive whole from its first byte (geth's ReadTimeout and ReadHeaderTimeout)
    read_timeout: float = attrs.field(default=30.0, validator=_at_least("json-rpc", 0.1))
    # HTTP connections served at once on 8545 (0: no limit); at the cap an idle or slow one gives way to a newcomer
    max_open_connections: int = attrs.field(default=1000, validator=_at_least("json-rpc", 0))
    max_batch_size: int = 1000          # requests in one batch
    stream_buffer_bytes: int = 1 << 20  # a streamed result (a trace) this small is sent whole
    gas_cap: int = 25_000_000           # eth_call / eth_estimateGas gas limit; 0 = none
    evm_timeout: float = 5.0            # seconds an eth_call may run, from when it starts
    # calls waiting for a call thread (eth_call, eth_getLogs, REST and CometBFT searches), in all and per request
    max_queued_calls: int = attrs.field(default=1000, validator=_at_least("json-rpc", 1))
    max_calls_per_request: int = attrs.field(default=100, validator=_at_least("json-rpc", 1))
    logs_cap: int = 10000               # eth_getLogs results at most
    block_range_cap: int = 10000        # eth_getLogs blocks spanned at most
    filter_cap: int = 200               # installed filters at most
    # installed filters of one client at most: a WebSocket connection, or a browser origin over HTTP
    filter_cap_per_client: int = attrs.field(default=50, validator=_at_least("json-rpc", 1))
    filter_timeout: float = 300.0       # seconds an unpolled filter lives
    filter_queue: int = 10000           # events an unpolled filter holds before it is removed
    feehistory_cap: int = 100           # eth_feeHistory blocks at most
    simulate_max_blocks: int = 256      # eth_simulateV1 blocks (gaps filled included) at most, as geth
    simulate_max_calls_per_block: int = 5000  # eth_simulateV1 calls in one block at most, as geth
    simulate_max_calls: int = 10000     # eth_simulateV1 calls in one request at most, as geth
    allow_unprotected_txs: bool = False  # eth_sendRawTransaction takes txs without an EIP-155 chain id
    vhosts: str = "localhost"           # Host names served (IP addresses always are); * = any
    cors_domains: str = ""              # browser origins allowed to read answers; * = any; empty = none
    ws_enable: bool = True
    ws_address: str = _listen("json-rpc", "127.0.0.1:8546")
    ws_max_connections: int = 1000      # open WebSocket connections at most; 0 = no limit
    ws_max_subscriptions: int = 1000    # eth_subscribe subscriptions per connection at most
    ws_max_message_bytes: int = 5 * 1024 * 1024  # one incoming message at most
    ws_send_queue: int = 10000          # messages queued for a client that reads too slowly
    ws_send_queue_bytes: int = attrs.field(default=16 << 20, validator=_at_least("json-rpc", 1024))  # their bytes
    # bytes queued for all slow clients together; beyond, those holding the most are dropped
    ws_send_queue_total_bytes: int = attrs.field(default=128 << 20, validator=_at_least("json-rpc", 1024))
    ws_write_timeout: float = 10.0      # seconds a client may read nothing while messages wait; 0 = none (geth: 10)
    ws_origins: str = ""                # browser origins allowed to connect; empty = http://localhost and this host

    def __attrs_post_init__(self):
        names = (name.strip() for name in self.api.split(","))
        unknown = [name for name in names if name and name not in JSON_RPC_NAMESPACES]
        if unknown:
            raise ConfigError(f"[json-rpc] api names an unknown namespace {unknown[0]!r}; known: "
                              f"{', '.join(JSON_RPC_NAMESPACES)}")


@attrs.frozen
class CometRpcSettings:
    enable: bool = True
    address: str = _listen("cometbft-rpc", "127.0.0.1:26657")
    max_body_bytes: int = 1_000_000     # one request body (or WebSocket message) at most
    # request line and headers of one HTTP request at most (a longer URL is 414, longer headers 431)
    max_header_bytes: int = attrs.field(default=1 << 20, validator=_at_least("cometbft-rpc", 1024))
    max_batch_size: int = 10            # requests in one JSON-RPC batch
    max_query_length: int = 512         # bytes of one event query (tx_search, block_search, subscribe)
    default_per_page: int = 30          # tx_search/block_search page size when none is asked
    max_per_page: int = 100             # a larger per_page is lowered to this
    cors_allowed_origins: str = ""      # browser origins allowed to read answers; * = any; empty = none
    max_subscription_clients: int = 100  # WebSocket connections holding subscriptions at once
    max_subscriptions_per_client: int = 5
    subscription_buffer_size: int = 200  # events queued for one subscription before it is canceled
    timeout_broadcast_tx_commit: float = 10.0  # seconds broadcast_tx_commit waits for the block
    ws_ping_interval: float = 27.0      # seconds between keep-alive pings
    ws_ping_timeout: float = 3.0        # seconds a ping waits for its pong before the connection is dropped
    # seconds a request may take to arrive whole (CometBFT's read_timeout); a keep-alive connection's wait for the
    # next (Go uses the read timeout); connections served at once, /websocket ones too (CometBFT's default)
    read_timeout: float = attrs.field(default=10.0, validator=_at_least("cometbft-rpc", 0.1))
    idle_timeout: float = attrs.field(default=10.0, validator=_at_least("cometbft-rpc", 0.1))
    max_open_connections: int = attrs.field(default=900, validator=_at_least("cometbft-rpc", 0))
    # bytes of answers queued for a /websocket client that reads too slowly, and for all of them together
    ws_send_queue_bytes: int = attrs.field(default=16 << 20, validator=_at_least("cometbft-rpc", 1024))
    ws_send_queue_total_bytes: int = attrs.field(default=128 << 20, validator=_at_least("cometbft-rpc", 1024))
    ws_write_timeout: float = 10.0      # seconds a client may read nothing while answers wait; 0 = none


@attrs.frozen
class GrpcSettings:
    enable: bool = True
    address: str = _listen("grpc", "127.0.0.1:9090")
    max_recv_msg_size: int = attrs.field(default=10 * 1024 * 1024, validator=_at_least("grpc", 1))
    max_send_msg_size: int = attrs.field(default=2**31 - 1, validator=_at_least("grpc", 1))
    max_workers: int = attrs.field(default=8, validator=_at_least("grpc", 1))  # threads answering the longer calls
    shutdown_grace: float = 5.0         # seconds calls in flight may finish when the node stops
    tls_cert_file: str = ""             # PEM certificate chain; with tls_key_file, gRPC over TLS ("" = plaintext)
    tls_key_file: str = ""              # PEM private key of that certificate

    def __attrs_post_init__(self):
        if bool(self.tls_cert_file) != bool(self.tls_key_file):
            raise ConfigError("[grpc] tls-cert-file and tls-key-file go together: set both (TLS) or neither")


@attrs.frozen
class TracingSettings:
    concurrency: int = 2                # traces running at once (threads)
    max_queued: int = 8                 # traces waiting for a thread; beyond, a request is refused
    max_result_bytes: int = 4 << 30     # one streamed result (a raw trace) at most
    max_buffered_bytes: int = 64 << 20  # one result in a batch or over WebSocket (held whole) at most
    js_memory_limit: int = 128 << 20    # JS heap of one JavaScript tracer
    # trace processes kept started for JavaScript tracers (each runs one trace, then a new one is started)
    js_processes: int = attrs.field(default=2, validator=_at_least("tracing", 0))
    # seconds past its deadline a trace process may still run (bytecode stops at the deadline itself; only a
    # native built-in outruns it) before the node kills it and answers "execution timeout"
    js_kill_grace: float = attrs.field(default=1.0, validator=_at_least("tracing", 0))


@attrs.frozen
class RestSettings:
    enable: bool = True
    address: str = _listen("rest", "127.0.0.1:9091")
    # request line and headers of one HTTP request at most (a longer URL is 414, longer headers 431)
    max_header_bytes: int = attrs.field(default=1 << 20, validator=_at_least("rest", 1024))
    enabled_unsafe_cors: bool = False   # any browser origin may read answers (the SDK's [api] setting)
    # as the SDK's [api] rpc-read-timeout and rpc-max-open-connections; idle keep-alive as Go (the read timeout)
    read_timeout: float = attrs.field(default=10.0, validator=_at_least("rest", 0.1))
    idle_timeout: float = attrs.field(default=10.0, validator=_at_least("rest", 0.1))
    max_open_connections: int = attrs.field(default=1000, validator=_at_least("rest", 0))


@attrs.frozen
class ExplorerSettings:
    enable: bool = False                # serve the explorer page (a dev home turns it on)
    address: str = _listen("explorer", "127.0.0.1:8547")
    # Where the page reaches the node's faces; empty = this node's own listeners (as the browser sees them).
    json_rpc_url: str = ""
    websocket_url: str = ""
    cometbft_url: str = ""
    rest_url: str = ""
    read_timeout: float = attrs.field(default=10.0, validator=_at_least("explorer", 0.1))
    idle_timeout: float = attrs.field(default=60.0, validator=_at_least("explorer", 0.1))
    max_open_connections: int = attrs.field(default=100, validator=_at_least("explorer", 0))


@attrs.frozen
class InstrumentationSettings:
    prometheus: bool = False            # serve /metrics (a dev home turns it on)
    prometheus_listen_addr: str = _listen("instrumentation", "127.0.0.1:26660")
    namespace: str = "cometbft"         # prefix of CometBFT's metric names
    max_open_connections: int = 3       # served at once on the metrics port, as on 8545 (0: no limit)
    read_timeout: float = attrs.field(default=10.0, validator=_at_least("instrumentation", 0.1))
    idle_timeout: float = attrs.field(default=10.0, validator=_at_least("instrumentation", 0.1))

    def __attrs_post_init__(self):
        if not re.fullmatch(r"[a-zA-Z_][a-zA-Z0-9_]*", self.namespace):
            raise ConfigError(f"[instrumentation] namespace must be letters, digits and _, not starting with a "
                              f"digit (a Prometheus name prefix), got {self.namespace!r}")
        if self.max_open_connections < 0:
            raise ConfigError(f"[instrumentation] max-open-connections must be 0 (no limit) or more, "
                              f"got {self.max_open_connections}")


@attrs.frozen
class DebugSettings:
    # run every module's invariants (x/crisis) at the end of every Nth block; 0 = never
    check_invariants_every: int = attrs.field(default=0, validator=_at_least("debug", 0))


@attrs.frozen
class DevSettings:
    # blocks one anvil_mine / hardhat_mine / evm_mine call may make at most
    max_mine_blocks: int = attrs.field(default=100_000, validator=_at_least("dev", 1))
    # bytes an anvil_loadState dump may decompress to at most
    max_state_bytes: int = attrs.field(default=256 << 20, validator=_at_least("dev", 1024))


ABCI_MODES = ("builtin", "socket")


@attrs.frozen
class AbciSettings:
    # builtin: the solo producer makes the blocks; socket: a CometBFT node drives the chain over ABCI
    mode: str = attrs.field(default="builtin", validator=[attrs.validators.instance_of(str),
                                                         _one_of("abci", ABCI_MODES)])
    address: str = _listen("abci", "127.0.0.1:26658")   # where CometBFT's proxy_app connects (socket mode)
    # one ABCI message at most (a FinalizeBlock carries the whole block: above the block's max_bytes)
    max_message_bytes: int = attrs.field(default=64 * 1024 * 1024, validator=_at_least("abci", 1024))
    # requests read ahead of their answers on one connection before reading pauses
    max_pending_requests: int = attrs.field(default=10000, validator=_at_least("abci", 2))
    # connections open at once (CometBFT opens four); more are closed as they come
    max_connections: int = attrs.field(default=8, validator=_at_least("abci", 4))
    # seconds a connection may stay silent in the middle of a message (between messages: no limit)
    idle_timeout: float = attrs.field(default=10.0, validator=_at_least("abci", 0.1))
    # bytes of unfinished messages held across all connections; the connection that passes it is closed
    max_unfinished_bytes: int = attrs.field(default=128 << 20, validator=_at_least("abci", 1024))
    # blocks CometBFT keeps (Commit's retain_height); 0 = all (the SDK's min-retain-blocks)
    min_retain_blocks: int = attrs.field(default=0, validator=_at_least("abci", 0))
    # CometBFT's RPC, where txs sent to the EVM JSON-RPC and gRPC faces are broadcast (socket mode)
    cometbft_rpc: str = _listen("abci", "127.0.0.1:26657")
    # seconds a read of CometBFT's RPC (a block's part-set header and commit, for gRPC and REST) may take
    cometbft_rpc_timeout: float = attrs.field(default=10.0, validator=_at_least("abci", 0.1))

    def __attrs_post_init__(self):
        if self.max_unfinished_bytes < self.max_message_bytes:
            raise ConfigError(f"[abci] max-unfinished-bytes ({self.max_unfinished_bytes}) must be at least "
                              f"max-message-bytes ({self.max_message_bytes}), or a whole message could not be held")


@attrs.frozen
class StateSyncSettings:
    # blocks between two state-sync snapshots (socket mode); 0 = none (the SDK's app.toml default)
    snapshot_interval: int = attrs.field(default=0, validator=_at_least("state-sync", 0))
    # snapshots kept, the newest; 0 = all (the SDK's snapshot-keep-recent)
    snapshot_keep_recent: int = attrs.field(default=2, validator=_at_least("state-sync", 0))
    # bytes a snapshot being restored may inflate to (what a forged one can make the node write)
    max_restore_bytes: int = attrs.field(default=4 << 30, validator=_at_least("state-sync", 1 << 20))
    # bytes of restored state held before they are written (one LevelDB batch)
    restore_batch_bytes: int = attrs.field(default=16 << 20, validator=_at_least("state-sync", 1 << 16))
    # bytes of a store's records read in one sequential scan before a snapshot's (or a restore's check's) walk
    snapshot_read_ahead_bytes: int = attrs.field(default=256 << 20, validator=_at_least("state-sync", 0))


@attrs.frozen
class Settings:
    node: NodeSettings = NodeSettings()
    chain: ChainSettings = ChainSettings()
    mempool: MempoolSettings = MempoolSettings()
    storage: StorageSettings = StorageSettings()
    json_rpc: JsonRpcSettings = JsonRpcSettings()
    tracing: TracingSettings = TracingSettings()
    rest: RestSettings = RestSettings()
    cometbft_rpc: CometRpcSettings = CometRpcSettings()
    grpc: GrpcSettings = GrpcSettings()
    instrumentation: InstrumentationSettings = InstrumentationSettings()
    explorer: ExplorerSettings = ExplorerSettings()
    abci: AbciSettings = AbciSettings()
    state_sync: StateSyncSettings = StateSyncSettings()
    dev: DevSettings = DevSettings()
    debug: DebugSettings = DebugSettings()

    def evolve(self, **sections):
        """A copy with some keys of some sections changed: evolve(chain={"block_interval": 0})."""
        changed = {name: attrs.evolve(getattr(self, name), **values) for name, values in sections.items()}
        return attrs.evolve(self, **changed)


_SECTIONS = {field.name.replace("_", "-"): field for field in attrs.fields(Settings)}


def load(path=None, text=None):
    """Settings from a TOML file (or its text); missing keys keep their defaults."""
    if path is not None:
        with open(path, "rb") as f:
            text = f.read().decode()
    if not text:
        return Settings()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path or 'config'}: {e}") from None
    sections = {}
    for name, values in data.items():
        field = _SECTIONS.get(name)
        if field is None or not isinstance(values, dict):
            raise ConfigError(f"unknown config section [{name}]; known: {', '.join(sorted(_SECTIONS))}")
        known = {f.name.replace("_", "-"): f for f in attrs.fields(field.type)}
        kwargs = {}
        for key, value in values.items():
            option = known.get(key)
            if option is None:
                raise ConfigError(f"unknown key {key!r} in [{name}]; known: {', '.join(sorted(known))}")
            expected = option.type
            if expected is float and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
                raise ConfigError(f"[{name}] {key} must be {expected.__name__}, got {value!r}")
            kwargs[option.name] = value
        sections[field.name] = field.type(**kwargs)
    return Settings(**sections)
