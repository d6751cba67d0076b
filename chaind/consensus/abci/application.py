"""The app's side of each ABCI 2.0 call: chain.App behind CometBFT's requests and responses.

Consensus work (proposals, FinalizeBlock, Commit) runs on the one writer thread in arrival order, CheckTx
on the checker thread, Query on the query pool; Info, Echo, Flush and the vote-extension calls are
answered on the reactor. Each handler returns a Response field (or a Deferred of one).
"""

import collections
import json
import threading
import time

import attrs
from twisted.internet import threads
from twisted.logger import Logger

import chaind
from chaind.chain import commit_info, errors, snapshot, txs
from chaind.chain.app import DecidedBlock
from chaind.chain.halt import ChainHalt
from chaind.consensus import block_log
from chaind.events import types as ev
from chaind.pb.tendermint.abci import types_pb2 as pb
from chaind.pb.tendermint.crypto import keys_pb2
from chaind.pb.tendermint.types import params_pb2

log = Logger()

DECODED_CACHE = 20000     # checked txs kept decoded for the block that includes them (a decode checks signatures)


class AbciError(Exception):
    """A request the app cannot serve: answered with an Exception response, then the connection closes."""


@attrs.define
class Pools:
    """The threads the calls run on (the node's): one writer, one checker, the query pool."""

    writer: object
    checker: object
    query: object


