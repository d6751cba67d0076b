"""The committed blocks: headers, txs, results, and the indexes that find them by block hash, tx hash and evidence.

The head block's txs and results are read from memory; everything else from LevelDB, as the block's batch wrote it.
"""

from chaind.chain import block as blocks
from chaind.chain import evidence as evidence_mod
from chaind.chain import txs
from chaind.chain.block import BlockMeta, Header, TxResult
from chaind.store import eventindex, keys

_NO_HEAD_BLOCK = (None, {})


class BlockStore:
    """The blocks of `db`. `head` is the last committed (Header, BlockMeta); only the writer moves it."""

    def __init__(self, db, initial_height):
        self.db = db
        self.initial_height = initial_height
        # Set before anything reads it: App loads it from the store, or writes the genesis record, when it is built.
        self.head: tuple[Header, BlockMeta] = None  # type: ignore[assignment]
        # The last block made here and its EVM txs' positions: the receipts asked for most, read from memory.
        self._head_block = _NO_HEAD_BLOCK
        self._results_hash = (None, None)   # (block hash, its results hash) of the last finalized block

    @property
    def height(self):
        return self.head[0].height

    def set_head(self, head, block=None, evm_indexes=None):
        """Make `head` ((Header, BlockMeta)) the head; `block`, its CommittedBlock when this node made it, and
        `evm_indexes` ({EVM hash: index}) are then read from memory."""
        if block is None:
            # First: the old head's txs may be gone with it (a dev revert).
            self._head_block = _NO_HEAD_BLOCK
            self.head = head
        else:
            # After the head: a reader that finds a tx here finds its block at `latest`.
            self.head = head
            self._head_block = (block, evm_indexes)

    def load_head(self):
        """Take the head from the store (at start, and after a dev revert or load rewrote it)."""
        self.set_head(self.load(keys.height_of(self.db.get(keys.HEAD))))

    def load(self, height):
        """(Header, BlockMeta) as stored at `height`, or None."""
        raw = self.db.get(keys.block_key(height))
        return None if raw is None else blocks.load_record(raw)

    def block_at(self, height):
        """(Header, BlockMeta) at `height`, or None if there is no such block."""
        head = self.head
        if height == head[0].height:
            return head
        if height < 0:
            return None
        # A height above the cached head may already be durable (its batch is written first).
        return self.load(height)

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

    def consensus_info(self, height):
        """(last commit, misbehavior, evidence) block `height` was executed with, as its record keeps them."""
        raw = self.db.get(keys.block_key(height))
        return ((), (), ()) if raw is None else blocks.load_consensus(raw)

    def finalize_info(self, height):
        """(block events, validator updates) that FinalizeBlock at `height` returned, or None."""
        raw = self.db.get(keys.block_key(height))
        return None if raw is None else blocks.load_finalize(raw)

    def remember_results(self, block_hash, results):
        """The results of the block just finalized: the next header's last_results_hash, without reading them."""
        self._results_hash = (block_hash, blocks.results_hash(results))

    def forget_results(self):
        self._results_hash = (None, None)

    def last_results_hash(self, height, block_hash):
        """The results hash of block `height` (whose hash is `block_hash`), as the next header carries it."""
        if height < self.initial_height:
            # CometBFT's handshake gives the genesis state the Merkle root of no results (RFC 6962: SHA-256 of
            # nothing, the genesis record's app hash too), which the first block's header carries; a chain made
            # before 2026-11-28 carried an empty one in both, and keeps it.
            return self.block_at(height)[1].app_hash
        if self._results_hash[0] == block_hash:
            return self._results_hash[1]
        _, meta = self.block_at(height)
        return blocks.results_hash([self.result_at(height, i) for i in range(meta.num_txs)])


def block_puts(committed, puts, evm_hashes=None):
    """Add to `puts` the block's records and indexes (txs, results, hashes, evidence, events) and make it the head;
    returns `puts`. evm_hashes: {index: EVM hash} of the block's EVM txs that ran."""
    height = committed.height
    puts[keys.block_key(height)] = committed.record()
    if committed.hash:
        puts[keys.BLOCK_BY_HASH + committed.hash] = keys.height_bytes(height)
    for index, (raw, result) in enumerate(zip(committed.txs, committed.results, strict=True)):
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
