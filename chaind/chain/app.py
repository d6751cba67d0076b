"""The application: genesis, check_tx, finalize_block and commit over LevelDB.

Only the writer thread calls init_chain, finalize_block and commit; anyone may call
check_tx and view, which read committed heights only.
"""

import base64
import collections
import functools
import hashlib
import threading

import attrs
from eth.constants import BLANK_ROOT_HASH
from eth.vm.execution_context import ExecutionContext
from eth_utils import to_checksum_address
from twisted.logger import Logger

from chaind.chain import amino, eip712, eip712_legacy, errors, msgs, registry, txs, valset, votes, web3tx
from chaind.chain import block as blocks
from chaind.chain import evidence as evidence_mod
from chaind.chain.block import BlockId, BlockMeta, CommittedBlock, Header, TxResult, event
from chaind.chain.commit_info import VoteInfo
from chaind.chain.module import check_hooks, mounted_stores, precompiles_of, stores_of
from chaind.chain.modules import auth, consensus, erc20, evm, feegrant, feemarket, staking
from chaind.chain.modules.auth import store_layout as auth_layout
from chaind.chain.modules.auth.params import SIG_VERIFY_COST_ETH_SECP256K1, SIG_VERIFY_COST_SECP256K1
from chaind.chain.modules.bank import Bank, format_coins
from chaind.chain.modules.bank import store_layout as bank_layout
from chaind.chain.view import PrunedError, StateView
from chaind.crypto import addresses
from chaind.crypto import keys as crypto_keys
from chaind.pb.cosmos.tx.signing.v1beta1 import signing_pb2
from chaind.store import eventindex, keys
from chaind.store.evm_state import pending_state_db, pending_trie
from chaind.store.head_cache import HeadCache
from chaind.store.layout import Layout
from chaind.store.multistore import MultiStore
from chaind.store.pruning import collect_garbage
from chaind.store.undo import UndoLog
from chaind.store.versioned import VersionedReader, VersionedWriter

_SIG_VERIFY_COST = {crypto_keys.ETH_SECP256K1: SIG_VERIFY_COST_ETH_SECP256K1,
                    crypto_keys.SECP256K1: SIG_VERIFY_COST_SECP256K1}

log = Logger()


class StaleHomeError(RuntimeError):
    """The data directory was written by a chaind whose app hash is not the multistore's."""


class NoValidatorsError(RuntimeError):
    """A genesis whose InitGenesis bonds no validator: no block can ever be made on it."""


# The state layout of the data directory: 2 is the multistore (IAVL stores under the SDK's commit info); 3 keeps
# the evm and consensus params in state; 4 adds the SDK's layout of staking's records, of auth's and bank's
# indexes and of slashing's missed-block bitmap to the stores; 5 keeps distribution's running records of the
# validators in 16 buckets (each changes the app hashes).
STATE_FORMAT = b"5"
_STALE_FORMATS = {
    None: "whose app hash is not the multistore's (IAVL stores)",
    b"2": "whose stores lack the evm and consensus params and hold staking's records, auth's and bank's indexes "
          "and slashing's missed blocks in another layout than the SDK's, so its app hashes differ from this "
          "version's",
    b"3": "whose IAVL stores hold staking's records, auth's and bank's indexes and slashing's missed blocks in "
          "another layout than the SDK's, so its app hashes differ from this version's",
    b"4": "whose distribution store keeps each validator's running rewards under a key of its own, so its app "
          "hashes differ from this version's"}
HEAD_VIEW_READS = 1000      # reads one thread's view of the head serves before a new one is made
KEPT_SETS = 8               # validator set records kept by height (the block reads its parent's, its own, the next)
_NO_HEAD_BLOCK = (None, {})
RECENT_TXS = 4096           # decoded txs of the last blocks kept for decode_tx (receipts of the head's txs)


