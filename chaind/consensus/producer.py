"""The solo proof-of-stake producer: this node's validator proposes and commits every block.

Execution and the write batch run on one writer thread; events are published on the reactor
after the block is durable, so a notification never precedes a readable block.
"""

import time

from twisted.application import service
from twisted.internet import defer, task, threads
from twisted.logger import Logger
from twisted.python.failure import Failure
from twisted.python.threadpool import ThreadPool

from chaind.chain import block_time, devstate, errors
from chaind.chain import evidence as evidence_mod
from chaind.chain.halt import ChainHalt
from chaind.consensus import block_log
from chaind.consensus.clock import BlockClock
from chaind.consensus.evidence_pool import EvidencePool
from chaind.events import types as ev

log = Logger()


class Producer(service.Service):
    def __init__(self, app, mempool, bus, settings, proposer_address, reactor=None):
        from twisted.internet import reactor as default_reactor

        self.app = app
        self.mempool = mempool
        self.bus = bus
        self.settings = settings
        self.proposer_address = proposer_address
        self.reactor = reactor or default_reactor
        self.writer = ThreadPool(minthreads=1, maxthreads=1, name="chaind-writer")
        self.checker = ThreadPool(minthreads=1, maxthreads=1, name="chaind-check")
        self._loop = None
        self._building = None
        self._building_hashes = frozenset()     # EVM hashes of the txs the block being made includes
        self._settling = []                     # Deferreds fired once that block is made (settled())
        self._settling_next = []                # (EVM hash, Deferred) of polls for the block after it (settled())
        self._wanted = False
        self.clock = BlockClock()
        # Instant mode (a block as soon as a tx arrives) is Anvil's automine; a dev node switches it. With an
        # interval, automine too is Hardhat's auto and interval mining at once (a dev home's).
        self.automine = settings.block_interval == 0 or settings.automine
        self.interval = settings.block_interval
        self.empty_blocks = settings.empty_blocks
        # Read on the reactor by the metrics: set by the writer before the block's events are published.
        self.last_timings = None        # (seconds executing, seconds committing) of the last block
        self._timings = {}              # height -> its timings, from the writer until the block is logged
        self.failed_txs = 0             # refused by check_tx
        self.rejected_txs = 0           # checked, then refused by the mempool (full, underpriced, known)
        self.evidence = EvidencePool()
        self._gas_limit = app.block_gas_limit(app.height + 1)     # the next block's, as of the last block
        # Set once the chain refused a block (chain/halt.py): no block is made after it. on_halt(ChainHalt)
        # is told, on the reactor (the node stops).
        self.halted = None
        self.on_halt = None
        # The SnapshotManager (consensus/snapshots.py) when [state-sync] takes snapshots, and the frozen view of
        # the block just committed that is due one (the writer makes it, the reactor hands it over).
        self.snapshots = None
        self._frozen = None

    def startService(self):
        super().startService()
        self.writer.start()
        self.checker.start()
        self._start_loop()
        if self.app.height < self.app.genesis.initial_height:
            self._tick()

    def _start_loop(self):
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        self._loop = None
        if self.interval > 0:
            self._loop = task.LoopingCall(self._tick)
            self._loop.clock = self.reactor
            self._loop.start(self.interval, now=False).addErrback(self._failed)

    def set_automine(self, on):
        """A block for each tx as it arrives (on), or only on the interval or when mined (off)."""
        self.automine = on
        if on:
            self.set_interval(0)
            if len(self.mempool):
                self._request_block()

    def set_interval(self, seconds):
        """Blocks every `seconds` (0: none on a timer), empty or not as Anvil's interval mining makes
        them; a running node switches at once."""
        self.interval = seconds
        if seconds > 0:
            self.automine = False
            self.empty_blocks = True
        if self.running:
            self._start_loop()

    @defer.inlineCallbacks
    def stopService(self):
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        if self._building is not None:
            try:
                yield self._building
            except Exception:  # noqa: BLE001 (the block's own errback reports it; stopping only waits)
                pass
        self.writer.stop()
        self.checker.stop()
        yield super().stopService()

    def submit(self, raw):
        """check_tx off the reactor, then into the mempool; fires with the decoded tx."""
        return self._submit(self.app.check_tx, raw)

    def submit_eth(self, raw_evm):
        """submit() for a signed Ethereum tx, wrapped in its envelope off the reactor too."""
        return self._submit(self.app.check_eth_tx, raw_evm)

    def submit_impersonated(self, tx):
        """submit() for a tx the dev namespace made for an impersonated account (txs.wrap_impersonated)."""
        return self._submit(lambda checked: self.app.check_decoded(checked, impersonated=True), tx)

    def settled(self, evm_hash):
        """A Deferred firing (with None) once the block being made is durable or failed, when it includes the
        EVM tx `evm_hash`, or under automine once the next block is, when the tx is pending (it came while this
        one was being made: automine makes the next as soon as this one is done); else None. A receipt poll for
        such a tx waits for it rather than answer null and poll again: under automine a client's first poll after
        its send finds the receipt, and no polling competes with the block for the node's time."""
        if self._building is None:
            return None
        settled = defer.Deferred()
        if evm_hash in self._building_hashes:
            self._settling.append(settled)
        elif self.automine and self.mempool.get(evm_hash=evm_hash) is not None:
            self._settling_next.append((evm_hash, settled))
        else:
            return None
        return settled

    def _settle(self):
        """Answer the polls waiting for the block just made (or failed), before its events go out."""
        waiting, self._settling, self._building_hashes = self._settling, [], frozenset()
        for settled in waiting:
            settled.callback(None)

    def _take_next(self):
        """Once the block after the one a poll waited behind is started, or none is: the polls whose tx it takes
        wait for it, the others are answered now (their tx is still pending, or gone)."""
        waiting, self._settling_next = self._settling_next, []
        for evm_hash, settled in waiting:
            if self._building is not None and evm_hash in self._building_hashes:
                self._settling.append(settled)
            else:
                settled.callback(None)

    def _submit(self, check, raw):
        if self._direct():
            return self._submit_direct(check, raw)
        d = threads.deferToThreadPool(self.reactor, self.checker, self._check, check, raw)
        d.addCallbacks(self._admit, self._check_failed)
        return d

    # -- instant mode's direct path: check and block in one writer job ------------------------------

    def _direct(self):
        """Whether a tx sent now is checked on the writer and its block made right after in the same job.
        In instant mode with nothing pending and no block being made, the usual way (check on the checker,
        admit on the reactor, then build on the writer) costs two thread hops on one sender's critical path."""
        return (self.automine and self._building is None and self.halted is None and self.running
                and not len(self.mempool) and not len(self.evidence))

    def _submit_direct(self, check, raw):
        admitted = defer.Deferred()     # the sender's answer: the tx once admitted, or why it was refused
        # The block's time is taken here, on the reactor that owns the clock; given back if no block comes.
        before = self.clock.state()
        time_ns = self.clock.block_time(self.app.head[0].time_ns, self.latest_time_ns())
        clock = (before, self.clock.state())
        d = self._building = threads.deferToThreadPool(self.reactor, self.writer, self._check_and_build,
                                                       check, raw, time_ns, admitted)
        d.addCallbacks(self._direct_built, self._direct_failed, callbackArgs=(admitted, clock),
                       errbackArgs=(admitted, clock))
        d.addErrback(self._failed)
        return admitted

    def _check_and_build(self, check, raw, time_ns, admitted):
        """(tx, its sender's state nonce, the block made with it alone, or None when the tx is for the pool)."""
        tx, state_nonce = self._check(check, raw)
        if not self._alone_in_block(tx, state_nonce):
            return tx, state_nonce, None
        self.reactor.callFromThread(self._admit_building, tx, state_nonce, admitted)
        return tx, state_nonce, self._build([tx], time_ns)

    def _alone_in_block(self, tx, state_nonce):
        """What the pool would select alone for the next block: an EVM tx at its sender's nonce that fits (its gas
        within the block's, check_tx saw to that against the same head)."""
        return (tx.kind == "evm" and tx.nonce == state_nonce and len(tx.raw) <= self.mempool.settings.max_tx_bytes
                and self.settings.max_block_txs > 0)

    def _admit_building(self, tx, state_nonce, admitted):
        """On the reactor, before the sender learns the hash: the tx is pending as in the usual way (the
        pool counts its nonce, lookups find it) and a receipt poll waits for its block."""
        try:
            self.mempool.add(tx, state_nonce)
        except errors.TxError:
            # Only a race refuses it here (the same tx, or one at its nonce, pooled meanwhile from another
            # send): the block under way includes this one whatever the pool holds.
            pass
        self._building_hashes = frozenset((tx.evm_hash,))
        self.bus.publish([ev.PendingTx(tx)])
        admitted.callback(tx)

    def _direct_built(self, result, admitted, clock):
        tx, state_nonce, block = result
        if block is not None:
            return self._committed(block)
        self._building = None
        self._give_back(clock)
        # The pool's usual way, as though checked on the checker: its errors reach the sender.
        defer.maybeDeferred(self._admit, (tx, state_nonce)).chainDeferred(admitted)
        self._more()
        return None

    def _direct_failed(self, failure, admitted, clock):
        if admitted.called:             # the block failed after the tx was admitted
            return self._failed(failure)
        self._building = None
        self._give_back(clock)
        self._more()
        admitted.errback(self._check_failed(failure))
        return None

    def _give_back(self, clock):
        """Undo the block time taken for a block that was not made, unless the clock was set since."""
        before, taken = clock
        if self.clock.state() == taken:
            self.clock.restore(before)

    def submit_evidence(self, dve):
        """Verify duplicate-vote evidence against the chain off the reactor (its ValidateBasic already
        passed), then admit it for the next block; fires with its hash. Evidence already pending or in a
        block is not admitted again, and is no error (as CometBFT's pool answers)."""
        evidence_hash = evidence_mod.hash_of(dve)
        if evidence_hash in self.evidence:
            return defer.succeed(evidence_hash)

        def verify():
            if self.app.evidence_height(evidence_hash) is None:
                evidence_mod.verify(self.app, dve)
                return True
            return False

        def admit(fresh):
            if fresh:
                self.evidence.add(dve)
                self._request_block()
            return evidence_hash

        return threads.deferToThreadPool(self.reactor, self.checker, verify).addCallback(admit)

    def _check_failed(self, failure):
        self.failed_txs += 1
        return failure

    def _check(self, check, raw):
        tx = check(raw)
        return tx, self.app.head_nonce(tx.sender)

    def _admit(self, checked):
        tx, state_nonce = checked
        try:
            self.mempool.add(tx, state_nonce)
        except Exception:
            self.rejected_txs += 1
            raise
        self.bus.publish([ev.PendingTx(tx)])
        if self.automine:
            self._request_block()
        return tx

    def _request_block(self):
        """A block for the pending txs (automine's), once the one being made is done: none when no pending tx can
        go in one (a nonce gap), empty blocks or not, else a gapped tx would have blocks made back to back."""
        if self._building is not None:
            self._wanted = True
            return
        self._tick(txs_only=True)

    def _for_next_block(self):
        """(txs, evidence) the next block carries, within the consensus params it runs with."""
        params = self.app.consensus_params(self.app.height + 1)
        chosen = self.mempool.select(self.app.head_nonce, self.settings.max_block_txs,
                                     self.app.block_gas_limit(self.app.height + 1))
        return chosen, self.evidence.for_block(params.evidence.max_bytes)

    def _tick(self, txs_only=False):
        if self._building is not None:
            return self._building
        if not self.running or self.halted is not None:
            self._take_next()
            return None
        # head_nonce reads through one cached view per head, shared with _committed's cleanup.
        chosen, evidence = self._for_next_block()
        # As CometBFT does, the first block is made even when empty blocks are off, so that
        # "latest" always names a real block.
        first = self.app.height < self.app.genesis.initial_height
        if not chosen and not evidence and (txs_only or not self.empty_blocks) and not first:
            self._take_next()
            return None
        # The decoded txs go to the writer, which then need not decode them again.
        d = threads.deferToThreadPool(self.reactor, self.writer, self._build, chosen,
                                      self.clock.block_time(self.app.head[0].time_ns, self.latest_time_ns()),
                                      evidence)
        d.addCallbacks(self._committed, self._failed)
        d.addErrback(self._failed)
        self._building = d
        self._building_hashes = frozenset(tx.evm_hash for tx in chosen if tx.kind == "evm")
        self._take_next()
        return d

    def _build(self, chosen, now_ns, evidence=()):
        if self.halted is not None:
            raise ChainHalt(self.halted)
        started = time.perf_counter()
        try:
            block, puts = self.app.finalize_block(chosen, now_ns, self.proposer_address, evidence=evidence)
            executed = time.perf_counter()
            self.app.commit(block, puts)
        except ChainHalt as e:
            self.reactor.callFromThread(self._halt, e)
            raise
        except Exception as e:
            # The same txs at the same height fail again: the chain stops, with the error logged and given to
            # whoever waits for the block, as an SDK node panics, rather than answer RPC with no block coming.
            halt = ChainHalt(f"block {self.app.height + 1} could not be made: {type(e).__name__}: {e}")
            self.reactor.callFromThread(log.failure, "block production failed; the chain stops", Failure())
            self.reactor.callFromThread(self._halt, halt)
            raise halt from e
        self.last_timings = (executed - started, time.perf_counter() - executed)
        self._timings[block.height] = self.last_timings
        if self.snapshots is not None and self.snapshots.due(block.height):
            self._frozen = self.app.db.frozen()
        return block

    def _committed(self, block):
        self._building = None
        frozen, self._frozen = self._frozen, None
        if frozen is not None:
            self.snapshots.take(frozen, block.height)
        self._settle()
        self._announce([block])
        self._more()
        return block

    def _announce(self, made, steps=True):
        """Drop what the blocks included from the mempool, and publish their events (`steps`: the
        consensus steps too; a dev run of empty blocks spares subscribers thousands of them)."""
        self.mempool.remove_committed(self.app.head_nonce)
        gas_limit = self.app.block_gas_limit(self.app.height + 1)
        if gas_limit < self._gas_limit:
            self.mempool.drop_above(gas_limit)
        self._gas_limit = gas_limit
        self.evidence.remove_committed(made)
        events = []
        # The consensus steps, a dozen events a block, are made only when a subscriber would be offered them.
        stepped = steps and self.bus.wants(ev.CONSENSUS_STEPS)
        for block in made:
            if stepped:
                events += self._steps(block) + ev.committed(block) + self._next_height(block)
            else:
                events += ev.committed(block)
        if steps:
            for block in made:
                block_log.committed(block, self._timings.pop(block.height, (0.0, 0.0)))
        else:
            block_log.committed_run(made)
        self.bus.publish(events)

    def announce_head(self, block):
        """Tell subscribers the head is `block` again (after a dev revert): its NewBlock, as new."""
        self.bus.publish([ev.NewBlock(block), ev.NewBlockHeader(block)])

    def _more(self):
        if self._wanted or (self.automine and len(self.mempool)):
            self._wanted = False
            self.reactor.callLater(0, self._request_block)
        else:
            self._take_next()

    # -- dev controls: each runs on the writer between blocks ------------------------------------

    @defer.inlineCallbacks
    def exclusive(self, work, *args, prepare=None):
        """work(*args) on the writer thread with no block being built meanwhile; fires with its result.
        `prepare()`, when given, makes the args on the reactor once the writer is free."""
        while self._building is not None:
            try:
                yield self._building
            except Exception:  # noqa: BLE001 (the block's own errback reports it; this only waits)
                pass
        if prepare is not None:
            args = prepare()
        d = self._building = threads.deferToThreadPool(self.reactor, self.writer, work, *args)
        try:
            result = yield d
        finally:
            self._building = None
            self._more()
        return result

    def pending_time_ns(self):
        """The time the next block would have if made now: the clock's, at least 1 ms after the head's (as the
        app keeps it)."""
        head_ns = self.app.head[0].time_ns
        return max(self.clock.peek(head_ns, self.latest_time_ns()), head_ns + 10**6)

    def latest_time_ns(self):
        """The latest block time the chain can run at, at the head's params (chain/block_time.py)."""
        return block_time.bound(self.app.modules, self.app.view()).latest_ns

    @defer.inlineCallbacks
    def mine(self, count=1, interval_s=None, timestamp_s=None):
        """Mine `count` blocks now with the pending txs, `interval_s` apart (moving the clock), the
        first at `timestamp_s` when given. Once the pool is empty, the blocks before the last are an
        empty run stored as headers alone (chain/devstate.py) on the writer, MINE_SLICE at a time; the
        last is built in full. Fires with the number of blocks made."""
        made = 0
        while made < count and (not made or len(self.mempool) or made == count - 1):
            yield self._mine_one(interval_s, None if made else timestamp_s)
            made += 1
        if made < count:
            start = self.clock.state()
            end = yield self.exclusive(self._empty_run, count - made - 1, interval_s, BlockClock(*start),
                                       self.latest_time_ns())
            # The run moved a copy of the clock on the writer; the reactor's takes the same move (any dev time
            # call made meanwhile is kept).
            self.clock.offset_ns += end.offset_ns - start[0]
            yield self._mine_one(interval_s, None)
        return count

    # Blocks of an empty run written in one batch and announced together: what a run holds at once, whatever
    # its length.
    MINE_SLICE = 1000

    def _empty_run(self, count, interval_s, clock, latest_ns):
        """On the writer: `count` empty blocks, MINE_SLICE per batch, each slice announced on the reactor
        before the next is made (so no more than a slice waits there); returns the clock moved past them."""
        parent = self.app.head[0].time_ns
        while count > 0 and self.running:
            times = []
            for _ in range(min(count, self.MINE_SLICE)):
                parent = _next_time(clock, interval_s, parent, latest_ns, devstate.RUN_STEP_NS)
                times.append(parent)
            run = devstate.empty_blocks(self.app, times, self.proposer_address)
            threads.blockingCallFromThread(self.reactor, self._announce, run, False)
            count -= len(run)
        return clock

    def _mine_one(self, interval_s, timestamp_s):
        def prepare():
            if timestamp_s is not None:
                self.clock.next_ns = timestamp_s * 10**9
            chosen, evidence = self._for_next_block()
            return chosen, _next_time(self.clock, interval_s, self.app.head[0].time_ns, self.latest_time_ns()), \
                evidence

        d = self.exclusive(self._build, prepare=prepare)
        return d.addCallback(self._mined)

    def _mined(self, block):
        self._announce([block])
        return block

    def _steps(self, block):
        """The consensus steps this validator went through for `block`, in CometBFT's order: a new round,
        its proposal complete, its prevote a polka (the block valid and locked), precommit, commit.
        The precommit for the parent is signed at this block's time (one validator's median), so it is
        announced only now, first. No timeouts fire: one validator has every vote at once."""
        if self.app.options.vote_key is None:
            return []
        # It votes only at heights whose validator set holds it (staking can take it out).
        steps = [ev.Vote(block, precommit=True)] if block.height > self.app.genesis.initial_height and \
            self._in_set(block.height - 1) else []
        steps += [ev.NewRound(block), ev.NewRoundStep(block, "RoundStepPropose"), ev.CompleteProposal(block),
                  ev.NewRoundStep(block, "RoundStepPrevote")]
        if self._in_set(block.height):
            steps.append(ev.Vote(block, precommit=False))
        return steps + [ev.ValidBlock(block), ev.Polka(block), ev.Lock(block),
                        ev.NewRoundStep(block, "RoundStepPrecommit"), ev.NewRoundStep(block, "RoundStepCommit")]

    def _in_set(self, height):
        return any(v.address == self.app.options.validator_address for v in self.app.validator_set(height))

    def _next_height(self, block):
        """After the block's events, CometBFT moves to the next height (its NewHeight step)."""
        return [] if self.app.options.vote_key is None else [ev.NewRoundStep(block, "RoundStepNewHeight")]

    def _halt(self, halt):
        if self.halted is not None:
            return
        self.halted = str(halt)
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        log.critical("the chain stopped: {message}", message=self.halted)
        if self.on_halt is not None:
            self.on_halt(halt)

    def _failed(self, failure):
        """The end of a block that was not made, or of the producer's own work around one: no error goes
        unlogged into a Deferred nobody holds, and none leaves the producer waiting on a block that never comes."""
        self._building = None
        self._settle()
        self._take_next()
        if not failure.check(ChainHalt):    # a ChainHalt was told by _halt
            log.failure("block production failed; the chain stops", failure)
            self._halt(ChainHalt(f"block production failed: {failure.getErrorMessage()}"))


def _next_time(clock, interval_s, parent_ns, latest_ns, min_step_ns=1_000_000):
    """A mined block's time on `clock`: `interval_s` after the last one's (moving the clock), or the clock's, at
    least `min_step_ns` after its parent's (as Anvil, the clock does not move for blocks mined faster)."""
    if interval_s is not None:
        clock.offset_ns += interval_s * 10**9
    return max(clock.block_time(parent_ns, latest_ns), parent_ns + min_step_ns)
