"""The dev namespace: Anvil's methods (and Hardhat's names for them) for test suites to drive the node.

Snapshots, mining, time, state setters, impersonation and node info, with Anvil 1.7's params and results.
Served only when `[json-rpc] api` lists `dev`; each change runs on the writer between blocks
(Producer.exclusive).
"""

import os
import time

import attrs
from twisted.internet import defer, threads
from twisted.logger import Logger

import chaind
from chaind import errors, gocompat
from chaind.api import encoding as enc
from chaind.api import params as p
from chaind.chain import block_time, devstate
from chaind.chain import errors as chain_errors
from chaind.chain.halt import ChainHalt
from chaind.config import DevSettings
from chaind.consensus.clock import BlockClock
from chaind.progress import Progress
from chaind.store import keys

NAMESPACE_SETTING = "[json-rpc] api"
log = Logger()


class DevApi:
    def __init__(self, app, producer, mempool, filters, impersonation, reactor, call_pool, settings=DevSettings()):
        """filters: the FilterApi (a revert empties them of reverted blocks); call_pool: where state dumps run;
        settings: the node's [dev] limits."""
        self.settings = settings
        self.app = app
        self.producer = producer
        self.mempool = mempool
        self.filters = filters
        self.impersonation = impersonation
        self.reactor = reactor
        self.call_pool = call_pool
        self.snapshots = {}     # id -> Snapshot; ids count up and are never reused, as Anvil's
        self._next_id = 0
        self.instance_id = os.urandom(32)

    def methods(self):
        table = {
            "evm_snapshot": self.snapshot,
            "evm_revert": self.revert,
            "evm_mine": self.evm_mine,
            "evm_setAutomine": self.set_automine,
            "evm_setIntervalMining": self.set_interval_mining,
            "evm_increaseTime": self.increase_time,
            "evm_setNextBlockTimestamp": self.set_next_block_timestamp,
        }
        anvil = {
            "mine": self.anvil_mine,
            "getAutomine": lambda params: _no_params(params) or self.producer.automine,
            "dropTransaction": self.drop_transaction,
            "dropAllTransactions": self.drop_all_transactions,
            "setBlockTimestampInterval": self.set_block_timestamp_interval,
            "removeBlockTimestampInterval": self.remove_block_timestamp_interval,
            "setBalance": self.set_balance,
            "setCode": self.set_code,
            "setNonce": self.set_nonce,
            "setStorageAt": self.set_storage_at,
            "setNextBlockBaseFeePerGas": self.set_next_block_base_fee,
            "setCoinbase": self.set_coinbase,
            "setMinGasPrice": self.set_min_gas_price,
            "impersonateAccount": lambda params: self._impersonate(params, True),
            "stopImpersonatingAccount": lambda params: self._impersonate(params, False),
            "autoImpersonateAccount": self.auto_impersonate,
            "dumpState": self.dump_state,
            "loadState": self.load_state,
            "reset": self.reset,
            "nodeInfo": self.node_info,
            "metadata": self.metadata,
        }
        for name, method in anvil.items():
            table["anvil_" + name] = table["hardhat_" + name] = method
        return table

    # -- snapshots -------------------------------------------------------------------------------

    def snapshot(self, params):
        _no_params(params)
        snapshot_id = self._next_id
        self._next_id += 1

        def taken(mark):
            header, meta = self.app.head
            self.snapshots[snapshot_id] = _Snapshot(mark, header.height, meta.hash, self.producer.clock.state(),
                                                    tuple(self.mempool.txs()))
            return enc.q(snapshot_id)

        # The mark is opened on the writer, between blocks: it undoes exactly the blocks after this head.
        return self.producer.exclusive(self.app.undo.mark).addCallback(taken)

    @defer.inlineCallbacks
    def revert(self, params):
        p.at_most(params, 1)
        snapshot_id = _number(p.arg(params, 0), 0)
        found = self.snapshots.get(snapshot_id)
        if found is None:
            return False
        # This snapshot and every later one are used up (their undo marks close with it).
        for later in [i for i in self.snapshots if i >= snapshot_id]:
            del self.snapshots[later]
        undone = self.app.height
        yield self.producer.exclusive(devstate.rewind, self.app, found.mark)
        # As the blocks were logged when made, their going is logged too: the log then tells the chain's story.
        log.info("evm_revert to snapshot {id}: back to height {height}, {count} blocks undone", id=hex(snapshot_id),
                 height=self.app.height, count=undone - self.app.height)
        self.producer.clock.restore(found.clock)
        self.mempool.clear()
        for tx in found.pending:
            try:
                self.mempool.add(tx, self.app.head_nonce(tx.sender))
            except chain_errors.TxError:
                pass
        self.filters.rewound(self.app.height)
        self.producer.announce_head(devstate.committed_head(self.app))
        return True

    # -- mining ----------------------------------------------------------------------------------

    def evm_mine(self, params):
        p.at_most(params, 1)
        value = p.arg(params, 0, required=False)
        timestamp, count = None, 1
        if isinstance(value, dict):
            # Hardhat/ganache's options form: {timestamp, blocks}.
            unknown = set(value) - {"timestamp", "blocks"}
            if unknown:
                raise errors.invalid_argument(f"invalid argument 0: unknown field {sorted(unknown)[0]}")
            timestamp = _number(value["timestamp"], 0) if value.get("timestamp") is not None else None
            count = _number(value["blocks"], 0) if value.get("blocks") is not None else 1
        elif value is not None:
            timestamp = _number(value, 0)
        self._check_timestamp(timestamp)
        self._check_count(count, 0 if isinstance(value, dict) else None)
        return self._mine(count, None, timestamp).addCallback(lambda _: "0x0")

    def anvil_mine(self, params):
        p.at_most(params, 2)
        count = _number(p.arg(params, 0, required=False, default=1), 0)
        interval = p.arg(params, 1, required=False)
        interval = None if interval is None else _number(interval, 1)
        self._check_count(count, 0)
        if interval is not None:
            # The last block of the run is `count` intervals on.
            self._check_time(time.time_ns() + self.producer.clock.offset_ns + count * interval * 10**9, 1,
                             "the last block's timestamp would be")
        return self._mine(count, interval, None).addCallback(lambda _: None)

    def _check_count(self, count, index):
        limit = self.settings.max_mine_blocks
        if count > limit:
            where = "" if index is None else f"invalid argument {index}: "
            raise errors.invalid_argument(f"{where}{count} blocks exceed the {limit} one call may mine "
                                          f"([dev] max-mine-blocks)")

    def _mine(self, count, interval, timestamp):
        if count < 1:
            return defer.succeed(None)
        return self.producer.mine(count, interval, timestamp).addErrback(_stopped)

    def set_automine(self, params):
        p.at_most(params, 1)
        on = p.arg(params, 0)
        if not isinstance(on, bool):
            raise errors.invalid_argument(f"invalid argument 0: expected a boolean, got {on!r}")
        self.producer.set_automine(on)

    def set_interval_mining(self, params):
        p.at_most(params, 1)
        self.producer.set_interval(_number(p.arg(params, 0), 0))

    def drop_transaction(self, params):
        p.at_most(params, 1)
        tx = self.mempool.get(evm_hash=p.block_hash(p.arg(params, 0), 0))
        if tx is None:
            return None
        self.mempool.drop(tx)
        return enc.d(tx.evm_hash)

    def drop_all_transactions(self, params):
        _no_params(params)
        self.mempool.clear()

    # -- time ------------------------------------------------------------------------------------

    def increase_time(self, params):
        p.at_most(params, 1)
        seconds = _number(p.arg(params, 0), 0)
        clock = self.producer.clock
        self._check_time(time.time_ns() + clock.offset_ns + seconds * 10**9, 0,
                         "the next block's timestamp would be")
        clock.offset_ns += seconds * 10**9
        return clock.offset_ns // 10**9

    def set_next_block_timestamp(self, params):
        p.at_most(params, 1)
        timestamp = _number(p.arg(params, 0), 0)
        self._check_timestamp(timestamp)
        self.producer.clock.next_ns = timestamp * 10**9

    def _check_timestamp(self, timestamp):
        """Block times only go forward, and no further than the chain can encode."""
        if timestamp is None:
            return
        head_seconds = self.app.head[0].time_ns // 10**9
        if timestamp <= head_seconds:
            raise errors.failed(f"timestamp {timestamp} is not after the latest block's ({head_seconds})")
        self._check_time(timestamp * 10**9, 0, "timestamp")

    def _check_time(self, time_ns, index, what):
        """-32602 for a block time past chain/block_time.py's bound, saying the bound and why it is there."""
        bound = block_time.bound(self.app.modules, self.app.view())
        if time_ns > bound.latest_ns:
            latest = bound.latest_ns // 10**9
            raise errors.invalid_argument(
                f"invalid argument {index}: {what} {time_ns // 10**9}, after the latest block timestamp this chain "
                f"can run at, {latest} ({gocompat.format_time_seconds(latest * 10**9)}): {bound.explain()}")

    def set_block_timestamp_interval(self, params):
        p.at_most(params, 1)
        seconds = _number(p.arg(params, 0), 0)
        self._check_time(self.app.head[0].time_ns + seconds * 10**9, 0, "the next block's timestamp would be")
        self.producer.clock.interval_ns = seconds * 10**9

    def remove_block_timestamp_interval(self, params):
        _no_params(params)
        had = self.producer.clock.interval_ns is not None
        self.producer.clock.interval_ns = None
        return had

    # -- state -----------------------------------------------------------------------------------

    def _amend(self, change):
        return self.producer.exclusive(devstate.amend_head, self.app, change)

    def set_balance(self, params):
        p.at_most(params, 2)
        address, value = p.address(p.arg(params, 0), 0), _number(p.arg(params, 1), 1)
        bank, base = self.app.keepers["bank"], self.app.genesis.base_denom

        def change(ctx):
            # The base denom's bank balance is the EVM balance: mint or burn the difference, so the
            # supply stays the sum of the balances.
            self.app.keepers["auth"].ensure_account(ctx, address)
            delta = value - ctx.accounts.get_balance(address)
            if delta > 0:
                bank.mint(ctx, address, base, delta)
            elif delta < 0:
                bank.burn(ctx, address, [(base, -delta)])

        return self._amend(change).addCallback(lambda _: None)

    def set_code(self, params):
        p.at_most(params, 2)
        address, code = p.address(p.arg(params, 0), 0), p.data(p.arg(params, 1), 1)

        def change(ctx):
            self.app.keepers["auth"].ensure_account(ctx, address)
            ctx.accounts.set_code(address, code)

        return self._amend(change).addCallback(lambda _: None)

    def set_nonce(self, params):
        p.at_most(params, 2)
        address, nonce = p.address(p.arg(params, 0), 0), _number(p.arg(params, 1), 1)
        if nonce >= 2**64:
            raise errors.invalid_argument("invalid argument 1: nonce exceeds 2^64-1")

        def change(ctx):
            self.app.keepers["auth"].ensure_account(ctx, address)
            ctx.accounts.set_nonce(address, nonce)

        return self._amend(change).addCallback(lambda _: None)

    def set_storage_at(self, params):
        p.at_most(params, 3)
        address = p.address(p.arg(params, 0), 0)
        slot = _number(p.arg(params, 1), 1)
        value = int.from_bytes(p.fixed(p.arg(params, 2), 2, 32, "common.Hash"), "big")
        if slot >= 2**256:
            raise errors.invalid_argument("invalid argument 1: slot exceeds 256 bits")

        def change(ctx):
            self.app.keepers["auth"].ensure_account(ctx, address)
            ctx.accounts.set_storage(address, slot, value)

        return self._amend(change).addCallback(lambda _: True)

    def set_coinbase(self, params):
        p.at_most(params, 1)
        address = p.address(p.arg(params, 0), 0)
        # The next blocks' COINBASE and tip recipient; the base fee still goes to the fee collector.
        return self._amend(lambda ctx: ctx.store.set(keys.DEV_COINBASE, address)).addCallback(lambda _: None)

    def set_next_block_base_fee(self, params):
        p.at_most(params, 1)
        self.app.set_next_base_fee(_number(p.arg(params, 0), 0))

    def set_min_gas_price(self, params):
        p.at_most(params, 1)
        _number(p.arg(params, 0), 0)
        if not self.app.genesis.no_base_fee:
            raise errors.invalid_argument("anvil_setMinGasPrice is not supported when EIP-1559 is active")
        raise errors.invalid_argument("anvil_setMinGasPrice is not supported: the minimum gas price is feemarket's "
                                      "min_gas_price param, which a gov proposal changes (MsgUpdateParams)")

    # -- whole states ----------------------------------------------------------------------------

    def dump_state(self, params):
        p.at_most(params, 1)
        height = self.app.height
        d = threads.deferToThreadPool(self.reactor, self.call_pool, devstate.dump_state, self.app, height,
                                      self._progress("anvil_dumpState"))
        return d.addCallback(enc.d)

    @defer.inlineCallbacks
    def load_state(self, params):
        p.at_most(params, 1)
        blob = p.data(p.arg(params, 0), 0)
        progress = self._progress("anvil_loadState")
        try:
            parsed = yield threads.deferToThreadPool(self.reactor, self.call_pool, devstate.parse_state, blob,
                                                     self.settings.max_state_bytes, progress)
        except ValueError as e:
            raise errors.invalid_argument(f"Failed to decode state dump: {e}") from None
        try:
            yield self.producer.exclusive(devstate.load_state, self.app, parsed, progress)
        except ValueError as e:
            raise errors.invalid_argument(f"Failed to load state dump: {e}") from None
        return True

    def _progress(self, what):
        """progress(done, total) for a worker thread: a log line now and then, and one when the work ends."""
        return Progress(what, _LogLines(self.reactor), tty=False, unit="entries", start=0).update

    @defer.inlineCallbacks
    def reset(self, params):
        p.at_most(params, 1)
        if p.arg(params, 0, required=False) not in (None, {}):
            raise errors.invalid_argument("anvil_reset: forking is not supported; call it without params to go back "
                                 "to genesis")
        yield self.producer.exclusive(devstate.reset, self.app)
        self.snapshots.clear()
        self.mempool.clear()
        self.producer.clock.restore(BlockClock().state())
        self.instance_id = os.urandom(32)
        self.filters.rewound(self.app.height)
        # The first block, made as at a new chain's start.
        yield self.producer.mine(1)

    # -- identity --------------------------------------------------------------------------------

    def _impersonate(self, params, on):
        p.at_most(params, 1)
        address = p.address(p.arg(params, 0), 0)
        if on:
            self.impersonation.addresses.add(address)
        else:
            self.impersonation.addresses.discard(address)

    def auto_impersonate(self, params):
        p.at_most(params, 1)
        on = p.arg(params, 0)
        if not isinstance(on, bool):
            raise errors.invalid_argument(f"invalid argument 0: expected a boolean, got {on!r}")
        self.impersonation.auto = on

    # -- about the node --------------------------------------------------------------------------

    def node_info(self, params):
        _no_params(params)
        header, meta = self.app.head
        g = self.app.genesis
        return {
            "currentBlockNumber": enc.q(header.height),
            "currentBlockTimestamp": header.time_ns // 10**9,
            "currentBlockHash": enc.d(meta.hash),
            "hardFork": "Prague",
            "transactionOrder": "fees",
            "environment": {"baseFee": enc.q(self.app.next_base_fee()), "chainId": g.evm_chain_id,
                            "gasLimit": enc.q(self.app.block_gas_limit(header.height + 1)),
                            "gasPrice": enc.q(self.app.next_base_fee())},
            "forkConfig": {"forkUrl": None, "forkBlockNumber": None, "forkRetryBackoff": None},
        }

    def metadata(self, params):
        _no_params(params)
        header, meta = self.app.head
        return {
            "clientVersion": f"chaind/v{chaind.__version__}/python",
            "clientSemver": chaind.__version__,
            "clientCommitSha": "",
            "chainId": self.app.genesis.evm_chain_id,
            "instanceId": enc.d(self.instance_id),
            "latestBlockNumber": header.height,
            "latestBlockHash": enc.d(meta.hash),
            "forkedNetwork": None,
            "snapshots": {enc.q(i): [s.height, enc.d(s.block_hash)] for i, s in sorted(self.snapshots.items())},
        }


