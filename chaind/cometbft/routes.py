"""The CometBFT v0.38 route table: one function per route, its arguments, and whether it may be cached.

Every route answers both URI GET and JSON-RPC (HTTP POST and WebSocket); results are CometBFT's shapes.
"""

import hashlib

import attrs
import orjson
from twisted.internet import defer

import chaind
from chaind.chain import block as blocks
from chaind.chain import errors as chain_errors
from chaind.chain import evidence as chain_evidence
from chaind.chain.block import TxResult
from chaind.chain.txs import native_hash
from chaind.cometbft import encode as enc
from chaind.cometbft import evidence_json
from chaind.cometbft.params import BOOL, BYTES, HEX, INT, JSON, STR, Arg
from chaind.cometbft.proof import tx_proof
from chaind.events import query as q
from chaind.events import types as ev
from chaind.grpc import abci
from chaind.store import search

COMETBFT_VERSION = blocks.COMETBFT_VERSION
P2P_PROTOCOL, BLOCK_PROTOCOL = str(blocks.P2P_PROTOCOL), str(blocks.BLOCK_PROTOCOL)
GENESIS_CHUNK = 16 * 1024 * 1024
BLOCKCHAIN_MAX = 20


class RouteError(Exception):
    """A route's own failure: -32603 with this text as data, as CometBFT reports it (domain errors too)."""


@attrs.frozen
class Route:
    func: object
    args: tuple = ()
    cacheable: str = "no"        # "yes", "no", or "height" (only when a height is given)
    ws_only: bool = False


