"""The application: genesis, check_tx, finalize_block and commit over LevelDB.

Only the writer thread calls init_chain, finalize_block and commit; anyone may call
check_tx and view, which read committed heights only. The ante (ante.py), the block store
(blockstore.py), the validator sets and consensus params by height (consensus_state.py) and the
sealing of a block's state (seal.py) are rooms of their own; App runs the block loop over them.
"""

import collections
import hashlib
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import attrs
from eth.constants import BLANK_ROOT_HASH
from eth.vm.execution_context import ExecutionContext
from twisted.logger import Logger

from chaind.chain import amino, errors, merkle, msgs, registry, txs, valset, votes
from chaind.chain import block as blocks
from chaind.chain import evidence as evidence_mod
from chaind.chain.ante import Ante
from chaind.chain.block import BlockId, BlockMeta, CommittedBlock, Event, Header, TxResult, event
from chaind.chain.blockstore import BlockStore, block_puts
from chaind.chain.commit_info import Misbehavior, VoteInfo
from chaind.chain.consensus_state import ConsensusState
from chaind.chain.genesis import Genesis
from chaind.chain.module import Module, check_hooks, mounted_stores, precompiles_of, stores_of
from chaind.chain.modules import auth, consensus, erc20, evm, feegrant, feemarket, staking
from chaind.chain.options import AppOptions
from chaind.chain.seal import Sealer
from chaind.chain.view import PrunedError, StateView
from chaind.store import account_records, keys
from chaind.store.db import Database
from chaind.store.evm_state import PendingNodes, pending_state_db
from chaind.store.head_cache import HeadCache
from chaind.store.layout import Layout
from chaind.store.multistore import CommitInfo, MultiStore
from chaind.store.pruning import PruneStats, collect_garbage
from chaind.store.undo import UndoLog
from chaind.store.versioned import VersionedWriter

__all__ = ("App", "AppOptions", "BlockContext", "DecidedBlock", "NoValidatorsError", "PrunedError", "StaleHomeError")

log = Logger()

Tx = txs.EvmTx | txs.NativeTx
TxHook = Callable[["BlockContext", int, Tx | None], None]     # replay_block's before_tx(ctx, index, tx), after_tx
ConsensusParams = Any     # tendermint.types.ConsensusParams (generated protobuf, untyped)
CommitSig = Any           # tendermint.types.CommitSig (generated protobuf, untyped)


class StaleHomeError(RuntimeError):
    """The data directory was written by a chaind whose app hash is not the multistore's."""


class NoValidatorsError(RuntimeError):
    """A genesis whose InitGenesis bonds no validator: no block can ever be made on it."""


# The state layout of the data directory: 2 is the multistore (IAVL stores under the SDK's commit info); 3 keeps
# the evm and consensus params in state; 4 adds the SDK's layout of staking's records, of auth's and bank's
# indexes and of slashing's missed-block bitmap to the stores; 5 keeps distribution's running records of the
# validators in 16 buckets; 6 sets an account in the acc store only when its record or sequence changed (each
# changes the app hashes).
STATE_FORMAT = b"6"
_STALE_FORMATS = {
    None: "whose app hash is not the multistore's (IAVL stores)",
    b"2": "whose stores lack the evm and consensus params and hold staking's records, auth's and bank's indexes "
          "and slashing's missed blocks in another layout than the SDK's, so its app hashes differ from this "
          "version's",
    b"3": "whose IAVL stores hold staking's records, auth's and bank's indexes and slashing's missed blocks in "
          "another layout than the SDK's, so its app hashes differ from this version's",
    b"4": "whose distribution store keeps each validator's running rewards under a key of its own, so its app "
          "hashes differ from this version's",
    b"5": "which set every account a block touched in the acc store again, changed or not, so its app hashes "
          "differ from this version's"}
HEAD_VIEW_READS = 1000      # reads one thread's view of the head serves before a new one is made
RECENT_TXS = 4096           # decoded txs of the last blocks kept for decode_tx (receipts of the head's txs)


@attrs.define
class BlockContext:
    """The block being built: its writable state and running totals."""

    height: int
    time_ns: int
    block_hash: bytes
    base_fee: int
    store: VersionedWriter
    accounts: evm.NativeState     # py-evm's state of the block, with the native stores behind its precompiles
    pending_nodes: PendingNodes
    gas_limit: int = 0        # the block's consensus params' gas limit (its EVM gasLimit)
    gas_used: int = 0         # the EVM txs' (the Ethereum block's gasUsed)
    gas_wanted: int = 0       # every tx's gas limit, and every tx's gas used: feemarket's block gas
    tx_gas_used: int = 0
    block_gas: int = 0        # set by feemarket's end block
    log_count: int = 0
    bloom: int = 0
    evm_tx_count: int = 0     # EVM txs executed so far: the next one's index among them (Evmos' txIndex)
    execute: Callable[..., Any] | None = None   # replaces the plain EVM run of a tx: execute(state, tx, book_fee)
    events: list[Event] = attrs.Factory(list)      # the block's own events (FinalizeBlock's, end blockers')
    validator_updates: list[tuple[bytes, int]] = attrs.Factory(list)  # (ed25519 pubkey, power) from end blockers
    last_commit: tuple[VoteInfo, ...] = ()          # of the parent's commit (slashing's liveness)
    misbehavior: tuple[Misbehavior, ...] = ()       # to punish (x/evidence)
    msg_gas: int = 0          # gas the running message used beyond its flat MSG_GAS (use_gas)
    msg_gas_location: str = ""
    # staking Summaries read from the parent's state this block (StakingKeeper.summary_by_cons): distribution's and
    # slashing's begin blockers both read every validator of the last commit.
    summaries: dict[bytes, Any] = attrs.Factory(dict)
    nonces: dict[bytes, int] = attrs.Factory(dict)  # set when sealed: {address: nonce} of the accounts it touched

    def use_gas(self, amount: int, location: str) -> None:
        """What the SDK's gas meter would count for the running message where the flat fee does not (an authz
        Accept's walk over its list): added to the tx's gas after the message."""
        self.msg_gas += amount
        self.msg_gas_location = location