class AbciApplication:
    def __init__(self, app, query, bus, pools, reactor, mempool, retain_blocks=0, snapshots=None):
        self.app = app
        # query(path, data, height, prove): an answer (code, log, key, value, height, codespace, proof
        # ops) for the paths abci_query serves.
        self.query_paths = query
        # CometBFT holds the txs; this mirror of what CheckTx admitted applies the builtin mode's pool
        # rules (nonce gaps, replacement) and feeds txpool_*, pending nonces and newPendingTransactions.
        self.mempool = mempool
        self.bus = bus
        self.pools = pools
        self.reactor = reactor
        self.retain_blocks = retain_blocks
        # The SnapshotManager (consensus/snapshots.py) when snapshots are served, and the restore under way.
        self.snapshots = snapshots
        self._restore = None
        self._finalized = None          # (CommittedBlock, write batch) between FinalizeBlock and Commit
        # The producer's figures, for the metrics: (seconds executing, seconds committing) of the last
        # block, txs check_tx refused, and txs checked then refused by the pool.
        self.last_timings = None
        self.failed_txs = 0
        self.rejected_txs = 0
        self._executed = 0.0
        self._decoded = collections.OrderedDict()   # raw tx -> decoded tx, from CheckTx and proposals
        self._decoded_lock = threading.Lock()       # the checker and the writer both fill it
        # on_halt(ChainHalt), on the reactor, once FinalizeBlock refused a block: CometBFT gets the error and
        # stops, as it does when an SDK app's FinalizeBlock fails.
        self.on_halt = None

    def handle(self, kind, request):
        return getattr(self, kind)(request)

    def _on(self, pool, fn, *args):
        return threads.deferToThreadPool(self.reactor, pool, fn, *args)

    # -- the reactor's own -----------------------------------------------------------------------

    def echo(self, request):
        return pb.ResponseEcho(message=request.message)

    def flush(self, request):
        return pb.ResponseFlush()

    def info(self, request):
        header, meta = self.app.head
        # Before the first block CometBFT must call InitChain: height 0 and no app hash say so.
        started = header.height >= self.app.genesis.initial_height
        return pb.ResponseInfo(data="chaind", version=chaind.__version__, app_version=header.version_app,
                               last_block_height=header.height if started else 0,
                               last_block_app_hash=meta.app_hash if started else b"")

    def extend_vote(self, request):
        return pb.ResponseExtendVote(vote_extension=b"")

    def verify_vote_extension(self, request):
        return pb.ResponseVerifyVoteExtension(status=pb.ResponseVerifyVoteExtension.ACCEPT)

    # -- state sync (the SDK's baseapp answers, its snapshot manager behind them) -------------------------

    # Both read files: on the query pool, not the reactor.
    def list_snapshots(self, request):
        return self._on(self.pools.query, self._list_snapshots)

    def _list_snapshots(self):
        if self.snapshots is None:
            return pb.ResponseListSnapshots()
        return pb.ResponseListSnapshots(snapshots=[
            pb.Snapshot(height=s.height, format=s.format, chunks=s.chunks, hash=s.hash, metadata=s.metadata())
            for s in self.snapshots.store.list()])

    def load_snapshot_chunk(self, request):
        return self._on(self.pools.query, self._load_snapshot_chunk, request)

    def _load_snapshot_chunk(self, request):
        if self.snapshots is None:
            return pb.ResponseLoadSnapshotChunk()
        chunk = self.snapshots.store.load_chunk(request.height, request.format, request.chunk)
        return pb.ResponseLoadSnapshotChunk(chunk=chunk or b"")

    def offer_snapshot(self, request):
        return self._on(self.pools.writer, self._offer, request)

    def _offer(self, request):
        results = pb.ResponseOfferSnapshot
        if not request.HasField("snapshot"):
            return results(result=results.REJECT)
        if self.snapshots is None:
            return results(result=results.ABORT)
        offered = request.snapshot
        try:
            found = snapshot.Snapshot.of_abci(offered.height, offered.format, offered.chunks, offered.hash,
                                              offered.metadata)
            self._restore = snapshot.Restore(self.app, found, request.app_hash, self.snapshots.max_restore_bytes,
                                             self.snapshots.restore_batch_bytes, self.snapshots.read_ahead_bytes)
        except snapshot.UnknownFormat as e:
            log.warn("snapshot offer refused: {why}", why=str(e))
            return results(result=results.REJECT_FORMAT)
        except snapshot.InvalidMetadata as e:
            log.warn("snapshot offer refused: {why}", why=str(e))
            return results(result=results.REJECT)
        except snapshot.SnapshotError as e:
            log.error("failed to restore snapshot: {why}", why=str(e))
            return results(result=results.ABORT)
        return results(result=results.ACCEPT)

    def apply_snapshot_chunk(self, request):
        return self._on(self.pools.writer, self._apply_chunk, request)

    def _apply_chunk(self, request):
        results = pb.ResponseApplySnapshotChunk
        restore = self._restore
        if restore is None:
            log.error("failed to restore snapshot: no restore operation in progress")
            return results(result=results.ABORT)
        try:
            if restore.apply_chunk(request.chunk):
                self._restore = None
                log.info("state restored from the snapshot of height {height}", height=restore.snapshot.height)
        except snapshot.ChunkHashMismatch as e:
            log.error("chunk checksum mismatch; rejecting sender and requesting refetch: chunk {index}, sender "
                      "{sender}: {why}", index=request.index, sender=request.sender, why=str(e))
            return results(result=results.RETRY, refetch_chunks=[request.index],
                           reject_senders=[request.sender] if request.sender else [])
        except snapshot.SnapshotError as e:
            self._restore = None
            log.error("failed to restore snapshot: {why}", why=str(e))
            return results(result=results.ABORT)
        return results(result=results.ACCEPT)

    # -- genesis -----------------------------------------------------------------------------------

    def init_chain(self, request):
        """The genesis is built when the node opens its home; InitChain checks that CometBFT's genesis
        is the same chain and answers the validator set and app hash it starts from."""
        g = self.app.genesis
        if self.app.height >= g.initial_height:
            raise AbciError(f"InitChain: this chain has committed blocks up to {self.app.height} (Info says so)")
        if request.chain_id != g.chain_id:
            raise AbciError(f"InitChain: CometBFT's chain_id {request.chain_id!r} is not this chain's {g.chain_id!r}")
        if request.initial_height and request.initial_height != g.initial_height:
            raise AbciError(f"InitChain: initial_height {request.initial_height} differs from genesis "
                            f"initial_height {g.initial_height}")
        time_ns = request.time.seconds * 10**9 + request.time.nanos
        if request.HasField("time") and time_ns != g.genesis_time_ns:
            raise AbciError("InitChain: CometBFT's genesis_time differs from this chain's genesis_time")
        if request.app_state_bytes:
            try:
                app_state = json.loads(request.app_state_bytes)
            except ValueError as e:
                raise AbciError(f"InitChain: app_state_bytes is not JSON: {e}") from None
            if app_state != g.document["app_state"]:
                raise AbciError("InitChain: CometBFT's genesis app_state differs from this chain's genesis")
        if request.HasField("consensus_params"):
            block = request.consensus_params.block
            if (block.max_bytes, block.max_gas) != (g.max_bytes, g.max_gas):
                raise AbciError(f"InitChain: consensus_params.block (max_bytes {block.max_bytes}, max_gas "
                                f"{block.max_gas}) differs from genesis ({g.max_bytes}, {g.max_gas})")
        ours = self.app.validator_set(g.initial_height)
        theirs = sorted((v.pub_key.ed25519, v.power) for v in request.validators)
        if theirs and theirs != sorted((v.pubkey, v.power) for v in ours):
            raise AbciError(f"InitChain: CometBFT's {len(theirs)} genesis validators are not this chain's "
                            f"{len(ours)} (staking genesis): keys or powers differ")
        if not ours:
            raise AbciError("InitChain: this chain's genesis has no validators")
        _, meta = self.app.head
        # The response's set is the one CometBFT uses: the staking module's, as in the SDK.
        return pb.ResponseInitChain(validators=[_validator_update(v.pubkey, v.power) for v in ours],
                                    app_hash=meta.app_hash)

    # -- mempool -----------------------------------------------------------------------------------

    def check_tx(self, request):
        d = self._on(self.pools.checker, self._check_tx, request.tx)
        d.addCallback(self._admit, request.type == pb.RECHECK, request.tx)
        return d

    def _check_tx(self, raw):
        try:
            tx = self.app.check_tx(raw)
        except errors.TxError as e:
            return e, None
        self._remember(raw, tx)
        return tx, self.app.head_nonce(tx.sender)

    def _admit(self, checked, recheck, raw):
        """On the reactor, where the pool lives: a new tx joins the mirror (whose refusal refuses it), a
        rechecked one that no longer passes leaves it, as it leaves CometBFT's mempool."""
        tx, state_nonce = checked
        if isinstance(tx, errors.TxError):
            if recheck:
                self.mempool.remove(txs.native_hash(raw))
            else:
                self.failed_txs += 1
            return pb.ResponseCheckTx(code=tx.code, codespace=tx.codespace, log=tx.log)
        if not recheck:
            try:
                self.mempool.add(tx, state_nonce)
            except errors.TxError as e:
                self.rejected_txs += 1
                return pb.ResponseCheckTx(code=e.code, codespace=e.codespace, log=e.log)
            self.bus.publish([ev.PendingTx(tx)])
        return pb.ResponseCheckTx(code=0, gas_wanted=tx.gas)

    def _remember(self, raw, tx):
        with self._decoded_lock:
            self._decoded[raw] = tx
            while len(self._decoded) > DECODED_CACHE:
                self._decoded.popitem(last=False)

    def _decode(self, raw):
        """The decoded tx (from the cache when CheckTx saw it), or None when it does not decode."""
        tx = self._decoded.get(raw)
        if tx is not None:
            return tx
        try:
            tx = self.app.decode_tx(raw)
        except errors.TxError:
            return None
        self._remember(raw, tx)
        return tx

    # -- consensus ---------------------------------------------------------------------------------

    def prepare_proposal(self, request):
        return self._on(self.pools.writer, self._prepare, list(request.txs), request.max_tx_bytes)

    def _prepare(self, candidates, max_tx_bytes):
        """The mempool's txs in its order, as many as fit the block's bytes and gas; undecodable ones dropped."""
        chosen, size, gas = [], 0, 0
        max_gas = self.app.consensus_params(self.app.height + 1).block.max_gas
        for raw in candidates:
            tx = self._decode(raw)
            if tx is None or size + len(raw) > max_tx_bytes or (max_gas > 0 and gas + tx.gas > max_gas):
                continue
            chosen.append(raw)
            size += len(raw)
            gas += tx.gas
        return pb.ResponsePrepareProposal(txs=chosen)

    def process_proposal(self, request):
        return self._on(self.pools.writer, self._process, list(request.txs))

    def _process(self, block_txs):
        ok = all(self._decode(raw) is not None for raw in block_txs)
        status = pb.ResponseProcessProposal.ACCEPT if ok else pb.ResponseProcessProposal.REJECT
        return pb.ResponseProcessProposal(status=status)

    def finalize_block(self, request):
        # The misbehavior goes to x/evidence and the last commit to x/slashing, in their begin blockers.
        decided = DecidedBlock(height=request.height, hash=request.hash,
                               next_validators_hash=request.next_validators_hash,
                               misbehavior=commit_info.of_abci_misbehavior(request.misbehavior),
                               last_commit=commit_info.of_abci_commit(request.decided_last_commit))
        time_ns = request.time.seconds * 10**9 + request.time.nanos
        return self._on(self.pools.writer, self._finalize, list(request.txs), time_ns,
                        request.proposer_address, decided)

    def _finalize(self, block_txs, time_ns, proposer, decided):
        with self._decoded_lock:
            items = [self._decoded.pop(raw, None) or raw for raw in block_txs]
        started = time.perf_counter()
        try:
            block, puts = self.app.finalize_block(items, time_ns, proposer, decided)
        except LookupError as e:
            raise AbciError(str(e)) from None
        except ChainHalt as e:
            if self.on_halt is not None:
                self.reactor.callFromThread(self.on_halt, e)
            raise AbciError(str(e)) from None
        self._executed = time.perf_counter() - started
        self._finalized = (block, puts)
        # The SDK answers every block with the consensus params in state after it: CometBFT runs the next with them.
        response = pb.ResponseFinalizeBlock(
            validator_updates=[_validator_update(key, power) for key, power in block.validator_updates],
            consensus_param_updates=params_pb2.ConsensusParams.FromString(block.consensus_params),
            app_hash=block.meta.app_hash)
        _add_events(response.events, block.events)
        for r in block.results:
            _add_exec_result(response.tx_results, r)
        return response

    def commit(self, request):
        d = self._on(self.pools.writer, self._commit)
        d.addCallback(self._committed)
        return d

    def _commit(self):
        if self._finalized is None:
            raise AbciError("Commit without a FinalizeBlock before it")
        block, puts = self._finalized
        self._finalized = None
        started = time.perf_counter()
        self.app.commit(block, puts)
        self.last_timings = (self._executed, time.perf_counter() - started)
        # The snapshot reads this height's state through a frozen view: the next blocks do not show in it.
        frozen = self.app.db.frozen() if self.snapshots is not None and self.snapshots.due(block.height) else None
        return block, frozen

    def _committed(self, done):
        block, frozen = done
        if frozen is not None:
            self.snapshots.take(frozen, block.height)
        # Readers see the block now: subscribers (newHeads, logs, /websocket) hear of it.
        self.mempool.remove_committed(self.app.head_nonce)
        self.bus.publish(ev.committed(block))
        block_log.committed(block, self.last_timings)
        retain = max(0, block.height - self.retain_blocks + 1) if self.retain_blocks else 0
        return pb.ResponseCommit(retain_height=retain)

    # -- query -------------------------------------------------------------------------------------

    def query(self, request):
        return self._on(self.pools.query, self._query, request)

    def _query(self, request):
        if request.height and request.height > self.app.height:
            return pb.ResponseQuery(code=26, codespace="sdk", height=request.height,
                                    log="cannot query with height in the future; please provide a valid height: "
                                        "invalid height")
        answer = self.query_paths(request.path, request.data, request.height, request.prove)
        response = pb.ResponseQuery(code=answer.code, log=answer.log, key=answer.key, value=answer.value,
                                    height=answer.height, codespace=answer.codespace)
        for kind, key, data in answer.proof_ops:
            response.proof_ops.ops.add(type=kind, key=key, data=data)
        return response


def _validator_update(pubkey, power):
    return pb.ValidatorUpdate(pub_key=keys_pb2.PublicKey(ed25519=pubkey), power=power)


# Messages are added in place (repeated.add) rather than built and copied in: a block of 1,000 EVM
# txs carries some 10,000 events, and this halves the cost of its response.
def _add_events(repeated, events):
    for e in events:
        added = repeated.add(type=e.type)
        for key, value, index in e.attributes:
            added.attributes.add(key=key, value=value, index=bool(index))


def _add_exec_result(repeated, r):
    added = repeated.add(code=r.code, data=r.data, log=r.log, gas_wanted=r.gas_wanted, gas_used=r.gas_used,
                         codespace=r.codespace)
    _add_events(added.events, r.events)
    return added


def exec_result(r):
    """A TxResult as FinalizeBlock's ExecTxResult."""
    return _add_exec_result(pb.ResponseFinalizeBlock().tx_results, r)