class CometRoutes:
    def __init__(self, app, settings, *, queries, mempool, producer, bus, reactor, call_pool):
        """settings: [cometbft-rpc]; queries: the gRPC query services, for abci_query; call_pool: where
        LevelDB-heavy routes run, off the reactor."""
        self.app = app
        self.genesis = app.genesis
        self.settings = settings
        self.searcher = search.TxSearch(app)
        self.block_searcher = search.BlockSearch(app)
        self.queries = queries
        self.mempool = mempool
        self.producer = producer
        self.bus = bus
        self.reactor = reactor
        self.call_pool = call_pool
        validator = self.genesis.initial_validators[0] if self.genesis.initial_validators else None
        self.validator = validator
        self.validator_address = hashlib.sha256(validator.consensus_pubkey).digest()[:20] if validator else b""
        self.rpc_address = None      # tcp://host:port, set once the listener is bound
        self._genesis_doc = enc.genesis_doc(self.genesis)
        self._genesis_json = None

    def table(self):
        h = Arg("height", INT)
        paging = (Arg("page", INT), Arg("per_page", INT))
        return {
            "health": Route(self.health),
            "status": Route(self.status),
            "net_info": Route(self.net_info),
            "blockchain": Route(self.blockchain, (Arg("minHeight", INT), Arg("maxHeight", INT)), "yes"),
            "genesis": Route(self.genesis_route, (), "yes"),
            "genesis_chunked": Route(self.genesis_chunked, (Arg("chunk", INT),), "yes"),
            "block": Route(self.block, (h,), "height"),
            "block_by_hash": Route(self.block_by_hash, (Arg("hash", BYTES),), "yes"),
            "block_results": Route(self.block_results, (h,), "height"),
            "commit": Route(self.commit, (h,), "height"),
            "header": Route(self.header, (h,), "height"),
            "header_by_hash": Route(self.header_by_hash, (Arg("hash", HEX),), "yes"),
            "check_tx": Route(self.check_tx, (Arg("tx", BYTES),)),
            "tx": Route(self.tx, (Arg("hash", BYTES), Arg("prove", BOOL)), "yes"),
            "tx_search": Route(self.tx_search, (Arg("query", STR), Arg("prove", BOOL), *paging,
                                                Arg("order_by", STR))),
            "block_search": Route(self.block_search, (Arg("query", STR), *paging, Arg("order_by", STR))),
            "validators": Route(self.validators, (h, *paging), "height"),
            "consensus_params": Route(self.consensus_params, (h,), "height"),
            "unconfirmed_txs": Route(self.unconfirmed_txs, (Arg("limit", INT),)),
            "num_unconfirmed_txs": Route(self.num_unconfirmed_txs),
            "broadcast_tx_sync": Route(self.broadcast_tx_sync, (Arg("tx", BYTES),)),
            "broadcast_tx_async": Route(self.broadcast_tx_async, (Arg("tx", BYTES),)),
            "broadcast_tx_commit": Route(self.broadcast_tx_commit, (Arg("tx", BYTES),)),
            "broadcast_evidence": Route(self.broadcast_evidence, (Arg("evidence", JSON, evidence_json.parse),)),
            "abci_query": Route(self.abci_query, (Arg("path", STR), Arg("data", HEX), h, Arg("prove", BOOL))),
            "abci_info": Route(self.abci_info, (), "yes"),
        }

    # -- heights ---------------------------------------------------------------------------------

    def _earliest(self):
        return self.genesis.initial_height

    def _height(self, height, latest=None):
        """CometBFT's getHeight: None is the latest; others must be committed and kept. `latest`: the highest
        height allowed, by default the last committed one."""
        latest = self.app.height if latest is None else latest
        if height is None:
            return latest
        if height <= 0:
            raise RouteError(f"height must be greater than 0, but got {height}")
        if height > latest:
            raise RouteError(f"height {height} must be less than or equal to the current blockchain height {latest}")
        if height < self._earliest():
            raise RouteError(f"height {height} is not available, lowest height is {self._earliest()}")
        return height

    def _block(self, height):
        found = self.app.block_at(height)
        if found is None:
            raise RouteError(f"height {height} is not available")
        return found

    def _txs(self, height, count):
        return [self.app.tx_at(height, i) for i in range(count)]

    # -- info ------------------------------------------------------------------------------------

    def health(self):
        return {}

    def status(self):
        header, meta = self.app.head
        first_header, first_meta = self._block(self._earliest()) if self.app.height >= self._earliest() \
            else self.app.head
        # Its power in the set of the next block (0 once it is out of the set), as CometBFT reports it.
        power = next((v.power for v in self.app.validator_set(header.height + 1)
                      if v.address == self.validator_address), 0)
        validator = {"address": enc.hexu(self.validator_address),
                     "pub_key": {"type": "tendermint/PubKeyEd25519",
                                 "value": enc.b64(self.validator.consensus_pubkey) if self.validator else ""},
                     "voting_power": str(power)}
        return {
            "node_info": {
                "protocol_version": {"p2p": P2P_PROTOCOL, "block": BLOCK_PROTOCOL, "app": "0"},
                # No p2p layer: the node's identity is its validator's, its address the RPC's.
                "id": self.validator_address.hex(), "listen_addr": self.rpc_address,
                "network": self.genesis.chain_id, "version": COMETBFT_VERSION, "channels": "",
                "moniker": self.validator.moniker if self.validator else "",
                "other": {"tx_index": "on", "rpc_address": self.rpc_address}},
            "sync_info": {
                "latest_block_hash": enc.hexu(meta.hash), "latest_app_hash": enc.hexu(meta.app_hash),
                "latest_block_height": str(header.height), "latest_block_time": enc.format_time(header.time_ns),
                "earliest_block_hash": enc.hexu(first_meta.hash), "earliest_app_hash": enc.hexu(first_header.app_hash),
                "earliest_block_height": str(first_header.height),
                "earliest_block_time": enc.format_time(first_header.time_ns), "catching_up": False},
            "validator_info": validator}

    def net_info(self):
        return {"listening": False, "listeners": [], "n_peers": "0", "peers": []}

    def abci_info(self):
        header, meta = self.app.head
        return {"response": {"data": "chaind", "version": chaind.__version__,
                             "last_block_height": str(header.height), "last_block_app_hash": enc.b64(meta.app_hash)}}

    def abci_query(self, path, data, height, prove):
        if height:
            self._height(height)
        # Off the reactor: a query may run the EVM (ethermint.evm.v1.Query/EthCall).
        return self._off_reactor(self._abci_query, path, data, height, prove)

    def _abci_query(self, path, data, height, prove):
        answer = abci.query(self.queries, path or "", data or b"", height or 0, bool(prove))
        proof = {"ops": [{"type": kind, "key": enc.b64(key), "data": enc.b64(op)}
                         for kind, key, op in answer.proof_ops]} if answer.proof_ops else None
        return {"response": {"code": answer.code, "log": answer.log, "info": "", "index": "0",
                             "key": enc.b64(answer.key) if answer.key else None,
                             "value": enc.b64(answer.value) if answer.value else None, "proofOps": proof,
                             "height": str(answer.height), "codespace": answer.codespace}}

    def genesis_route(self):
        if len(self._genesis_bytes()) > GENESIS_CHUNK:
            raise RouteError("genesis response is large, please use the genesis_chunked API instead")
        return {"genesis": self._genesis_doc}

    def _genesis_bytes(self):
        if self._genesis_json is None:      # the genesis never changes: encoded once
            self._genesis_json = orjson.dumps(self._genesis_doc)
        return self._genesis_json

    def genesis_chunked(self, chunk):
        data = self._genesis_bytes()
        total = max(1, -(-len(data) // GENESIS_CHUNK))
        chunk = chunk or 0
        if chunk < 0 or chunk >= total:
            raise RouteError(f"there are {total - 1} chunks, {chunk} is invalid")
        return {"chunk": str(chunk), "total": str(total),
                "data": enc.b64(data[chunk * GENESIS_CHUNK:(chunk + 1) * GENESIS_CHUNK])}

    # Validators and consensus params are known for the next height too: CometBFT answers both up to its
    # latestUncommittedHeight (committed + 1; a light client asks for height H + 1's validators to verify H).
    def consensus_params(self, height):
        height = self._height(height, self.app.height + 1)
        params = self.app.consensus_params(height)
        return {"block_height": str(height), "consensus_params": enc.consensus_params(params)}

    def validators(self, height, page, per_page):
        height = self._height(height, self.app.height + 1)
        vals = [enc.validator(v.address, v.pubkey, v.power) for v in self.app.validator_set(height)]
        start, stop = self._page(len(vals), page, per_page)
        return {"block_height": str(height), "validators": vals[start:stop], "count": str(stop - start),
                "total": str(len(vals))}

    # -- blocks ----------------------------------------------------------------------------------

    def block(self, height):
        height = self._height(height)
        header, meta = self._block(height)
        return {"block_id": enc.block_id(enc.block_id_of(meta)),
                "block": enc.block(header, self._txs(height, meta.num_txs), self.app.commit_sigs(header),
                                   [evidence_json.evidence(e) for e in self.app.consensus_info(height)[2]])}

    def block_by_hash(self, hash):
        height = self.app.height_of_hash(hash or b"")
        if height is None:
            return {"block_id": enc.block_id(blocks.BlockId()), "block": None}
        return self.block(height)

    def header(self, height):
        header, _ = self._block(self._height(height))
        return {"header": enc.header(header)}

    def header_by_hash(self, hash):
        height = self.app.height_of_hash(hash or b"")
        return {"header": None} if height is None else self.header(height)

    def blockchain(self, minHeight, maxHeight):
        # Up to 20 block reads, and block_results' one read per tx: LevelDB work kept off the reactor.
        return self._off_reactor(self._blockchain, minHeight, maxHeight)

    def _blockchain(self, minHeight, maxHeight):
        latest, base = self.app.height, self._earliest()
        low, high = minHeight or 0, maxHeight or 0
        if low < 0 or high < 0:
            raise RouteError("heights must be non-negative")
        low, high = low or 1, min(latest, high or latest)
        low = max(base, low, high - BLOCKCHAIN_MAX + 1)
        if low > high:
            raise RouteError(f"min height {low} can't be greater than max height {high}")
        metas = []
        for height in range(high, low - 1, -1):
            header, meta = self._block(height)
            metas.append({"block_id": enc.block_id(enc.block_id_of(meta)), "block_size": str(meta.size),
                          "header": enc.header(header), "num_txs": str(meta.num_txs)})
        return {"last_height": str(latest), "block_metas": metas}

    def block_results(self, height):
        return self._off_reactor(self._block_results, height)

    def _block_results(self, height):
        height = self._height(height)
        _, meta = self._block(height)
        results = [self.app.result_at(height, i) for i in range(meta.num_txs)]
        block_events, updates = self.app.finalize_info(height)
        return {"height": str(height), "txs_results": [enc.exec_tx_result(r) for r in results] or None,
                "finalize_block_events": enc.events(block_events) or None,
                "validator_updates": enc.validator_updates(updates),
                "consensus_param_updates": enc.consensus_params(self.app.consensus_params(height + 1)),
                "app_hash": enc.b64(meta.app_hash)}

    def commit(self, height):
        height = self._height(height)
        header, meta = self._block(height)
        following = self.app.block_at(height + 1) if height < self.app.height else None
        # A solo validator's precommit time is the next block's time (CometBFT's MedianTime of one vote);
        # for the head, the earliest vote time CometBFT allows (block time + 1 ms).
        vote_time = following[0].time_ns if following else header.time_ns + 1_000_000
        bid = enc.block_id_of(meta)
        commit = enc.commit(height, bid, self.app.precommit_sigs(height, bid, vote_time))
        return {"signed_header": {"header": enc.header(header), "commit": commit},
                "canonical": following is not None}

    # -- txs -------------------------------------------------------------------------------------

    def tx(self, hash, prove):
        found = self.app.tx_position(hash or b"")
        if found is None:
            raise RouteError(f"tx ({(hash or b'').hex().upper()}) not found")
        return self._result_tx(*found, prove)

    def _result_tx(self, height, index, prove, txs=None):
        raw = self.app.tx_at(height, index)
        proof = None
        if prove:
            if txs is None:
                _, meta = self._block(height)
                txs = self._txs(height, meta.num_txs)
            proof = tx_proof(txs, index)
        return enc.result_tx(native_hash(raw), height, index, raw, self.app.result_at(height, index), proof)

    def _query(self, text):
        if text is None:
            raise RouteError("query cannot be empty")
        if len(text.encode()) > self.settings.max_query_length:
            raise RouteError("maximum query length exceeded")
        try:
            return q.parse(text)
        except q.QueryError as e:
            raise RouteError(str(e)) from None

    def _page(self, total, page, per_page):
        s = self.settings
        return search.page_bounds(total, page, per_page, s.default_per_page, s.max_per_page)

    def tx_search(self, query, prove, page, per_page, order_by):
        parsed = self._query(query)
        order = search.order_of(order_by, "asc")
        # Index scans and result reads are LevelDB work: off the reactor.
        return self._off_reactor(self._tx_search, parsed, bool(prove), page, per_page, order)

    def _tx_search(self, parsed, prove, page, per_page, order):
        found = self.searcher.positions(parsed)
        if order == "desc":
            found.reverse()
        start, stop = self._page(len(found), page, per_page)
        return {"txs": [self._result_tx(height, index, prove) for height, index in found[start:stop]],
                "total_count": str(len(found))}

    def block_search(self, query, page, per_page, order_by):
        parsed = self._query(query)
        order = search.order_of(order_by, "desc")
        return self._off_reactor(self._block_search, parsed, page, per_page, order)

    def _block_search(self, parsed, page, per_page, order):
        heights = self.block_searcher.heights(parsed, self._earliest(), self.app.height)
        if order == "desc":
            heights = heights[::-1]
        start, stop = self._page(len(heights), page, per_page)
        return {"blocks": [self.block(h) for h in heights[start:stop]], "total_count": str(len(heights))}

    def _off_reactor(self, fn, *args):
        return self.call_pool.run(fn, *args)

    # -- mempool ---------------------------------------------------------------------------------

    def _pending(self):
        return [tx for by_nonce in self.mempool.content().values() for tx in by_nonce.values()]

    def unconfirmed_txs(self, limit):
        pending = self._pending()
        limit = self.settings.default_per_page if limit is None or limit < 1 else \
            min(limit, self.settings.max_per_page)
        return {"n_txs": str(min(limit, len(pending))), "total": str(len(pending)),
                "total_bytes": str(sum(len(t.raw) for t in pending)),
                "txs": [enc.b64(t.raw) for t in pending[:limit]]}

    def num_unconfirmed_txs(self):
        pending = self._pending()
        return {"n_txs": str(len(pending)), "total": str(len(pending)),
                "total_bytes": str(sum(len(t.raw) for t in pending)), "txs": None}

    def check_tx(self, tx):
        d = self._off_reactor(self.app.check_tx, tx or b"")
        return d.addCallbacks(lambda checked: _check_result(checked.gas if checked.kind != "evm"
                                                            else checked.evm.gas),
                              _check_failure_as_result)

    def broadcast_tx_sync(self, tx):
        raw = tx or b""
        d = self.producer.submit(raw)
        return d.addCallbacks(lambda _: _broadcast_result(raw), lambda f: _broadcast_failure(raw, f))

    def broadcast_tx_async(self, tx):
        raw = tx or b""
        # CometBFT answers before CheckTx; the outcome shows up in the mempool, or nowhere.
        self.producer.submit(raw).addErrback(lambda f: f.trap(chain_errors.TxError))
        return _broadcast_result(raw)

    @defer.inlineCallbacks
    def broadcast_tx_commit(self, tx):
        raw = tx or b""
        tx_hash = native_hash(raw)
        included = defer.Deferred()
        bus = self.bus
        # Subscribe before submitting, so the block that takes the tx cannot be missed.
        sub = bus.subscribe(lambda e: native_hash(e.block.txs[e.index]) == tx_hash, capacity=1, kind=ev.Tx)
        sub.on_event = lambda: included.called or included.callback(sub.drain()[0])
        try:
            try:
                checked = yield self.producer.submit(raw)
            except chain_errors.TxError as e:
                return {"check_tx": _check_result(0, e), "tx_result": enc.exec_tx_result(_EMPTY_RESULT),
                        "hash": enc.hexu(tx_hash), "height": "0"}
            timeout = self.reactor.callLater(self.settings.timeout_broadcast_tx_commit, included.cancel)
            try:
                event = yield included
            except defer.CancelledError:
                raise RouteError("timed out waiting for tx to be included in a block") from None
            timeout.cancel()
            gas = checked.gas if checked.kind != "evm" else checked.evm.gas
            return {"check_tx": _check_result(gas), "tx_result": enc.exec_tx_result(event.block.results[event.index]),
                    "hash": enc.hexu(tx_hash), "height": str(event.block.height)}
        finally:
            bus.unsubscribe(sub)


    # -- evidence --------------------------------------------------------------------------------

    def broadcast_evidence(self, evidence):
        """CometBFT's BroadcastEvidence: ValidateBasic, then the pool's verification against the chain;
        the evidence goes into the next block. Its hash (base64, as []byte in cmtjson) is the answer."""
        if evidence is None:
            raise RouteError("no evidence was provided")
        try:
            chain_evidence.validate_basic(evidence)
        except chain_evidence.EvidenceError as e:
            raise RouteError(f"evidence.ValidateBasic failed: {e}") from None
        d = self.producer.submit_evidence(evidence)

        def refused(failure):
            failure.trap(chain_evidence.EvidenceError)
            raise RouteError(f"failed to add evidence: {failure.value}")

        return d.addCallbacks(lambda evidence_hash: {"hash": enc.b64(evidence_hash)}, refused)


_EMPTY_RESULT = TxResult()


def _check_result(gas_wanted, error=None):
    """ResponseCheckTx as jsonpb writes it. The app's check meters no gas, so gas_used stays 0."""
    return {"code": error.code if error else 0, "data": None, "log": error.log if error else "", "info": "",
            "gas_wanted": str(gas_wanted), "gas_used": "0", "events": [],
            "codespace": error.codespace if error else ""}


def _check_failure_as_result(failure):
    failure.trap(chain_errors.TxError)
    return _check_result(0, failure.value)


def _broadcast_result(raw, error=None):
    return {"code": error.code if error else 0, "data": "", "log": error.log if error else "",
            "codespace": error.codespace if error else "", "hash": enc.hexu(native_hash(raw))}


def _broadcast_failure(raw, failure):
    failure.trap(chain_errors.TxError)
    return _broadcast_result(raw, failure.value)