@attrs.define
class BlockContext:
    """The block being built: its writable state and running totals."""

    height: int
    time_ns: int
    block_hash: bytes
    base_fee: int
    store: VersionedWriter
    accounts: object          # py-evm State
    pending_nodes: object
    gas_limit: int = 0        # the block's consensus params' gas limit (its EVM gasLimit)
    gas_used: int = 0         # the EVM txs' (the Ethereum block's gasUsed)
    gas_wanted: int = 0       # every tx's gas limit, and every tx's gas used: feemarket's block gas
    tx_gas_used: int = 0
    block_gas: int = 0        # set by feemarket's end block
    log_count: int = 0
    bloom: int = 0
    evm_tx_count: int = 0     # EVM txs executed so far: the next one's index among them (Evmos' txIndex)
    execute: object = None    # replaces the plain EVM run of a tx: execute(state, tx, book_fee) (tracing)
    events: list = attrs.Factory(list)             # the block's own events (FinalizeBlock's, end blockers')
    validator_updates: list = attrs.Factory(list)  # (ed25519 pubkey, power) from end blockers
    last_commit: tuple = ()   # commit_info.VoteInfo of the parent's commit (slashing's liveness)
    misbehavior: tuple = ()   # commit_info.Misbehavior to punish (x/evidence)
    msg_gas: int = 0          # gas the running message used beyond its flat MSG_GAS (use_gas)
    msg_gas_location: str = ""
    # staking Summaries read from the parent's state this block (staking.summary_by_cons): distribution's and
    # slashing's begin blockers both read every validator of the last commit.
    summaries: dict = attrs.Factory(dict)
    nonces: dict = attrs.Factory(dict)             # set when sealed: {address: nonce} of the accounts it touched

    def use_gas(self, amount, location):
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
    """modules: the Modules the chain runs (chain/registry.py's by default), in the SDK's init-genesis and
    end-block order; their messages, genesis, block hooks and module accounts are the app's."""

    def __init__(self, db, genesis, pruning=0, prune_interval=100, modules=registry.MODULES,
                 iavl_cache_nodes=150_000, subspace_max_keys=10_000, state_cache_keys=100_000):
        self.db = db
        self.genesis = genesis
        self.modules = tuple(modules)
        self.end_blockers = registry.end_block_order(self.modules)
        # Set by the node: the upgrade handlers this binary has ({plan name: handler}, chain/modules/upgrade/),
        # and every how many blocks crisis checks all invariants (0: never).
        self.upgrade_handlers = {}
        self.refuse_early_upgrades = True     # a handler for a plan not yet due stops the chain (the SDK's check)
        self.check_invariants_every = 0
        self.handlers = {handler.type_url: handler for module in self.modules for handler in module.messages}
        self.amino = amino.Encoder.of_modules(self.modules)
        self.module_accounts = {name: account for module in self.modules
                                for name, account in module.module_accounts.items()}
        check_hooks(self.modules)
        # The modules' EVM precompiles ({address: run}), which the EVM state serves (chain/modules/evm/state.py).
        self.precompiles = precompiles_of(self.modules)
        self.pruning = pruning
        self.prune_interval = prune_interval
        raw = db.get(keys.PRUNED_BELOW)
        self._pruned_below = 0 if raw is None else keys.height_of(raw)
        self.bank = Bank(genesis.base_denom, genesis.bech32_prefix)
        # Each module's keeper, built once, in the registry's order: a keeper may take those built before it.
        self.keepers = {}
        for m in self.modules:
            if m.keeper is not None:
                self.keepers[m.name] = m.keeper(self)
        self._head = None
        # Per thread: the checker's view of the head (view, head), and a reader's (head_view: [head it was made
        # for, its StateView, reads so far]).
        self._local = threading.local()
        self._results_hash = (None, None)   # (block hash, its results hash) of the last finalized block
        self._next_block_found = None       # _NextBlock of the head
        self.undo = UndoLog(db)             # prior values of what blocks overwrite, while dev snapshots are open
        self.stores = MultiStore(db, iavl_cache_nodes, subspace_max_keys,
                                 Layout(stores_of(self.modules, genesis.bech32_prefix)),
                                 mounted_stores(self.modules))
        self.state_cache = HeadCache(state_cache_keys)
        # The consensus params before any block records its own (chain/modules/consensus), and those looked up.
        self._genesis_consensus = consensus.of_document(genesis.document).SerializeToString()
        self._consensus_cache = {}
        self._valsets, self._valsets_lock = {}, threading.Lock()    # {height: record} (_valset_record)
        self._finalized = None                  # _Finalized: what commit takes over of the block finalized last
        # The head and the nonces its block left to the accounts it touched: head_nonce without a trie walk for
        # the accounts asked for most (the next check of a sender, the pool's cleanup after the block).
        self._head_nonces = (None, {})
        # (address, auth record, sequence) -> the account's Any (writer only); ordered, to evict the oldest cheaply.
        self._account_anys = collections.OrderedDict()
        self._sealed_info = (None, None)    # (app hash, CommitInfo) of the state sealed last
        # Envelope bytes -> decoded tx, of the txs of the last blocks made here (the writer adds, anyone reads).
        # An OrderedDict: evicting a plain dict's first entry again and again scans its deleted slots.
        self._recent_txs = collections.OrderedDict()
        # The last block made here and its EVM txs' positions: the receipts asked for most, read from memory.
        self._head_block = _NO_HEAD_BLOCK
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
            self._head = self._load_block(keys.height_of(raw))
        self._head_info = self.stores.commit_info(self.height)
        self.state_cache.clear(self.height)

    # -- reads ---------------------------------------------------------------------------------

    @property
    def head(self):
        """(Header, BlockMeta) of the last committed height."""
        return self._head

    @property
    def height(self):
        return self._head[0].height

    def block_at(self, height):
        """(Header, BlockMeta) at `height`, or None if there is no such block."""
        if height == self.height:
            return self._head
        if height < 0:
            return None
        # A height above the cached head may already be durable (its batch is written first).
        return self._load_block(height)

    def evidence_height(self, evidence_hash):
        """The height of the block that carries the evidence with this hash, or None."""
        raw = self.db.get(keys.EVIDENCE + evidence_hash)
        return None if raw is None else keys.height_of(raw)

    def height_of_hash(self, block_hash):
        raw = self.db.get(keys.BLOCK_BY_HASH + block_hash)
        return None if raw is None else keys.height_of(raw)

    def tx_position(self, tx_hash, evm=False):
        """(height, index) of a committed tx, or None. A tx of a block written but not yet made the
        head is not found: a client that sees its receipt must find its block at `latest`."""
        if evm:
            block, indexes = self._head_block
            if tx_hash in indexes:
                return block.height, indexes[tx_hash]
        raw = self.db.get((keys.EVM_TX_BY_HASH if evm else keys.TX_BY_HASH) + tx_hash)
        if raw is None:
            return None
        position = keys.position_of(raw)
        return position if position[0] <= self.height else None

    def tx_at(self, height, index):
        block = self._head_block[0]
        if block is not None and block.height == height and index < len(block.txs):
            return block.txs[index]
        return self.db.get(keys.tx_key(height, index))

    def result_at(self, height, index):
        block = self._head_block[0]
        if block is not None and block.height == height and index < len(block.results):
            return block.results[index]
        raw = self.db.get(keys.result_key(height, index))
        return None if raw is None else TxResult.from_record(raw)

    def oldest_state_height(self):
        window = max(0, self.height - self.pruning + 1) if self.pruning else 0
        # Below what an earlier run pruned nothing comes back, whatever the setting is now.
        return max(window, self._pruned_below)

    def view(self, height=None):
        """A read-only StateView of committed state at `height` (default: latest)."""
        head_height = self.height
        height = head_height if height is None else height
        if height > head_height or height < 0:
            raise LookupError(f"height {height} is not committed yet (latest {head_height})")
        oldest = self.oldest_state_height()
        if height < oldest:
            kept = f"this node keeps the last {self.pruning} heights, " if self.pruning else ""
            raise PrunedError(f"state at height {height} is pruned: {kept}oldest available {oldest}")
        if height == head_height:
            # Most reads are at the head: each thread makes its view once per head (py-evm's objects inside
            # are not shared between threads), and again after HEAD_VIEW_READS reads, so that what py-evm
            # caches in it for code and storage reads stays small.
            head, cached = self._head, getattr(self._local, "head_view", None)
            if cached is not None and cached[0] is head and cached[2] < HEAD_VIEW_READS:
                cached[2] += 1
                return cached[1]
            view = StateView.committed(self.db, height, head[1].evm_state_root, self.state_cache)
            self._local.head_view = [head, view, 0]
            return view
        _, meta = self.block_at(height)
        return StateView.committed(self.db, height, meta.evm_state_root)

    def store_version(self, height=None):
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

    def _init_chain(self):
        g = self.genesis
        height = g.initial_height - 1
        ctx = self._context(height, g.genesis_time_ns, b"", g.base_fee, evm_root=None)
        for module in self.modules:
            if module.init_genesis is not None:
                module.init_genesis(self, ctx)
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
        # The SDK commits InitChain's writes with the first block: before it the app hash is empty.
        meta = BlockMeta(hash=b"", num_txs=0, gas_limit=self.block_gas_limit(height), gas_used=0, base_fee=g.base_fee,
                         bloom=bytes(256), log_count=0, size=0, app_hash=b"",
                         evm_state_root=ctx.accounts.state_root)
        committed = CommittedBlock(header, meta, (), ())
        puts = {**ctx.store.batch_puts(), **ctx.pending_nodes.batch_puts(), keys.STATE_FORMAT: STATE_FORMAT}
        if first_set:
            puts[valset.key(g.initial_height)] = valset.to_record(first_set)
        puts[consensus.key(g.initial_height)] = self._genesis_consensus
        self.db.write(self._block_puts(committed, puts))
        self._head_block = _NO_HEAD_BLOCK
        self._head = (header, meta)
        # A reset chain starts over: nothing read from the one before may be kept.
        self.state_cache.clear(height)
        self._forget_valsets()

    # -- check_tx --------------------------------------------------------------------------------

    def decode_tx(self, raw):
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

    def check_tx(self, raw):
        """Decode and check a tx against the latest committed state; returns the decoded tx.

        The mempool adds what depends on other pending txs (nonce gaps, replacement).
        """
        return self.check_decoded(self.decode_tx(raw))

    def check_eth_tx(self, raw_evm):
        """check_tx for a signed Ethereum tx: wrapped in its envelope (as eth_sendRawTransaction does)."""
        g = self.genesis
        tx = txs.wrap_evm(raw_evm, g.evm_chain_id, g.base_denom)
        # The node's [json-rpc] allow-unprotected-txs (Evmos' RPC backend check), before the chain's own param.
        if tx.evm.chain_id is None and not self.allow_unprotected:
            raise errors.unauthorized("only replay-protected (EIP-155) transactions allowed over RPC")
        return self.check_decoded(tx)

    def check_decoded(self, tx, impersonated=False):
        """check_tx for a tx already decoded (signatures checked) by txs.decode or txs.wrap_evm.
        `impersonated`: the dev namespace sends it for an account it impersonates (txs.wrap_impersonated);
        no other road takes an unsigned tx."""
        if getattr(tx, "impersonated", False) and not (impersonated and self.allow_impersonated):
            raise errors.unauthorized("an impersonated tx is accepted only from a dev node's eth_sendTransaction")
        self._check_gas_wanted(tx)
        state = self._head_view()
        if tx.kind == "evm":
            self._check_evm(state, tx)
        else:
            self._check_native(state, tx)
        return tx

    def _check_gas_wanted(self, tx):
        """A tx wanting more gas than the next block may use is refused, as no block could carry it: the SDK ante's
        SetUpContextDecorator for a native tx, Evmos' CheckGasWanted for an EVM one (over JSON-RPC, geth's
        txpool.ErrGasLimit). Without it CometBFT's mempool would drop such a tx (PostCheckMaxGas) after the app
        admitted it; max_gas -1 is no limit."""
        limit = self._next_block().gas_limit
        if tx.gas <= limit:
            return
        if tx.kind == "evm":
            raise errors.TxError(errors.SDK, 11, f"tx gas ({tx.gas}) exceeds block gas limit ({limit}): out of gas",
                                 "exceeds block gas limit")
        raise errors.invalid_gas_limit(f"tx gas limit {tx.gas} exceeds block max gas {limit}")

    def _check_evm(self, state, tx):
        g = self.genesis
        evm_tx = tx.evm
        _check_protected(state, evm_tx)
        following = self._next_block()
        base_fee = self.next_base_fee()
        # Evmos' CheckGlobalFee: the effective fee at the next base fee covers min_gas_price * gas limit.
        min_gas_price = following.params.min_gas_price
        if min_gas_price:
            price = tx.max_fee if tx.type_id in (0, 1) else min(tx.max_fee, base_fee + tx.max_tip)
            fee, required = price * evm_tx.gas, min_gas_price * evm_tx.gas // 10**18
            if fee < required:
                raise errors.insufficient_fee(
                    f"provided fee < minimum global fee ({fee} < {required}). Please increase the priority tip (for "
                    "EIP-1559 txs) or the gas prices (for access list or legacy txs)")
        intrinsic = evm_tx.intrinsic_gas
        if evm_tx.gas < intrinsic:
            raise errors.TxError(errors.SDK, 11, f"gas limit {evm_tx.gas} below intrinsic gas {intrinsic}: out of gas",
                                 "intrinsic gas too low")
        nonce = state.accounts.get_nonce(tx.sender)
        if evm_tx.nonce < nonce:
            raise errors.wrong_sequence(nonce, evm_tx.nonce,
                                        f"nonce too low: next nonce {nonce}, tx nonce {evm_tx.nonce}")
        if evm_tx.max_fee_per_gas < base_fee:
            raise errors.insufficient_fee(
                f"max fee per gas less than block base fee ({evm_tx.max_fee_per_gas} < {base_fee})",
                f"max fee per gas less than block base fee: address {_hex(tx.sender)}, "
                f"maxFeePerGas: {evm_tx.max_fee_per_gas}, baseFee: {base_fee}")
        cost = evm_tx.gas * evm_tx.max_fee_per_gas + evm_tx.value
        # A vesting account's locked coins pay for nothing (x/auth/vesting), as of the head's time.
        locked = auth.locked_coins(state, tx.sender, self._head[0].time_ns // 10**9).get(g.base_denom, 0)
        have = max(0, state.accounts.get_balance(tx.sender) - locked)
        if have < cost:
            raise errors.insufficient_funds(
                f"sender balance < tx cost ({have} < {cost})",
                f"insufficient funds for gas * price + value: address {_hex(tx.sender)} have {have} want {cost}")

    # The node's [json-rpc] allow-unprotected-txs: eth_sendRawTransaction takes unprotected txs (the evm param
    # allow_unprotected_txs decides whether the chain runs them).
    allow_unprotected = False
    # Unsigned txs of impersonated accounts may run (a dev chain, whose node sets this).
    allow_impersonated = False

    def head_nonce(self, address):
        """The account's nonce at the head, through this thread's view of the head (cached until it moves)."""
        head, nonces = self._head_nonces
        if head is self._head and address in nonces:
            return nonces[address]
        return self._head_view().accounts.get_nonce(address)

    def _head_view(self):
        """view() of the head, reused until the head moves: committed state never changes, and the
        accounts it caches spare the next check of the same senders their trie reads."""
        # Keyed by the head itself: a dev revert or state change replaces the head at the same height.
        head = self._head
        if getattr(self._local, "head", None) is not head:
            self._local.view, self._local.head = self.view(), head
        return self._local.view

    def _check_native(self, state, tx, base_fee=None, simulate=False, height=None):
        """The SDK's ante for a native tx: memo, timeout height, signature count, signers, each signer's account,
        sequence and signature (not in a simulation), and the fee and who pays it; then each message's
        stateless checks. height is the block the tx is for (check_tx: the next one); a block's state (a
        BlockContext) is given its base fee. Returns the fee's source (_fee_source), None in a simulation."""
        params = self.genesis.auth_params
        memo = len(tx.body.memo)
        if memo > params.max_memo_characters:
            raise errors.TxError(errors.SDK, 12, f"maximum number of characters is {params.max_memo_characters} "
                                 f"but received {memo} characters: memo too large")
        height = self.height + 1 if height is None else height
        timeout = tx.body.timeout_height
        if timeout and height > timeout:
            raise errors.TxError(errors.SDK, 30, f"block height: {height}, timeout height: {timeout}: "
                                 "tx timeout height")
        count = sum(len(s.multisig.members) if s.multisig else 1 for s in tx.signers)
        if count > params.tx_sig_limit:
            raise errors.TxError(errors.SDK, 14, f"signatures: {count}, limit: {params.tx_sig_limit}: "
                                 "too many signatures")
        # A gen tx (genutil, delivered at the height before the first) is signed offline with account number 0
        # and pays no base fee, as the SDK's ante and Evmos' fee checker treat it; the fee it carries is paid.
        at_genesis = height == self.genesis.initial_height - 1
        self._check_signers(tx)
        self._check_signer_accounts(state, tx, simulate, at_genesis)
        fee_source = None
        if not simulate:
            fee_source = self._check_fee(state, tx, 0 if at_genesis else self.next_base_fee() if base_fee is None
                                         else base_fee, None if base_fee is None else state.time_ns)
        for handler, msg in tx.messages:
            handler.validate(self, msg)
        return fee_source

    def tx_signers(self, tx):
        """The addresses that must sign a native tx, in the SDK's GetSigners order: each message's signer,
        deduplicated, then the fee payer when it names an account not among them."""
        signers = []
        for handler, msg in tx.messages:
            address = self._signer_address(handler.signer(msg))
            if address not in signers:
                signers.append(address)
        payer = self._fee_payer_field(tx)
        if payer is not None and payer not in signers:
            signers.append(payer)
        return signers

    def _check_signers(self, tx):
        """One signature per required signer, each SignerInfo's key making that signer's address."""
        expected = self.tx_signers(tx)
        if len(expected) != len(tx.signers):
            raise errors.unauthorized(f"wrong number of signers; expected {len(expected)}, got {len(tx.signers)}")
        for index, (address, signer) in enumerate(zip(expected, tx.signers)):
            if signer.address != address:
                raise errors.TxError(errors.SDK, 8, f"pubKey does not match signer address {self._b32(address)} "
                                     f"with signer index: {index}: invalid pubkey")

    def _check_signer_accounts(self, state, tx, simulate, at_genesis=False):
        """Each signer's account exists, its sequence is not used yet (the mempool orders what is pending)
        and its signature verifies over its sign doc (not in a simulation; at genesis, over account number 0)."""
        for signer in tx.signers:
            account = auth.account(state, signer.address)
            if account is None:
                raise errors.TxError(errors.SDK, 9, f"account {self._b32(signer.address)} not found: unknown address")
            number = 0 if at_genesis else account[0]
            nonce = state.accounts.get_nonce(signer.address)
            if signer.sequence < nonce:
                raise errors.wrong_sequence(nonce, signer.sequence,
                                            f"nonce too low: next nonce {nonce}, tx nonce {signer.sequence}")
            # A simulation is not checked for its signature (whatever its sign mode) or fee, as in the SDK's
            # ante handlers: clients simulate to learn the gas, before they know the fee to sign.
            if not simulate and tx.web3 is not None:
                # Evmos' legacy EIP-712 road: the signature travels in the extension option.
                web3tx.verify(tx, self.amino, self.genesis.chain_id, number, self.genesis.bech32_prefix)
            elif not simulate and not self._signature_valid(tx, signer, number):
                raise errors.unauthorized(
                    f"signature verification failed; please verify account number ({number}) and chain-id "
                    f"({self.genesis.chain_id})")

    def _signature_valid(self, tx, signer, number):
        """A single key's signature, or every signing member's, over the sign bytes of its sign mode."""
        legacy = functools.partial(self._legacy_eip712_digest, tx)
        if signer.multisig is None:
            return _verify(signer.key_type, signer.public_key, signer.sign_mode,
                           self._sign_bytes(tx, number, signer.sequence, signer.sign_mode), signer.signature, legacy)
        members = signer.multisig.members
        return all(_verify(members[i][0], members[i][1], mode, self._sign_bytes(tx, number, signer.sequence, mode),
                           signature, legacy)
                   for (i, signature), mode in zip(signer.multisig.signed, signer.multisig.modes))

    def _legacy_eip712_digest(self, tx, sign_bytes):
        """The amino doc's digest in Evmos' legacy EIP-712 form, which v20's eth_secp256k1 key still accepts
        (LegacyGetEIP712BytesForMsg): the messages of one amino type and one signer, that signer the fee payer."""
        names = {self.amino.named(msg)["type"] for _, msg in tx.messages}
        try:
            signers = {self._signer_address(handler.signer(msg)) for handler, msg in tx.messages}
        except errors.TxError as e:
            raise eip712.TypedDataError(e.log) from None
        if len(names) != 1 or len(signers) != 1:
            raise eip712.TypedDataError("unable to build EIP-712 payload: different types of messages or signers")
        prefix = self.genesis.bech32_prefix
        return eip712_legacy.digest(sign_bytes, eip712.chain_number(self.genesis.chain_id), tx.messages[0][1],
                                    addresses.to_bech32(prefix, signers.pop()), self.amino.any_types)

    def _sign_bytes(self, tx, number, sequence, mode):
        if mode == signing_pb2.SIGN_MODE_DIRECT:
            return txs.sign_doc_bytes(tx, self.genesis.chain_id, number)
        if mode == signing_pb2.SIGN_MODE_LEGACY_AMINO_JSON:
            return amino.sign_bytes(self.amino, tx.body, tx.auth_info.fee, self.genesis.chain_id, number, sequence)
        raise errors.unauthorized(f"unsupported sign mode {signing_pb2.SignMode.Name(mode)}")

    def _fee_payer_field(self, tx):
        """The account `fee.payer` names, or None when it is empty."""
        payer = tx.auth_info.fee.payer
        if not payer:
            return None
        try:
            return addresses.parse(payer, self.genesis.bech32_prefix)
        except addresses.AddressError as e:
            raise errors.invalid_address(f"Invalid fee payer address ({e})") from None

    def fee_payer(self, tx):
        """The SDK's FeePayer: fee.payer, or the first signer."""
        payer = self._fee_payer_field(tx)
        return tx.sender if payer is None else payer

    def _fee_granter(self, tx):
        """The account fee.granter names (the fee's source through a feegrant allowance), or None."""
        granter = tx.auth_info.fee.granter
        if not granter:
            return None
        if not any(module.name == feegrant.NAME for module in self.modules):
            raise errors.invalid_request("fee grants are not enabled")
        try:
            return addresses.parse(granter, self.genesis.bech32_prefix)
        except addresses.AddressError as e:
            raise errors.invalid_address(f"invalid fee granter address: {e}") from None

    def _fee_source(self, state, tx, fee, time_ns):
        """(who the fee is taken from, the feegrant allowance it uses or None): DeductFeeDecorator's deductFeesFrom.
        A granter other than the payer must allow the fee (feegrant's Accept, at time_ns); nothing is written."""
        payer, granter = self.fee_payer(tx), self._fee_granter(tx)
        if granter is None:
            return payer, None
        if granter == payer:
            return granter, None
        try:
            used = feegrant.accept(state, granter, payer, fee, [handler.type_url for handler, _ in tx.messages],
                                   time_ns)
        except errors.TxError as e:
            raise errors.TxError(e.codespace, e.code, f"{self._b32(granter)} does not allow to pay fees for "
                                 f"{self._b32(payer)}: {e.log}") from None
        return granter, used

    def _check_fee(self, state, tx, base_fee, time_ns=None):
        """The fee is in the base denom, covers the base fee, and whoever pays it can; returns _fee_source's
        answer. time_ns: the block's time (check_tx: the head's)."""
        base = self.genesis.base_denom
        fee = dict(tx.fee)
        _check_min_gas_price(feemarket.params(state).min_gas_price, base, tx)
        if set(fee) - {base}:
            raise errors.insufficient_fee(f"fees must be paid in {base}")
        required = base_fee * tx.gas
        if fee.get(base, 0) < required:
            raise errors.insufficient_fee(
                f"insufficient fees; got: {format_coins(tx.fee)} required: {required}{base}")
        now = self._head[0].time_ns if time_ns is None else time_ns
        found = self._fee_source(state, tx, [c for c in tx.fee if c[1]], now)
        source = found[0]
        # A signer's account was just read; only a granter's needs looking up.
        if source not in {s.address for s in tx.signers} and auth.account(state, source) is None:
            raise errors.TxError(errors.SDK, 9, f"fee payer address: {self._b32(source)} does not exist: "
                                 "unknown address")
        # A vesting account pays no fee from its locked coins.
        if self.bank.spendable(state, source, base, now // 10**9) < fee.get(base, 0):
            raise errors.insufficient_funds(f"insufficient funds to pay fee {format_coins(tx.fee)}")
        return found

    def _deduct_fee(self, ctx, tx, fee_source=None):
        """DeductFeeDecorator on the block: the allowance used (feegrant's events), the fee sent to the fee
        collector, and the `tx` event naming who paid. fee_source: what the ante's fee check found, if it ran."""
        fee = [c for c in tx.fee if c[1]]
        source, used = fee_source or self._fee_source(ctx, tx, fee, ctx.time_ns)
        events = [] if used is None else feegrant.use(ctx, used, self.bank.bech32)
        if fee:
            events += self.bank.send(ctx, source, auth.FEE_COLLECTOR, fee)
            events.append(event("message", ("sender", self._b32(source))))
        events.append(event("tx", ("fee", format_coins(fee)), ("fee_payer", self._b32(source))))
        return events

    def _signer_address(self, text):
        """A signer field's account bytes: an account address, or a validator operator's (valoper)."""
        prefix = self.genesis.bech32_prefix
        try:
            return addresses.parse(text, prefix + "valoper" if text.startswith(prefix + "valoper") else prefix)
        except addresses.AddressError as e:
            raise errors.invalid_address(f"invalid signer address: {e}") from None

    def ensure_account(self, state, address):
        """auth's account for `address`, created (next number) on first sight; for message handlers."""
        return auth.ensure_account(state, address)

    # -- finalize_block and commit -------------------------------------------------------------

    # A dev node's base fee for the next block only (anvil_setNextBlockBaseFeePerGas).
    next_base_fee_override = None

    def next_base_fee(self):
        if self.next_base_fee_override is not None:
            return self.next_base_fee_override
        return self._next_block().base_fee

    def _next_block(self):
        """The gas limit, feemarket params and base fee (before a dev override) of the block after the head, worked
        out once per head: every check_tx asks for them, twice."""
        found = self._next_block_found
        # Keyed by the head itself, as _head_view: a dev change of the head's state replaces it.
        if found is not None and found.head is self._head:
            return found
        view = self._head_view()
        head = self._local.head
        header, meta = head
        # A base fee MsgUpdateParams set in the head block is where the next one starts (Evmos' BeginBlock).
        set_by_params = feemarket.base_fee_set_at(view, header.height)
        parent = meta.base_fee if set_by_params is None else set_by_params
        params = feemarket.params(view)
        gas_limit = self.block_gas_limit(header.height + 1)
        found = self._next_block_found = _NextBlock(head, gas_limit, params, feemarket.next_base_fee(
            params, parent, meta.block_gas, gas_limit))
        return found

    def finalize_block(self, block_txs, time_ns, proposer_address, decided=None, evidence=()):
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
        prev_header, prev_meta = self._head
        if decided is None:
            header = self.next_header(prev_header, prev_meta, raw_txs, time_ns, proposer_address,
                                      self._last_results_hash(prev_header.height, prev_meta.hash),
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
                last_results_hash=self._last_results_hash(prev_header.height, prev_meta.hash),
                evidence_hash=b"" if decided.misbehavior else blocks.EMPTY_HASH, proposer_address=proposer_address)
            block_hash = decided.hash
        height, time_ns = header.height, header.time_ns
        base_fee = self.next_base_fee()
        self.next_base_fee_override = None
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
        store_puts = {}
        sealed = self._seal_state(ctx, store_puts)
        meta = BlockMeta(hash=block_hash, num_txs=len(raw_txs), gas_limit=ctx.gas_limit, gas_used=ctx.gas_used,
                         base_fee=base_fee, bloom=ctx.bloom.to_bytes(256, "big"), log_count=ctx.log_count,
                         size=sum(len(t) for t in raw_txs), block_gas=ctx.block_gas, **sealed)
        # A MsgUpdateParams of x/consensus: CometBFT runs the next block with the new params (FinalizeBlock's
        # consensus_param_updates), and so does this node.
        params_before = self.consensus_params(height).SerializeToString()
        params_after = consensus.stored(ctx) or params_before
        committed = CommittedBlock(header, meta, tuple(raw_txs), tuple(results), events=tuple(ctx.events),
                                   validator_updates=tuple(ctx.validator_updates), last_commit=ctx.last_commit,
                                   misbehavior=ctx.misbehavior, evidence=tuple(evidence),
                                   consensus_params=params_after)
        self._results_hash = (block_hash, blocks.results_hash(results))
        self._finalized = _Finalized(height, ctx.store.changes, {h: i for i, h in evm_hashes.items()}, ctx.nonces)
        puts = {**ctx.store.batch_puts(), **ctx.pending_nodes.batch_puts(), **store_puts}
        if ctx.validator_updates:
            # CometBFT applies them to the set after next: this block's updates sign block height + 2.
            changed = valset.apply_updates(self.validator_set(height + 1), ctx.validator_updates)
            puts[valset.key(height + 2)] = valset.to_record(changed)
        if params_after != params_before:
            puts[consensus.key(height + 1)] = params_after
        return committed, self._block_puts(committed, puts, evm_hashes)

    def next_header(self, prev_header, prev_meta, raw_txs, time_ns, proposer_address, last_results_hash,
                    sets=None, evidence_hash=blocks.EMPTY_HASH):
        """The header of the block after `prev_header`; its time at least 1 ms after the parent's.
        `sets`: (signers of the parent, hash of the validators, of the next validators) when the
        caller knows them."""
        g = self.genesis
        height = prev_header.height + 1
        time_ns = max(time_ns, prev_header.time_ns + 1_000_000)
        last_block_id = BlockId(prev_meta.hash, 1 if prev_meta.hash else 0,
                                hashlib.sha256(prev_meta.hash).digest() if prev_meta.hash else b"")
        signers, current, following = sets or (None, self.validators_hash(height), self.validators_hash(height + 1))
        return Header(
            chain_id=g.chain_id, height=height, time_ns=time_ns, last_block_id=last_block_id,
            last_commit_hash=votes.commit_hash(self.precommit_sigs(height - 1, last_block_id, time_ns, signers))
            if height > g.initial_height else b"",
            data_hash=blocks.data_hash(raw_txs), validators_hash=current,
            next_validators_hash=following, consensus_hash=self.consensus_hash(height),
            app_hash=prev_meta.app_hash, last_results_hash=last_results_hash,
            evidence_hash=evidence_hash, proposer_address=proposer_address)

    def solo_last_commit(self, height):
        """The VoteInfos of block `height`'s last commit as this node makes it: its validator signed, every
        other validator of the parent's set is absent (precommit_sigs)."""
        if height <= self.genesis.initial_height:
            return ()
        return tuple(VoteInfo(v.address, v.power, votes.BLOCK_ID_FLAG_COMMIT
                              if self.vote_key is not None and v.address == self.validator_address
                              else votes.BLOCK_ID_FLAG_ABSENT)
                     for v in self.validator_set(height - 1))

    def consensus_info(self, height):
        """(last commit, misbehavior, evidence) block `height` was executed with, as its record keeps them."""
        raw = self.db.get(keys.block_key(height))
        return ((), (), ()) if raw is None else blocks.load_consensus(raw)

    def replay_block(self, height, before_tx, after_tx=None, stop_after=None):
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
        _, parent_meta = self.block_at(parent.height)
        ctx = self._context(height, header.time_ns, meta.hash, meta.base_fee, evm_root=parent_meta.evm_state_root)
        ctx.last_commit, ctx.misbehavior, _ = self.consensus_info(height)
        self._begin_block(ctx)
        results = []
        for index in range(meta.num_txs):
            raw = self.tx_at(height, index)
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

    def simulate(self, raw):
        """Run a tx on top of the head as the next block would, writing nothing; returns its TxResult.

        As in the SDK's simulate mode, the signature and fee are not checked and gas is unlimited
        (clients simulate to learn the gas to ask for). A tx that fails to decode raises TxError.
        """
        tx = self.decode_tx(raw)
        if tx.kind == "native":
            tx = self._simulated_signers(tx)
        header, meta = self._head
        ctx = self._context(header.height + 1, header.time_ns + 1_000_000, b"", self.next_base_fee(),
                            evm_root=meta.evm_state_root)
        return self._deliver(ctx, tx, 0, simulate=True)[0]

    def _simulated_signers(self, tx):
        """The SDK takes a tx's signers from its messages and fee payer, and checks each key against its signer
        only outside simulation (SetPubKeyDecorator): @cosmjs simulates an eth_secp256k1 account's tx with its key
        written as a Cosmos one, whose address is another."""
        try:
            expected = self.tx_signers(tx)
        except errors.TxError:
            return tx               # the ante names the fault
        if len(expected) != len(tx.signers):
            return tx
        return attrs.evolve(tx, signers=tuple(
            signer if signer.multisig is not None or signer.address == address
            else attrs.evolve(signer, address=address) for signer, address in zip(tx.signers, expected)))

    def commit(self, committed, puts):
        """Write the block in one atomic batch; from now on readers see it."""
        self.write(puts)
        self._head = (committed.header, committed.meta)
        self._carry_valsets(committed.height, puts)
        finalized, self._finalized = self._finalized, None
        if finalized is not None and finalized.height == committed.height:
            # After the head: a reader that finds a tx here finds its block at `latest`.
            self._head_block = (committed, finalized.evm_indexes)
            self._head_nonces = (self._head, finalized.nonces)
            self.state_cache.advance(committed.height, finalized.changes)
        else:
            self._head_block, self._head_nonces = _NO_HEAD_BLOCK, (None, {})
            self.state_cache.clear(committed.height)
        self._consensus_cache = _consensus_after(self._consensus_cache, committed.height, puts)
        # The commit info the block's app hash was made of, as it was written (not read back).
        app_hash, info = self._sealed_info
        if app_hash != committed.meta.app_hash or info.version != committed.height:
            info = self.stores.commit_info(committed.height)
        self._head_info = info
        if self.pruning and committed.height % self.prune_interval == 0:
            try:
                self.prune()
            except Exception:
                # The block is durable either way: announce it, keep the state, say why.
                log.failure("state pruning skipped")

    def write(self, puts, deletes=()):
        """One atomic, durable batch (what dev snapshots may have to undo is noted first)."""
        self.undo.record(puts, deletes)
        self.db.write(puts, deletes)

    def reload_head(self):
        """Take the head from the store again, after a dev revert or load rewrote it under us."""
        self._head_block = _NO_HEAD_BLOCK
        self._head = self._load_block(keys.height_of(self.db.get(keys.HEAD)))
        self._consensus_cache = {}
        self.state_cache.clear(self.height)
        self._forget_valsets()
        self._head_info = self.stores.commit_info(self.height)
        self._results_hash = (None, None)

    def prune(self):
        """Delete state below the horizon, one pass; writer thread only. Returns PruneStats or None.

        The horizon trails the oldest readable height by prune_interval blocks, so a read that
        began at a height just before it became unreadable still finds its nodes.
        """
        horizon = self.oldest_state_height() - self.prune_interval
        if horizon <= max(self._pruned_below, self.genesis.initial_height - 1):
            return None
        roots = {self.block_at(h)[1].evm_state_root for h in range(horizon, self.height + 1)}
        stats = collect_garbage(self.db, horizon, roots, self.stores.prune(horizon))
        self._pruned_below = horizon
        return stats

    def deliver_gen_tx(self, ctx, raw):
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
                _check_protected(ctx, tx.evm)
                if tx.evm.gas > ctx.gas_limit - ctx.gas_used:
                    raise errors.TxError(errors.SDK, 18, "tx gas exceeds the block's remaining gas: invalid request")
                if tx.impersonated and not self.allow_impersonated:
                    raise errors.unauthorized("impersonated txs run only on a dev chain")
                auth.ensure_account(ctx, tx.sender)
                result = evm.deliver(ctx, tx, self.bank)
                if tx.evm.to:
                    auth.ensure_account(ctx, tx.evm.to)
                elif result.receipt.contract_address:
                    auth.ensure_account(ctx, result.receipt.contract_address)
                return result, tx
            return self._deliver_native(ctx, tx, simulate), tx
        except errors.TxError as e:
            return TxResult(code=e.code, codespace=e.codespace, log=e.log, gas_wanted=tx.gas), tx

    def _deliver_native(self, ctx, tx, simulate=False):
        """The ante checks, then the messages; a failed message undoes the messages, not the fee."""
        # The block's own base fee: a replay of an old block must not use today's.
        fee_source = self._check_native(ctx, tx, ctx.base_fee, simulate, height=ctx.height)
        for signer in tx.signers:
            nonce = ctx.accounts.get_nonce(signer.address)
            if signer.sequence != nonce:
                raise errors.wrong_sequence(nonce, signer.sequence, "invalid nonce")
        gas = (len(tx.raw) + (_missing_signature_size(tx) if simulate else 0)) \
            * self.genesis.auth_params.tx_size_cost_per_byte + _sig_verify_gas(tx)
        # A simulation runs on an unlimited gas meter: its point is to measure the gas; so do gen txs, as
        # the SDK's SetUpContextDecorator gives the genesis block one.
        limit = float("inf") if simulate or ctx.height == self.genesis.initial_height - 1 else tx.gas
        if gas > limit:
            raise errors.out_of_gas(f"txSize; gasWanted: {tx.gas}, gasUsed: {gas}")
        # The fee first: it is the one ante write that can fail, and then nothing else has been written.
        events = self._deduct_fee(ctx, tx, fee_source)
        events += self._use_signers(ctx, tx)
        store_snapshot = dict(ctx.store.changes)
        evm_snapshot = ctx.accounts.snapshot()
        msg_events, responses = [], []
        for msg_index, (handler, msg) in enumerate(tx.messages):
            try:
                gas += handler.gas
                if gas > limit:
                    raise errors.out_of_gas(f"WriteFlat; gasWanted: {tx.gas}, gasUsed: {gas}")
                signer = self._signer_address(handler.signer(msg))
                msg_events.append(event("message", ("action", handler.type_url), ("sender", self._b32(signer)),
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

    def _use_signers(self, ctx, tx):
        """SetPubKey and IncrementSequence for every signer, with the `tx` events that index the tx by each
        signer's sequence and signatures (tx.acc_seq, tx.signature), signer by signer as the SDK emits them."""
        events = []
        for signer in tx.signers:
            if signer.multisig is None:
                auth.set_public_key(ctx, signer.address, signer.public_key, signer.key_type)
            else:
                # auth keeps single keys only: a multisig account stays keyless (its txs carry the key anyway).
                auth.ensure_account(ctx, signer.address)
            ctx.accounts.increment_nonce(signer.address)
            events.append(event("tx", ("acc_seq", f"{self._b32(signer.address)}/{signer.sequence}")))
            # As the SDK's signatureDataToBz: a multisig's member signatures, then the aggregate.
            members = [] if signer.multisig is None else [signature for _, signature in signer.multisig.signed]
            for signature in members + [signer.signature]:
                events.append(event("tx", ("signature", base64.b64encode(signature).decode())))
        return events

    def _context(self, height, time_ns, block_hash, base_fee, evm_root):
        pending, atomic = pending_state_db(self.db)
        store = VersionedWriter(self.db, height, self.state_cache)
        gas_limit = self.block_gas_limit(height)
        exec_ctx = ExecutionContext(
            coinbase=store.get(keys.DEV_COINBASE) or auth.FEE_COLLECTOR, timestamp=time_ns // 10**9,
            block_number=height, difficulty=0, mix_hash=b"\0" * 32, gas_limit=gas_limit,
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
        """The block's state roots and app hash; the IAVL nodes and commit info go into `puts`.
        `amend`: the head's CommitInfo, when a dev node changes the head's state in place (its version
        is applied again over itself, chain/devstate.py)."""
        touched = _touched_accounts(ctx.accounts)
        changes = ctx.store.changes
        if amend is None and ctx.height == self.genesis.initial_height:
            # The first version of the stores holds the genesis state too (written at the height before).
            genesis = VersionedReader(self.db, ctx.height - 1)
            changes = {**dict(genesis.iterate(b"")), **changes}
            touched |= set(auth.all_addresses(StateView(genesis.height, genesis, None)))
            touched |= {address for address, _ in self.module_accounts.values()}
        # Read before persist: the block's accounts are still in py-evm's cache, after it only in the trie.
        direct = _base_balance_mirror(ctx.accounts, touched, self.genesis.base_denom)
        # An account's SDK record holds its sequence (the EVM nonce): new for each account the block touched.
        touched |= {address for address in map(auth.account_of, changes) if address is not None}
        nonces = ctx.nonces = {address: ctx.accounts.get_nonce(address) for address in touched}
        ctx.accounts.persist()
        evm_root = ctx.accounts.state_root
        direct += self._account_mirror(ctx, nonces)
        parent = amend or self._head_info
        if amend is None and (parent is None or parent.version != ctx.height - 1):
            parent = self.stores.commit_info(ctx.height - 1)
        info = self.stores.apply(parent.version if amend else ctx.height, parent, changes, evm_root, puts, direct)
        app_hash = info.hash()
        self._sealed_info = (app_hash, info)
        return {"evm_state_root": evm_root, "app_hash": app_hash}

    def _account_mirror(self, ctx, nonces):
        """The acc store's entries of the addresses of `nonces` ({address: its EVM nonce}) as x/auth keeps them:
        0x01 | address -> the account's Any."""
        prefix = self.genesis.bech32_prefix
        made = self._account_anys
        out = []
        for address, nonce in nonces.items():
            # An account's Any is made of its auth record and its sequence alone: most of a block's accounts (the
            # fee collector, a recipient) are written again as they were.
            memo = (address, auth.record(ctx, address), nonce)
            found = made.get(memo)
            if found is None:
                account = auth.account_any(ctx, address, prefix, self.module_accounts, nonce)
                found = made[memo] = b"" if account is None else account.SerializeToString()
                if len(made) > _ACCOUNT_ANYS_KEPT:
                    made.popitem(last=False)
            if found:
                out.append((auth_layout.STORE, auth_layout.account(address), found))
        return out

    def _block_puts(self, committed, puts, evm_hashes=None):
        height = committed.height
        puts[keys.block_key(height)] = committed.record()
        if committed.hash:
            puts[keys.BLOCK_BY_HASH + committed.hash] = keys.height_bytes(height)
        for index, (raw, result) in enumerate(zip(committed.txs, committed.results)):
            position = keys.position_bytes(height, index)
            puts[keys.tx_key(height, index)] = raw
            puts[keys.result_key(height, index)] = result.to_record()
            puts[keys.TX_BY_HASH + txs.native_hash(raw)] = position
            if evm_hashes and index in evm_hashes:
                puts[keys.EVM_TX_BY_HASH + evm_hashes[index]] = position
            # tx_search's index lands in the block's own batch: a committed tx is always findable.
            puts.update(eventindex.tx_entries(height, index, result.events))
        for dve in committed.evidence:
            puts[keys.EVIDENCE + evidence_mod.hash_of(dve)] = keys.height_bytes(height)
        # block_search's index too (the block's own events, FinalizeBlock's `events`).
        puts.update(eventindex.block_entries(height, committed.events))
        puts[keys.HEAD] = keys.height_bytes(height)
        return puts

    def _last_results_hash(self, height, block_hash):
        if height < self.genesis.initial_height:
            return b""
        if self._results_hash[0] == block_hash:
            return self._results_hash[1]
        _, meta = self.block_at(height)
        return blocks.results_hash([self.result_at(height, i) for i in range(meta.num_txs)])

    def finalize_info(self, height):
        """(block events, validator updates) that FinalizeBlock at `height` returned, or None."""
        raw = self.db.get(keys.block_key(height))
        return None if raw is None else blocks.load_finalize(raw)

    def _load_block(self, height):
        raw = self.db.get(keys.block_key(height))
        return None if raw is None else blocks.load_record(raw)

    # The validator that signs precommits (set by the node); without one, commits carry no signatures.
    vote_key = None             # cryptography Ed25519PrivateKey
    validator_address = b""

    def commit_sigs(self, header):
        """The signatures of the parent's commit that `header`'s block carries (its last_commit)."""
        if header.height <= self.genesis.initial_height:
            return []
        return self.precommit_sigs(header.height - 1, header.last_block_id, header.time_ns)

    def precommit_sigs(self, height, block_id, time_ns, validators=None):
        """The commit of block `height` as CommitSigs, one per validator of its set, in the set's order:
        our validator's precommit at vote time `time_ns`, and absent for those whose key we lack."""
        sigs = []
        for v in self.validator_set(height) if validators is None else validators:
            if self.vote_key is not None and v.address == self.validator_address:
                data = votes.sign_bytes(self.genesis.chain_id, height, 0, block_id, time_ns)
                sigs.append(votes.commit_sig(v.address, time_ns, self.vote_key.sign(data)))
            else:
                sigs.append(votes.absent_sig())
        return sigs

    def validator_set(self, height):
        """The validator set (valset.SetValidator, CometBFT's order) that signs block `height`;
        known up to the head's height + 2."""
        return valset.decoded(self._valset_record(height))

    def validators_hash(self, height):
        return valset.hash_of_record(self._valset_record(height))

    def _forget_valsets(self):
        with self._valsets_lock:
            self._valsets = {}

    def _valset_record(self, height):
        """The record of the set of block `height`. A block writes the set two heights above it, so the sets up
        to the head's height + 2 never change but by a rewrite of the chain (reload_head): those are kept."""
        kept = self._valsets        # replaced, never changed in place
        found = kept.get(height)
        if found is None:
            final = self.height + 2     # the head before the read: a block committed meanwhile only adds one
            found = valset.record_at(self.db, height)
            if height <= final:
                self._keep_valset(kept, height, found)
        return found

    def _keep_valset(self, kept, height, record):
        with self._valsets_lock:
            # Not into the sets of a chain rewritten since `kept` was taken.
            if self._valsets is kept:
                recent = list(kept.items())[1 - KEPT_SETS:] if len(kept) >= KEPT_SETS else kept.items()
                self._valsets = {**dict(recent), height: record}

    def _carry_valsets(self, height, puts):
        """Block `height` is committed with `puts`: the set of height + 2 is the one it wrote, or else the one
        of height + 1 (no other block writes it)."""
        kept = self._valsets
        record = puts.get(valset.key(height + 2))
        if record is None:
            record = kept.get(height + 1)
        if record is not None:
            self._keep_valset(kept, height + 2, record)

    def consensus_params(self, height):
        """The ConsensusParams (do not mutate) block `height` runs with, as CometBFT's state holds them: genesis'
        until a block's MsgUpdateParams changes them, then the new ones from the block after it on; known up to
        the head's height + 1."""
        found = self._consensus_cache.get(height)
        if found is None:
            raw = consensus.raw_at(self.db, height) or self._genesis_consensus
            found = self._consensus_cache[height] = consensus.decoded(raw)
            if len(self._consensus_cache) > 64:
                self._consensus_cache.pop(next(iter(self._consensus_cache)))
        return found

    def block_gas_limit(self, height):
        """Block `height`'s gas limit: its consensus params' max_gas (-1: MaxUint64, as Evmos' BlockGasLimit)."""
        return consensus.gas_limit(self.consensus_params(height))

    def consensus_hash(self, height):
        return consensus.hash_of(self.consensus_params(height))

    def _b32(self, address):
        return self.bank.bech32(address)


def _consensus_after(cache, height, puts):
    """The consensus params looked up (height -> ConsensusParams) worth keeping once block `height` is committed
    with `puts`: its own, which are the next height's too unless the block records new ones. That spares each
    block's check_tx a store seek for them; the rest goes, as the cache is bounded by what one head asks for."""
    params = cache.get(height)
    if params is None or consensus.key(height + 1) in puts:
        return {}
    return {height: params, height + 1: params}


def _check_protected(state, evm_tx):
    """Evmos' SignatureVerification: a tx without an EIP-155 chain id runs only when the evm params allow it."""
    if evm_tx.chain_id is None and not evm.allow_unprotected(state):
        raise errors.TxError(errors.SDK, 37, "rejected unprotected Ethereum transaction. Please EIP155 sign your "
                             "transaction to protect it against replay-attacks: feature not supported",
                             "rejected unprotected Ethereum transaction. Please EIP155 sign your transaction to "
                             "protect it against replay-attacks")


_ACCOUNT_ANYS_KEPT = 4096


def _touched_accounts(state):
    """The addresses whose EVM account the block changed (py-evm journals them by address until the block's
    state root is made, once, at the end of the block)."""
    return pending_trie(state)[2]


def _base_balance_mirror(accounts, addresses, denom):
    """The bank store's entries of the base denom's balances of `addresses` (held in the EVM state), so a light
    client proves them as any other balance; None for a zero balance, which the SDK does not keep. Commit only:
    the bank module itself reads the EVM balance."""
    out = []
    encoded = denom.encode()
    for address in addresses:
        amount = accounts.get_balance(address)
        out.append((bank_layout.STORE, bank_layout.balance_key(address, encoded),
                    str(amount).encode() if amount else None))
    return out


def _verify(key_type, public_key, mode, sign_bytes, signature, legacy_digest=None):
    """A key's signature of the sign bytes; an eth_secp256k1 key's amino JSON signature may also be MetaMask's,
    over the doc's EIP-712 form or its legacy form (legacy_digest(sign_bytes)), as Evmos v20's ethsecp256k1
    PubKey.VerifySignature takes them."""
    if key_type != crypto_keys.ETH_SECP256K1 or mode != signing_pb2.SIGN_MODE_LEGACY_AMINO_JSON:
        return crypto_keys.verify_signed(key_type, public_key, sign_bytes, signature)
    typed = functools.partial(_eip712_signed, public_key, sign_bytes, signature, legacy_digest)
    plain = functools.partial(crypto_keys.verify_signed, key_type, public_key, sign_bytes, signature)
    # Any form passes, so the order changes no answer, only the cost: MetaMask's signatures carry V 27/28
    # (go-ethereum's 0/1), and theirs are tried against the EIP-712 digests first.
    checks = (typed, plain) if signature[64:] in (b"\x1b", b"\x1c") else (plain, typed)
    return any(check() for check in checks)


def _eip712_signed(public_key, sign_bytes, signature, legacy_digest):
    for make in (eip712.digest, legacy_digest):
        if make is None:
            continue
        try:
            digest = make(sign_bytes)
        except eip712.TypedDataError:
            return False
        if crypto_keys.verify(public_key, digest, signature):
            return True
    return False


def _sig_verify_gas(tx):
    """The ante's signature gas, every signer's; a multisig's is each signing member's
    (ConsumeMultisignatureVerificationGas)."""
    return sum(_SIG_VERIFY_COST[s.key_type] if s.multisig is None
               else sum(_SIG_VERIFY_COST[s.multisig.members[i][0]] for i, _ in s.multisig.signed)
               for s in tx.signers)


def _missing_signature_size(tx):
    """Bytes a simulated tx's empty signatures will take once signed (the SDK's simulate mode charges a
    placeholder signature), so the gas it reports covers the signed tx; a real signature adds none."""
    return sum(crypto_keys.SIGNATURE_SIZE[s.key_type] for s in tx.signers if s.multisig is None and not s.signature)


def _check_min_gas_price(min_gas_price, denom, tx):
    """Evmos' cosmos MinGasPriceDecorator: the fee covers min_gas_price * gas (rounded up) in the EVM denom."""
    if not min_gas_price:
        return
    required = -(-min_gas_price * tx.gas // 10**18)
    if not required:
        return
    fee = [c for c in tx.fee if c[1]]
    if not fee:
        raise errors.insufficient_fee(
            "fee not provided. Please use the --fees flag or the --gas-price flag along with the --gas flag to "
            f"estimate the fee. The minimun global fee for this tx is: {required}{denom}")
    if dict(fee).get(denom, 0) < required:
        raise errors.insufficient_fee(f"provided fee < minimum global fee ({format_coins(fee)} < {required}{denom}). "
                                      "Please increase the gas price.")


def _hex(address):
    return to_checksum_address(address)
