"""The solo proof-of-stake producer: this node's validator proposes and commits every block.

Execution and the write batch run on one writer thread; events are published on the reactor
after the block is durable, so a notification never precedes a readable block.
"""

import time

from twisted.application import service
from twisted.internet import defer, task, threads
from twisted.logger import Logger
from twisted.python.threadpool import ThreadPool

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
        self._wanted = False
        # Read on the reactor by the metrics: set by the writer before the block's events are published.
        self.last_timings = None        # (seconds executing, seconds committing) of the last block
        self.failed_txs = 0             # refused by check_tx
        self.rejected_txs = 0           # checked, then refused by the mempool (full, underpriced, known)

    def startService(self):
        super().startService()
        self.writer.start()
        self.checker.start()
        interval = self.settings.block_interval
        if interval > 0:
            self._loop = task.LoopingCall(self._tick)
            self._loop.clock = self.reactor
            self._loop.start(interval, now=False)
        if self.app.height < self.app.genesis.initial_height:
            self._tick()

    @defer.inlineCallbacks
    def stopService(self):
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        if self._building is not None:
            try:
                yield self._building
            except Exception:
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

    def _submit(self, check, raw):
        d = threads.deferToThreadPool(self.reactor, self.checker, self._check, check, raw)
        d.addCallbacks(self._admit, self._check_failed)
        return d

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
        if self.settings.block_interval == 0:
            self._request_block()
        return tx

    def _request_block(self):
        if self._building is not None:
            self._wanted = True
            return
        self._tick()

    def _tick(self):
        if self._building is not None or not self.running:
            return self._building
        # head_nonce reads through one cached view per head, shared with _committed's cleanup.
        chosen = self.mempool.select(self.app.head_nonce, self.settings.max_block_txs, self.app.genesis.max_gas)
        # As CometBFT does, the first block is made even when empty blocks are off, so that
        # "latest" always names a real block.
        first = self.app.height < self.app.genesis.initial_height
        if not chosen and not self.settings.empty_blocks and not first:
            return None
        # The decoded txs go to the writer, which then need not decode them again.
        d = threads.deferToThreadPool(self.reactor, self.writer, self._build, chosen, time.time_ns())
        d.addCallbacks(self._committed, self._failed)
        self._building = d
        return d

    def _build(self, chosen, now_ns):
        started = time.perf_counter()
        block, puts = self.app.finalize_block(chosen, now_ns, self.proposer_address)
        executed = time.perf_counter()
        self.app.commit(block, puts)
        self.last_timings = (executed - started, time.perf_counter() - executed)
        return block

    def _committed(self, block):
        self._building = None
        self.mempool.remove_committed(self.app.head_nonce)
        self.bus.publish(self._steps(block) + ev.committed(block) + self._next_height(block))
        if self._wanted or (self.settings.block_interval == 0 and len(self.mempool)):
            self._wanted = False
            self.reactor.callLater(0, self._request_block)
        return block

    def _steps(self, block):
        """The consensus steps this validator went through for `block`, in CometBFT's order: a new round,
        its proposal complete, its prevote a polka (the block valid and locked), precommit, commit.
        The precommit for the parent is signed at this block's time (one validator's median), so it is
        announced only now, first. No timeouts fire: one validator has every vote at once."""
        if self.app.vote_key is None:
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
        return any(v.address == self.app.validator_address for v in self.app.validator_set(height))

    def _next_height(self, block):
        """After the block's events, CometBFT moves to the next height (its NewHeight step)."""
        return [] if self.app.vote_key is None else [ev.NewRoundStep(block, "RoundStepNewHeight")]

    def _failed(self, failure):
        self._building = None
        log.failure("block production failed", failure)
        return failure