@attrs.frozen
class _Finalized:
    """What finalize_block leaves for the commit of its block."""

    height: int
    changes: dict       # the native store's changes (the head cache takes them)
    evm_indexes: dict   # EVM hash -> index of the block's EVM txs that ran
    nonces: dict        # address -> nonce, of the accounts the block touched
    accounts: tuple     # (EVM state root, {address: RLP}) of the accounts the block wrote


@attrs.frozen
class DecidedBlock:
    """What CometBFT's FinalizeBlock says of the block it decided, beyond its txs, time and proposer."""

    height: int
    hash: bytes
    next_validators_hash: bytes
    misbehavior: tuple = ()   # commit_info.Misbehavior
    last_commit: tuple = ()   # commit_info.VoteInfo of decided_last_commit


@attrs.frozen
class _NextBlock:
    """What the block after `head` runs with, as far as the head decides it."""

    head: tuple               # the app's (Header, BlockMeta) it was worked out from
    gas_limit: int
    params: object            # feemarket Params
    base_fee: int


class App:
    """options: the App's settings (chain/options.py), given once; a setting changes by building the App again.
    modules: the Modules the chain runs (chain/registry.py's by default), in the SDK's init-genesis and
    end-block order; their messages, genesis, block hooks and module accounts are the app's."""

    def __init__(self, db: Database, genesis: Genesis, options: AppOptions = AppOptions(),
                 modules: Iterable[Module] = registry.MODULES) -> None:
        self.db = db
        self.genesis = genesis
        self._options = options
        self.modules = tuple(modules)
        self.end_blockers = registry.end_block_order(self.modules)
        self.handlers = {handler.type_url: handler for module in self.modules for handler in module.messages}
        self.amino = amino.Encoder.of_modules(self.modules)
        self.module_accounts = {name: account for module in self.modules
                                for name, account in module.module_accounts.items()}
        check_hooks(self.modules)
        # The modules' EVM precompiles ({address: run}), which the EVM state serves (chain/modules/evm/state.py).
        self.precompiles = precompiles_of(self.modules)
        raw = db.get(keys.PRUNED_BELOW)
        self._pruned_below = 0 if raw is None else keys.height_of(raw)
        # Each module's keeper, built once, in the registry's order: a keeper may take those built before it.
        self.keepers: dict[str, Any] = {}
        for m in self.modules:
            if m.keeper is not None:
                self.keepers[m.name] = m.keeper(self)
        self.ante = Ante(genesis, self.amino, self.keepers["bank"], self.keepers["auth"],
                         self.keepers.get(feegrant.NAME), self.keepers["feemarket"], self.keepers["evm"])
        self.blocks = BlockStore(db, genesis.initial_height)
        self.consensus_state = ConsensusState(db, genesis, self.blocks)
        # Per thread: the checker's view of the head (view, head), and a reader's (head_view: [head it was made
        # for, its StateView, reads so far]).
        self._local = threading.local()
        self._next_block_found: _NextBlock | None = None       # of the head
        self._next_base_fee_override: int | None = None    # set_next_base_fee's
        self.undo = UndoLog(db)             # prior values of what blocks overwrite, while dev snapshots are open
        self.stores = MultiStore(db, options.iavl_cache_nodes, options.subspace_max_keys,
                                 Layout(stores_of(self.modules, genesis.bech32_prefix)), mounted_stores(self.modules))
        self.sealer = Sealer(db, genesis, self.stores, self.keepers["auth"])
        self.state_cache = HeadCache(options.state_cache_keys)
        self._finalized: _Finalized | None = None   # what commit takes over of the block finalized last
        # The head and the nonces its block left to the accounts it touched: head_nonce without a trie walk for
        # the accounts asked for most (the next check of a sender, the pool's cleanup after the block).
        self._head_nonces: tuple[tuple[Header, BlockMeta] | None, dict[bytes, int]] = (None, {})
        # Envelope bytes -> decoded tx, of the txs of the last blocks made here (the writer adds, anyone reads).
        # An OrderedDict: evicting a plain dict's first entry again and again scans its deleted slots.
        self._recent_txs: collections.OrderedDict[bytes, Tx] = collections.OrderedDict()
        if db.get(keys.RESTORING) is not None:
            # A state-sync restore was killed half way: its writes go, and the node starts from genesis again.
            self._wipe()
        raw = db.get(keys.HEAD)
        if raw is None:
            self._init_chain()
        elif db.get(keys.STATE_FORMAT) != STATE_FORMAT:
            # No migration: the app hashes the old blocks' headers carry would change with the layout.
            why = _STALE_FORMATS.get(db.get(keys.STATE_FORMAT), _STALE_FORMATS[None])
            raise StaleHomeError(
                f"the data directory {db.path} was written by an older chaind, {why}: its blocks cannot be "
                f"verified by this version. Export what you need, then start a new chain (`chaind init` in a "
                f"new home, or delete the data directory), or run the older chaind on it")
        else:
            self.blocks.load_head()
        self._head_info = self.stores.commit_info(self.height)
        self.state_cache.clear(self.height)

    @property
    def options(self) -> AppOptions:
        """The settings the App was built with (read only: a setting changes by building the App again)."""
        return self._options

    # -- reads ---------------------------------------------------------------------------------

    @property
    def head(self) -> tuple[Header, BlockMeta]:
        """(Header, BlockMeta) of the last committed height."""
        return self.blocks.head

    @property
    def height(self) -> int:
        return self.blocks.head[0].height

    def block_at(self, height: int) -> tuple[Header, BlockMeta] | None:
        """(Header, BlockMeta) at `height`, or None if there is no such block."""
        return self.blocks.block_at(height)

    def _stored(self, height: int) -> tuple[Header, BlockMeta]:
        """block_at of a height known to be committed; a LookupError should it not be."""
        found = self.block_at(height)
        if found is None:
            raise LookupError(f"block {height} not found")
        return found

    def evidence_height(self, evidence_hash: bytes) -> int | None:
        """The height of the block that carries the evidence with this hash, or None."""
        return self.blocks.evidence_height(evidence_hash)

    def height_of_hash(self, block_hash: bytes) -> int | None:
        return self.blocks.height_of_hash(block_hash)

    def tx_position(self, tx_hash: bytes, evm: bool = False) -> tuple[int, int] | None:
        """(height, index) of a committed tx, or None (BlockStore.tx_position)."""
        return self.blocks.tx_position(tx_hash, evm)

    def tx_at(self, height: int, index: int) -> bytes | None:
        return self.blocks.tx_at(height, index)

    def result_at(self, height: int, index: int) -> TxResult | None:
        return self.blocks.result_at(height, index)

    def consensus_info(self, height: int) -> tuple[tuple[VoteInfo, ...], tuple[Misbehavior, ...], tuple]:
        """(last commit, misbehavior, evidence) block `height` was executed with, as its record keeps them."""
        return self.blocks.consensus_info(height)

    def finalize_info(self, height: int) -> tuple[tuple[Event, ...], tuple[tuple[bytes, int], ...]] | None:
        """(block events, validator updates) that FinalizeBlock at `height` returned, or None."""
        return self.blocks.finalize_info(height)

    def validator_set(self, height: int) -> tuple[valset.SetValidator, ...]:
        """The validator set (valset.SetValidator, CometBFT's order) that signs block `height`;
        known up to the head's height + 2."""
        return self.consensus_state.validator_set(height)

    def validators_hash(self, height: int) -> bytes:
        return self.consensus_state.validators_hash(height)

    def consensus_params(self, height: int) -> ConsensusParams:
        """The ConsensusParams (do not mutate) block `height` runs with; known up to the head's height + 1."""
        return self.consensus_state.consensus_params(height)

    def block_gas_limit(self, height: int) -> int:
        """Block `height`'s gas limit: its consensus params' max_gas (-1: MaxUint64, as Evmos' BlockGasLimit)."""
        return self.consensus_state.block_gas_limit(height)

    def consensus_hash(self, height: int) -> bytes:
        return self.consensus_state.consensus_hash(height)

    def oldest_state_height(self) -> int:
        window = max(0, self.height - self._options.pruning + 1) if self._options.pruning else 0
        # Below what an earlier run pruned nothing comes back, whatever the setting is now.
        return max(window, self._pruned_below)

    def view(self, height: int | None = None) -> StateView:
        """A read-only StateView of committed state at `height` (default: latest)."""
        head_height = self.height
        height = head_height if height is None else height
        if height > head_height or height < 0:
            raise LookupError(f"height {height} is not committed yet (latest {head_height})")
        oldest = self.oldest_state_height()
        if height < oldest:
            kept = f"this node keeps the last {self._options.pruning} heights, " if self._options.pruning else ""
            raise PrunedError(f"state at height {height} is pruned: {kept}oldest available {oldest}")
        if height == head_height:
            # Most reads are at the head: each thread makes its view once per head (py-evm's objects inside
            # are not shared between threads), and again after HEAD_VIEW_READS reads, so that what py-evm
            # caches in it for code and storage reads stays small.
            head, cached = self.blocks.head, getattr(self._local, "head_view", None)
            if cached is not None and cached[0] is head and cached[2] < HEAD_VIEW_READS:
                cached[2] += 1
                return cached[1]
            view = StateView.committed(self.db, height, head[1].evm_state_root, self.state_cache)
            self._local.head_view = [head, view, 0]
            return view
        _, meta = self._stored(height)
        return StateView.committed(self.db, height, meta.evm_state_root)

    def context_at(self, height: int) -> BlockContext:
        """A writable context over the state committed at `height`, whose writes are never committed (what
        `export --for-zero-height` changes before the modules export); LookupError when it is not kept."""
        self.view(height)       # refuses a height not committed or pruned, in the reads' words
        header, meta = self._stored(height)
        ctx = self._context(height + 1, header.time_ns, b"", meta.base_fee, meta.evm_state_root)
        ctx.height = height
        return ctx

    def store_version(self, height: int | None = None) -> CommitInfo:
        """The multistore's CommitInfo at `height` (default: latest); PrunedError or LookupError when
        that height's state is not kept or was never committed (the genesis height has no version)."""
        view = self.view(height)
        info = self._head_info
        if info is None or info.version != view.height:
            info = self.stores.commit_info(view.height)
        if info is None:
            raise LookupError(f"no store version at height {view.height}: the stores' first version is "
                              f"the first block, {self.genesis.initial_height}")
        return info

    # -- genesis ---------------------------------------------------------------------------------

    def reset_to_genesis(self) -> None:
        """Back to the genesis state a new node starts from, deleting all else (a refused or abandoned state-sync
        restore's writes); writer thread only."""
        self._wipe()
        self._init_chain()
        self.reload_head()

    def _wipe(self, batch_keys=100_000):
        """Delete every key but the genesis document, a batch at a time (the restore marker last, so a node killed
        meanwhile wipes again)."""
        doomed = []
        for key in self.db.keys(b""):
            if key not in (keys.GENESIS, keys.RESTORING):
                doomed.append(key)
            if len(doomed) >= batch_keys:
                self.write({}, doomed)
                doomed = []
        self.write({}, doomed + [keys.RESTORING])

    def _init_chain(self):
        g = self.genesis
        height = g.initial_height - 1
        ctx = self._context(height, g.genesis_time_ns, b"", g.base_fee, evm_root=None)
        for module in self.modules:
            if module.genesis is not None:
                module.genesis.init(self, ctx, g.section_of(module, self.modules))
        # InitChain's validators: the set of the first block and of the one after it.
        first_set = valset.apply_updates((), ctx.validator_updates) if ctx.validator_updates else ()
        if not first_set:
            raise NoValidatorsError(
                "validator set is empty after InitGenesis, please ensure at least one validator is initialized "
                f"with a delegation greater than or equal to the DefaultPowerReduction ({staking.POWER_REDUCTION})"
                ": add a genesis account and a gentx (chaind genesis add-genesis-account, gentx, collect-gentxs)")
        ctx.accounts.persist()
        header = Header(chain_id=g.chain_id, height=height, time_ns=g.genesis_time_ns,
                        last_block_id=BlockId(), last_commit_hash=b"", data_hash=b"",
                        validators_hash=valset.hash_of(first_set), next_validators_hash=valset.hash_of(first_set),
                        consensus_hash=self.consensus_hash(g.initial_height), app_hash=b"", last_results_hash=b"",
                        evidence_hash=b"", proposer_address=b"")
        # The SDK commits InitChain's writes with the first block: before it, a new chain's app hash is baseapp's
        # SHA-256 of nothing (InitChain answers it; CometBFT's first header carries it), or what the options say.
        meta = BlockMeta(hash=b"", num_txs=0, gas_limit=self.block_gas_limit(height), gas_used=0, base_fee=g.base_fee,
                         bloom=bytes(256), log_count=0, size=0, app_hash=self.options.genesis_app_hash,
                         evm_state_root=ctx.accounts.state_root)
        committed = CommittedBlock(header, meta, (), ())
        puts = {**ctx.store.batch_puts(), **ctx.pending_nodes.batch_puts(), keys.STATE_FORMAT: STATE_FORMAT}
        if first_set:
            puts[valset.key(g.initial_height)] = valset.to_record(first_set)
        puts[consensus.key(g.initial_height)] = self.consensus_state.genesis_params
        self.db.write(block_puts(committed, puts))
        self.blocks.set_head((header, meta))
        # A reset chain starts over: nothing read from the one before may be kept.
        self.state_cache.clear(height)
        self.consensus_state.forget_valsets()

    # -- check_tx --------------------------------------------------------------------------------

    def decode_tx(self, raw: bytes) -> Tx:
        """An EvmTx or NativeTx from envelope bytes (signatures checked, messages by this app's handlers)."""
        # A receipt or tx lookup of a recent block reads the tx its block ran, without recovering its signer again.
        found = self._recent_txs.get(raw)
        return txs.decode(raw, self.genesis.evm_chain_id, self.handlers) if found is None else found

    def _remember_txs(self, decoded):
        """Keep the decoded txs a block runs for decode_tx (decoding is a pure function of the bytes)."""
        recent = self._recent_txs
        for tx in decoded:
            if len(recent) >= RECENT_TXS:
                recent.popitem(last=False)
            recent[tx.raw] = tx

    def check_tx(self, raw: bytes) -> Tx:
        """Decode and check a tx against the latest committed state; returns the decoded tx.

        The mempool adds what depends on other pending txs (nonce gaps, replacement).
        """
        return self.check_decoded(self.decode_tx(raw))

    def check_eth_tx(self, raw_evm: bytes) -> Tx:
        """check_tx for a signed Ethereum tx: wrapped in its envelope (as eth_sendRawTransaction does)."""
        g = self.genesis
        tx = txs.wrap_evm(raw_evm, g.evm_chain_id, g.base_denom)
        # The node's [json-rpc] allow-unprotected-txs (Evmos' RPC backend check), before the chain's own param.
        if tx.evm.chain_id is None and not self._options.allow_unprotected:
            raise errors.unauthorized("only replay-protected (EIP-155) transactions allowed over RPC")
        return self.check_decoded(tx)

    def check_decoded(self, tx: Tx, impersonated: bool = False) -> Tx:
        """check_tx for a tx already decoded (signatures checked) by txs.decode or txs.wrap_evm.
        `impersonated`: the dev namespace sends it for an account it impersonates (txs.wrap_impersonated);
        no other road takes an unsigned tx."""
        if getattr(tx, "impersonated", False) and not (impersonated and self._options.allow_impersonated):
            raise errors.unauthorized("an impersonated tx is accepted only from a dev node's eth_sendTransaction")
        self.ante.check_gas_wanted(tx, self._next_block().gas_limit)
        state = self._head_view()
        if tx.kind == "evm":
            following = self._next_block()
            self.ante.check_evm(state, tx, self.next_base_fee(), following.params.min_gas_price,
                                self.blocks.head[0].time_ns // 10**9)
        else:
            self._check_native(state, tx)
        return tx

    def head_nonce(self, address: bytes) -> int:
        """The account's nonce at the head, through this thread's view of the head (cached until it moves)."""
        head, nonces = self._head_nonces
        if head is self.blocks.head and address in nonces:
            return nonces[address]
        return self._head_view().accounts.get_nonce(address)

    def _head_view(self):
        """view() of the head, reused until the head moves: committed state never changes, and the
        accounts it caches spare the next check of the same senders their trie reads."""
        # Keyed by the head itself: a dev revert or state change replaces the head at the same height.
        head = self.blocks.head
        if getattr(self._local, "head", None) is not head:
            self._local.view, self._local.head = self.view(), head
        return self._local.view

    def _check_native(self, state, tx, base_fee=None, simulate=False, height=None):
        """The ante of a native tx (Ante.check_native), then each message's stateless checks. height is the block
        the tx is for (check_tx: the next one, at the head's time and the next base fee); a block's state (a
        BlockContext) is given its base fee. Returns the fee's source, None in a simulation."""
        if base_fee is None:
            base_fee, time_ns = self.next_base_fee(), self.blocks.head[0].time_ns
        else:
            time_ns = state.time_ns
        fee_source = self.ante.check_native(state, tx, self.height + 1 if height is None else height, base_fee,
                                            time_ns, simulate)
        for handler, msg in tx.messages:
            handler.validate(self, msg)
        return fee_source

    def ensure_account(self, state: BlockContext, address: bytes) -> int:
        """auth's account number for `address`, the account created (next number) on first sight; for message
        handlers."""
        return self.keepers["auth"].ensure_account(state, address)

    # -- finalize_block and commit -------------------------------------------------------------

    def set_next_base_fee(self, base_fee: int) -> None:
        """A dev node's base fee for the next block only (anvil_setNextBlockBaseFeePerGas); writer thread only."""
        self._next_base_fee_override = base_fee

    def next_base_fee(self) -> int:
        if self._next_base_fee_override is not None:
            return self._next_base_fee_override
        return self._next_block().base_fee

    def _next_block(self):
        """The gas limit, feemarket params and base fee (before a dev override) of the block after the head, worked
        out once per head: every check_tx asks for them, twice."""
        found = self._next_block_found
        # Keyed by the head itself, as _head_view: a dev change of the head's state replaces it.
        if found is not None and found.head is self.blocks.head:
            return found
        view = self._head_view()
        head = self._local.head
        header, meta = head
        # A base fee MsgUpdateParams set in the head block is where the next one starts (Evmos' BeginBlock).
        set_by_params = self.keepers["feemarket"].base_fee_set_at(view, header.height)
        parent = meta.base_fee if set_by_params is None else set_by_params
        params = self.keepers["feemarket"].params(view)
        gas_limit = self.block_gas_limit(header.height + 1)
        found = self._next_block_found = _NextBlock(head, gas_limit, params, feemarket.next_base_fee(
            params, parent, meta.block_gas, gas_limit))
        return found

    def finalize_block(self, block_txs: Sequence[bytes | Tx], time_ns: int, proposer_address: bytes,
                       decided: DecidedBlock | None = None, evidence: Sequence[Any] = ()
                       ) -> tuple[CommittedBlock, dict[bytes, bytes]]:
        """Execute a block on top of the head; returns (CommittedBlock, write batch) uncommitted.

        Each of `block_txs` is envelope bytes or a tx check_tx returned, which is not decoded again
        (decoding is a pure function of the bytes; execution still checks nonce, balance and gas).
        Without `decided` this node makes the header (the solo producer), its last commit (this node's
        validator signs, no other does) and carries `evidence` (verified DuplicateVoteEvidence, handed
        to the app as misbehavior); with a DecidedBlock (what CometBFT's FinalizeBlock names) the block
        is the one consensus decided: its height, time, proposer, hash, last commit and misbehavior are
        CometBFT's.
        """
        g = self.genesis
        raw_txs = [tx if isinstance(tx, bytes) else tx.raw for tx in block_txs]
        self._remember_txs(tx for tx in block_txs if not isinstance(tx, bytes))
        prev_header, prev_meta = self.blocks.head
        if decided is None:
            header = self.next_header(prev_header, prev_meta, raw_txs, time_ns, proposer_address,
                                      self.blocks.last_results_hash(prev_header.height, prev_meta.hash),
                                      evidence_hash=evidence_mod.list_hash(evidence))
            block_hash = header.hash()
            last_commit = self.solo_last_commit(header.height)
            misbehavior = tuple(evidence_mod.misbehavior(e) for e in evidence)
        else:
            last_commit, misbehavior, evidence = decided.last_commit, decided.misbehavior, ()
            height = prev_header.height + 1
            if decided.height != height:
                raise LookupError(f"FinalizeBlock of height {decided.height}, but the next height is {height}")
            # The commit's signatures and the parts header are CometBFT's alone (FinalizeBlock does not
            # carry them): they stay empty here, and CometBFT's own RPC serves them.
            header = Header(
                chain_id=g.chain_id, height=height, time_ns=time_ns, last_block_id=BlockId(prev_meta.hash),
                last_commit_hash=b"", data_hash=blocks.data_hash(raw_txs), validators_hash=self.validators_hash(height),
                next_validators_hash=decided.next_validators_hash, consensus_hash=self.consensus_hash(height),
                app_hash=prev_meta.app_hash,
                last_results_hash=self.blocks.last_results_hash(prev_header.height, prev_meta.hash),
                evidence_hash=b"" if decided.misbehavior else blocks.EMPTY_HASH, proposer_address=proposer_address)
            block_hash = decided.hash
        height, time_ns = header.height, header.time_ns
        base_fee = self.next_base_fee()
        self._next_base_fee_override = None
        ctx = self._context(height, time_ns, block_hash, base_fee, evm_root=prev_meta.evm_state_root)
        ctx.last_commit, ctx.misbehavior = tuple(last_commit), tuple(misbehavior)
        self._begin_block(ctx)
        results, evm_hashes = [], {}
        for index, item in enumerate(block_txs):
            result, tx = self._deliver(ctx, item, index)
            ctx.gas_wanted += result.gas_wanted
            ctx.tx_gas_used += result.gas_used
            results.append(result)
            if result.receipt is not None:
                evm_hashes[index] = tx.evm_hash
        for module in self.end_blockers:
            module.end_block(self, ctx)
        store_puts: dict[bytes, bytes] = {}
        sealed = self._seal_state(ctx, store_puts)
        meta = BlockMeta(hash=block_hash, num_txs=len(raw_txs), gas_limit=ctx.gas_limit, gas_used=ctx.gas_used,
                         base_fee=base_fee, bloom=ctx.bloom.to_bytes(256, "big"), log_count=ctx.log_count,
                         size=sum(len(t) for t in raw_txs), block_gas=ctx.block_gas, **sealed)
        # A MsgUpdateParams of x/consensus: CometBFT runs the next block with the new params (FinalizeBlock's
        # consensus_param_updates), and so does this node.
        params_before = self.consensus_params(height).SerializeToString()
        params_after = self.keepers["consensus"].stored(ctx) or params_before
        committed = CommittedBlock(header, meta, tuple(raw_txs), tuple(results), events=tuple(ctx.events),
                                   validator_updates=tuple(ctx.validator_updates), last_commit=ctx.last_commit,
                                   misbehavior=ctx.misbehavior, evidence=tuple(evidence),
                                   consensus_params=params_after)
        self.blocks.remember_results(block_hash, results)
        self._finalized = _Finalized(height, ctx.store.changes, {h: i for i, h in evm_hashes.items()}, ctx.nonces,
                                     ctx.accounts.written_accounts)
        puts = {**ctx.store.batch_puts(), **ctx.pending_nodes.batch_puts(), **store_puts}
        if ctx.validator_updates:
            # CometBFT applies them to the set after next: this block's updates sign block height + 2.
            changed = valset.apply_updates(self.validator_set(height + 1), ctx.validator_updates)
            puts[valset.key(height + 2)] = valset.to_record(changed)
        if params_after != params_before:
            puts[consensus.key(height + 1)] = params_after
        return committed, block_puts(committed, puts, evm_hashes)

    def next_header(self, prev_header: Header, prev_meta: BlockMeta, raw_txs: Sequence[bytes], time_ns: int,
                    proposer_address: bytes, last_results_hash: bytes, sets: tuple | None = None,
                    evidence_hash: bytes = blocks.EMPTY_HASH, min_step_ns: int = 1_000_000,
                    consensus_hash: bytes | None = None) -> Header:
        """The header of the block after `prev_header`; its time at least `min_step_ns` (1 ms) after the
        parent's. `sets`: (signers of the parent, hash of the validators, of the next validators), and
        `consensus_hash` (of the params the block runs with), when the caller knows them."""
        g = self.genesis
        height = prev_header.height + 1
        time_ns = max(time_ns, prev_header.time_ns + min_step_ns)
        last_block_id = BlockId(prev_meta.hash, 1 if prev_meta.hash else 0,
                                hashlib.sha256(prev_meta.hash).digest() if prev_meta.hash else b"")
        signers, current, following = sets or (None, self.validators_hash(height), self.validators_hash(height + 1))
        return Header(
            chain_id=g.chain_id, height=height, time_ns=time_ns, last_block_id=last_block_id,
            last_commit_hash=self._commit_hash(height - 1, last_block_id, time_ns, signers)
            if height > g.initial_height else b"",
            data_hash=blocks.data_hash(raw_txs), validators_hash=current,
            next_validators_hash=following,
            consensus_hash=self.consensus_hash(height) if consensus_hash is None else consensus_hash,
            app_hash=prev_meta.app_hash, last_results_hash=last_results_hash,
            evidence_hash=evidence_hash, proposer_address=proposer_address)

    def solo_last_commit(self, height: int) -> tuple[VoteInfo, ...]:
        """The VoteInfos of block `height`'s last commit as this node makes it: its validator signed, every
        other validator of the parent's set is absent (precommit_sigs)."""
        if height <= self.genesis.initial_height:
            return ()
        return tuple(VoteInfo(v.address, v.power, votes.BLOCK_ID_FLAG_COMMIT
                              if self._options.vote_key is not None and v.address == self._options.validator_address
                              else votes.BLOCK_ID_FLAG_ABSENT)
                     for v in self.validator_set(height - 1))

    def replay_block(self, height: int, before_tx: TxHook, after_tx: TxHook | None = None,
                     stop_after: int | None = None) -> list[TxResult]:
        """Re-execute committed block `height` on its parent's state; nothing is written.

        before_tx(ctx, index, tx) runs before each tx (tx is None when it does not decode) and may
        set ctx.execute to run that tx's EVM part itself (a tracer); after_tx(ctx, index, tx) after.
        Returns the TxResults (equal to the stored ones: execution is deterministic). Raises
        PrunedError or LookupError when the parent's state is not kept.
        """
        parent = self.view(height - 1)
        found = self.block_at(height)
        if found is None:
            raise LookupError(f"block {height} not found")
        header, meta = found
        _, parent_meta = self._stored(parent.height)
        ctx = self._context(height, header.time_ns, meta.hash, meta.base_fee, evm_root=parent_meta.evm_state_root)
        ctx.last_commit, ctx.misbehavior, _ = self.consensus_info(height)
        self._begin_block(ctx)
        results = []
        for index in range(meta.num_txs):
            raw = self.tx_at(height, index)
            if raw is None:
                raise LookupError(f"tx {index} of block {height} not found")
            try:
                tx = self.decode_tx(raw)
            except errors.TxError:
                tx = None
            before_tx(ctx, index, tx)
            results.append(self._deliver(ctx, raw if tx is None else tx, index)[0])
            ctx.execute = None
            if after_tx is not None:
                after_tx(ctx, index, tx)
            if index == stop_after:
                break
        return results

    def simulate(self, raw: bytes) -> TxResult:
        """Run a tx on top of the head as the next block would, writing nothing; returns its TxResult.

        As in the SDK's simulate mode, the signature and fee are not checked and gas is unlimited
        (clients simulate to learn the gas to ask for). A tx that fails to decode raises TxError.
        """
        tx = self.decode_tx(raw)
        if tx.kind == "native":
            tx = self.ante.simulated_signers(tx)
        header, meta = self.blocks.head
        ctx = self._context(header.height + 1, header.time_ns + 1_000_000, b"", self.next_base_fee(),
                            evm_root=meta.evm_state_root)
        return self._deliver(ctx, tx, 0, simulate=True)[0]

    def commit(self, committed: CommittedBlock, puts: dict[bytes, bytes]) -> None:
        """Write the block in one atomic batch; from now on readers see it."""
        self.write(puts)
        head = (committed.header, committed.meta)
        finalized, self._finalized = self._finalized, None
        if finalized is not None and finalized.height == committed.height:
            self.blocks.set_head(head, committed, finalized.evm_indexes)
            self._head_nonces = (head, finalized.nonces)
            self.state_cache.advance(committed.height, finalized.changes)
            if finalized.accounts is not None and finalized.accounts[0] == committed.meta.evm_state_root:
                account_records.remember(*finalized.accounts)
        else:
            self.blocks.set_head(head)
            self._head_nonces = (None, {})
            self.state_cache.clear(committed.height)
        self.consensus_state.committed(committed.height, puts)
        # The commit info the block's app hash was made of, as it was written (not read back).
        app_hash, info = self.sealer.sealed_info
        if app_hash != committed.meta.app_hash or info.version != committed.height:
            info = self.stores.commit_info(committed.height)
        self._head_info = info
        if self._options.pruning and committed.height % self._options.prune_interval == 0:
            try:
                self.prune()
            except Exception:  # noqa: BLE001 (the block is durable either way: a pruning fault must not stop it)
                # The block is durable either way: announce it, keep the state, say why.
                log.failure("state pruning skipped")

    def write(self, puts: dict[bytes, bytes], deletes: Iterable[bytes] = ()) -> None:
        """One atomic, durable batch (what dev snapshots may have to undo is noted first)."""
        self.undo.record(puts, deletes)
        self.db.write(puts, deletes)

    def reload_head(self) -> None:
        """Take the head from the store again, after a dev revert or load rewrote it under us."""
        self.blocks.load_head()
        self.consensus_state.forget()
        self.state_cache.clear(self.height)
        self._head_info = self.stores.commit_info(self.height)
        self.blocks.forget_results()
        # A state-sync restore starts the state at its height: nothing below it can be read.
        raw = self.db.get(keys.PRUNED_BELOW)
        self._pruned_below = 0 if raw is None else keys.height_of(raw)

    def prune(self) -> PruneStats | None:
        """Delete state below the horizon, one pass; writer thread only. Returns PruneStats or None.

        The horizon trails the oldest readable height by prune_interval blocks, so a read that
        began at a height just before it became unreadable still finds its nodes.
        """
        return self.prune_below(self.oldest_state_height() - self._options.prune_interval)

    def prune_below(self, horizon: int) -> PruneStats | None:
        """Delete the state of every height below `horizon` (at most the head's), one pass; PruneStats, or None
        when nothing is left to delete (`chaind prune` calls it on a stopped node's App)."""
        horizon = min(horizon, self.height)
        if horizon <= max(self._pruned_below, self.genesis.initial_height - 1):
            return None
        roots = {self._stored(h)[1].evm_state_root for h in range(horizon, self.height + 1)}
        stats = collect_garbage(self.db, horizon, roots, self.stores.prune(horizon))
        self._pruned_below = horizon
        return stats

    def deliver_gen_tx(self, ctx: BlockContext, raw: bytes) -> TxResult:
        """Deliver a gen tx (genutil's DeliverGenTxs) in the genesis context; its TxResult."""
        result, _ = self._deliver(ctx, raw, 0)
        return result

    def _begin_block(self, ctx):
        for module in self.modules:
            if module.pre_block is not None:
                module.pre_block(self, ctx)
        for module in self.modules:
            if module.begin_block is not None:
                module.begin_block(self, ctx)

    def _deliver(self, ctx, tx, index, simulate=False):
        if isinstance(tx, bytes):
            try:
                tx = self.decode_tx(tx)
            except errors.TxError as e:
                return TxResult(code=e.code, codespace=e.codespace, log=e.log), None
        try:
            if tx.kind == "evm":
                self.ante.check_protected(ctx, tx.evm)
                if tx.evm.gas > ctx.gas_limit - ctx.gas_used:
                    raise errors.TxError(errors.SDK, 18, "tx gas exceeds the block's remaining gas: invalid request")
                if tx.impersonated and not self._options.allow_impersonated:
                    raise errors.unauthorized("impersonated txs run only on a dev chain")
                auth_keeper = self.keepers["auth"]
                auth_keeper.ensure_account(ctx, tx.sender)
                result = evm.deliver(ctx, tx, self.keepers["bank"])
                if tx.evm.to:
                    auth_keeper.ensure_account(ctx, tx.evm.to)
                elif result.receipt.contract_address:
                    auth_keeper.ensure_account(ctx, result.receipt.contract_address)
                return result, tx
            return self._deliver_native(ctx, tx, simulate), tx
        except errors.TxError as e:
            return TxResult(code=e.code, codespace=e.codespace, log=e.log, gas_wanted=tx.gas), tx

    def _deliver_native(self, ctx, tx, simulate=False):
        """The ante checks, then the messages; a failed message undoes the messages, not the fee."""
        # The block's own base fee: a replay of an old block must not use today's.
        fee_source = self._check_native(ctx, tx, ctx.base_fee, simulate, height=ctx.height)
        gas, limit, events = self.ante.deliver(ctx, tx, fee_source, simulate)
        store_snapshot = dict(ctx.store.changes)
        evm_snapshot = ctx.accounts.snapshot()
        msg_events, responses = [], []
        for msg_index, (handler, msg) in enumerate(tx.messages):
            try:
                gas += handler.gas
                if gas > limit:
                    raise errors.out_of_gas(f"WriteFlat; gasWanted: {tx.gas}, gasUsed: {gas}")
                signer = self.ante.signer_address(handler.signer(msg))
                msg_events.append(event("message", ("action", handler.type_url), ("sender", self.ante.b32(signer)),
                                        ("module", handler.module)))
                ctx.msg_gas = 0
                emitted, response = handler.execute(self, ctx, msg, signer)
                gas += ctx.msg_gas
                if gas > limit:
                    raise errors.out_of_gas(f"{ctx.msg_gas_location}; gasWanted: {tx.gas}, gasUsed: {gas}")
            except errors.TxError as e:
                ctx.store.changes = store_snapshot
                ctx.accounts.revert(evm_snapshot)
                return TxResult(code=e.code, codespace=e.codespace,
                                log=f"failed to execute message; message index: {msg_index}: {e.log}",
                                gas_wanted=tx.gas, gas_used=gas, events=tuple(events))
            msg_events += emitted
            responses.append((handler.response_url, response))
        ctx.accounts.commit(evm_snapshot)
        return TxResult(code=0, gas_wanted=tx.gas, gas_used=gas, events=tuple(events + msg_events),
                        data=msgs.tx_msg_data(responses))

    def _context(self, height, time_ns, block_hash, base_fee, evm_root):
        pending, atomic = pending_state_db(self.db)
        store = VersionedWriter(self.db, height, self.state_cache)
        gas_limit = self.block_gas_limit(height)
        exec_ctx = ExecutionContext(
            coinbase=store.get(keys.DEV_COINBASE) or auth.FEE_COLLECTOR, timestamp=time_ns // 10**9,
            # py-evm types mix_hash as eth_typing's Hash32, a NewType of bytes.
            block_number=height, difficulty=0, mix_hash=bytes(32), gas_limit=gas_limit,  # type: ignore[arg-type]
            prev_hashes=self._prev_hashes(height), chain_id=self.genesis.evm_chain_id, base_fee_per_gas=base_fee,
            excess_blob_gas=0)
        state = erc20.open_state(self, store, evm.NativeState, atomic, exec_ctx,
                                            evm_root or BLANK_ROOT_HASH, time_ns=time_ns)
        return BlockContext(height=height, time_ns=time_ns, block_hash=block_hash, base_fee=base_fee,
                            gas_limit=gas_limit, store=store, accounts=state, pending_nodes=pending)

    def _prev_hashes(self, height):
        """Hashes of the up to 256 blocks before `height`, newest first (BLOCKHASH)."""
        def generate():
            for h in range(height - 1, max(height - 257, self.genesis.initial_height - 1), -1):
                found = self.block_at(h)
                if found is None or not found[1].hash:
                    return
                yield found[1].hash
        return generate()

    def _seal_state(self, ctx, puts, amend=None):
        """Sealer.seal over the head's commit info: the block's state roots and app hash."""
        return self.sealer.seal(ctx, puts, self._head_info, amend)

    def commit_sigs(self, header: Header) -> list[CommitSig]:
        """The signatures of the parent's commit that `header`'s block carries (its last_commit)."""
        if header.height <= self.genesis.initial_height:
            return []
        return self.precommit_sigs(header.height - 1, header.last_block_id, header.time_ns)

    def precommit_sigs(self, height: int, block_id: BlockId, time_ns: int,
                       validators: Sequence[valset.SetValidator] | None = None) -> list[CommitSig]:
        """The commit of block `height` as CommitSigs, one per validator of its set, in the set's order:
        our validator's precommit at vote time `time_ns`, and absent for those whose key we lack."""
        return [votes.absent_sig() if signature is None else votes.commit_sig(address, time_ns, signature)
                for address, signature in self._precommits(height, block_id, time_ns, validators)]

    def _commit_hash(self, height, block_id, time_ns, validators=None):
        """votes.commit_hash(self.precommit_sigs(...)), each CommitSig encoded by hand (a header hashes the commit
        of its parent: anvil_mine makes thousands a call)."""
        return merkle.root([votes.ABSENT_SIG_BYTES if signature is None else
                            votes.commit_sig_bytes(address, time_ns, signature)
                            for address, signature in self._precommits(height, block_id, time_ns, validators)])

    def _precommits(self, height, block_id, time_ns, validators):
        """(address, signature or None when absent) of each validator of block `height`'s set (or `validators`)."""
        key, ours = self._options.vote_key, self._options.validator_address
        for v in self.validator_set(height) if validators is None else validators:
            if key is not None and v.address == ours:
                yield v.address, key.sign(votes.sign_bytes(self.genesis.chain_id, height, 0, block_id, time_ns))
            else:
                yield v.address, None