@attrs.define
class Impersonation:
    """Accounts eth_sendTransaction sends for without a key (never eth_sendRawTransaction)."""

    addresses: set = attrs.Factory(set)
    auto: bool = False          # every account

    def covers(self, address):
        return address is not None and (self.auto or address in self.addresses)


@attrs.frozen
class _Snapshot:
    mark: int               # the app's undo mark (store/undo.py)
    height: int
    block_hash: bytes
    clock: tuple            # BlockClock.state()
    pending: tuple          # the mempool's txs


class _LogLines:
    """The node's log as Progress' output: each line logged on the reactor thread."""

    def __init__(self, reactor):
        self.reactor = reactor

    def write(self, text):
        for line in text.splitlines():
            self.reactor.callFromThread(log.info, "{line}", line=line)

    def flush(self):
        pass


def _stopped(failure):
    """A mine that met a block the chain could not make: the chain stopped (chain/halt.py); say why."""
    failure.trap(ChainHalt)
    raise errors.internal(f"the chain stopped: {failure.value}")


def _no_params(params):
    p.at_most(params, 0)


def _number(value, index):
    """A quantity as Anvil takes it: a JSON number or a 0x hex string, not negative."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise errors.invalid_argument(f"invalid argument {index}: negative number {value}")
        return value
    if isinstance(value, str) and p.is_hex(value) and 2 < len(value) <= 66:
        return int(value, 16)
    raise errors.invalid_argument(f"invalid argument {index}: expected a number or a 0x hex string, got {value!r}")


def disabled_methods(table, reason=None):
    """The same names answering that the namespace is off, and which setting turns it on (or `reason`,
    why this node cannot serve it)."""
    reason = reason or f"the dev namespace is off; add dev to {NAMESPACE_SETTING} to enable it (a dev home does)"

    def refuse(name):
        def method(params):
            raise errors.unimplemented(f"the method {name} is not available: {reason}")
        return method

    return {name: refuse(name) for name in table}
