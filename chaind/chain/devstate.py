"""Dev-node changes to the chain that no tx makes: state set directly, runs of empty blocks, rewinds.

Writer thread only (the producer runs them between blocks). Each is one atomic batch through App.write,
so dev snapshots can undo it like a block.
"""

import gzip
import types
import zlib

import attrs
import orjson

from chaind.chain import block as blocks
from chaind.chain import valset
from chaind.chain.block import BlockMeta, CommittedBlock
from chaind.chain.blockstore import block_puts
from chaind.chain.modules import feemarket
from chaind.store import keys, multistore
from chaind.store.pruning import live_nodes
from chaind.store.versioned import VersionedReader

STATE_FORMAT = "chaind-state/4"   # 2: with the IAVL stores; 3: in the SDK layout of staking, auth and bank indexes;
#                                   4: distribution's records of the validators in buckets


def amend_head(app, change):
    """Apply change(ctx) to the head's state and commit it into the head, as Anvil changes its latest
    state in place: `latest` shows it at once, the block count does not move, and the next block
    builds on it. The head keeps its hash (its header holds the parent's app hash, not its own)."""
    header, meta = app.head
    # A context for height + 1 reads the head's state, writes and all; its versions are then written
    # at the head's height, over what the head wrote.
    ctx = app._context(header.height + 1, header.time_ns, meta.hash, meta.base_fee, evm_root=meta.evm_state_root)
    ctx.store.height = header.height
    result = change(ctx)
    store_puts = {}
    head_info = app.stores.commit_info(header.height)
    if head_info is None:
        # No block yet: the stores' first version (the first block's) takes the genesis state as it is then.
        ctx.accounts.persist()
        sealed = {"evm_state_root": ctx.accounts.state_root}
    else:
        # The head's version of the stores is applied again over itself: its commit info (what
        # abci_query proves against) is the amended state's.
        sealed = app._seal_state(ctx, store_puts, amend=head_info)
    meta = attrs.evolve(meta, **sealed)
    events, updates = app.finalize_info(header.height) or ((), ())
    block = CommittedBlock(header, meta, (), (), events=tuple(events), validator_updates=tuple(updates))
    puts = {**ctx.store.batch_puts(), **ctx.pending_nodes.batch_puts(), **store_puts,
            keys.block_key(header.height): block.record()}
    _note_amended(app, header.height, puts)
    app.write(puts)
    app.reload_head()
    return result


# The least time between two blocks of an empty run (a full block is 1 ms after its parent at least): Anvil
# mines such a run at the clock's time, blocks of one second sharing its timestamp, and a run of 10,000 blocks
# 1 ms apart would leave the chain 10 s ahead of the clock.
RUN_STEP_NS = 1_000


def empty_blocks(app, times_ns, proposer_address):
    """Commit blocks without txs on top of the head, one per time (at least RUN_STEP_NS apart), in one batch;
    returns them.

    They change no state, so they are written as headers alone: each keeps its parent's state roots
    and carries feemarket's block events, and its base fee follows EIP-1559 for an empty parent. No
    end blocker runs for them; the producer builds the block after such a run in full, so the
    modules' time-driven work (unbonding, ...) happens there, at the run's end time.
    """
    header, meta = app.head
    if header.height < app.genesis.initial_height:
        raise ValueError("the chain has no first block yet")
    validators = app.validator_set(header.height)
    if not (validators == app.validator_set(header.height + 1) == app.validator_set(header.height + 2)):
        # A validator set change is pending: the headers of the run would have to follow it.
        raise ValueError("the validator set is changing; mine these blocks one by one")
    validators_hash = valset.hash_of(validators)
    sets = (validators, validators_hash, validators_hash)
    # No block of the run changes the consensus params: each runs with those of the block after the head.
    params_hash = app.consensus_hash(header.height + 1)
    results_hash = app.blocks.last_results_hash(header.height, meta.hash)
    made, puts = [], {}
    view = app.view()
    fee_params = app.keepers["feemarket"].params(view)
    # Each height gets its version of the stores (abci_query proves at any height): no changes, so
    # a commit info with the head's roots, whose hash is the head's app hash.
    head_info = app.stores.commit_info(header.height)
    record, app_hash = head_info.record(), head_info.hash()
    gas_limit = app.block_gas_limit(header.height + 1)
    no_bloom = bytes(256)
    for time_ns in times_ns:
        header = app.next_header(header, meta, (), time_ns, proposer_address, results_hash, sets,
                                 min_step_ns=RUN_STEP_NS, consensus_hash=params_hash)
        base_fee = feemarket.next_base_fee(fee_params, meta.base_fee, meta.block_gas, gas_limit)
        app.stores.carry(header.height, head_info, puts, record)
        meta = BlockMeta(hash=header.hash(), num_txs=0, app_hash=app_hash, evm_state_root=meta.evm_state_root,
                         gas_limit=meta.gas_limit, gas_used=0, base_fee=base_fee, bloom=no_bloom, log_count=0,
                         size=0, block_gas=0)
        # feemarket's block events, as its end blocker gives them for a block without gas used.
        ctx = types.SimpleNamespace(events=[], base_fee=base_fee, height=header.height, gas_used=0, gas_wanted=0,
                                    tx_gas_used=0)
        feemarket.block_events(fee_params, ctx)
        block = CommittedBlock(header, meta, (), (), events=tuple(ctx.events))
        puts.update(block_puts(block, {}))
        made.append(block)
        results_hash = _EMPTY_RESULTS
    if made:
        # No end blocker ran for these blocks: a replay's full blocks come out otherwise.
        _note_amended(app, made[0].header.height, puts)
    app.write(puts)
    app.reload_head()
    return made


_EMPTY_RESULTS = blocks.results_hash([])


def _note_amended(app, height, puts):
    """Keep the first height dev methods changed in place (in `puts`, so a dev revert undoes it with them): a
    replay of the chain differs from there on, and says why (chain/replay.py)."""
    first = amended_from(app.db)
    if first is None or height < first:
        puts[keys.DEV_AMENDED] = height.to_bytes(8, "big")


def amended_from(db):
    """The first height whose state dev methods changed in place, or None."""
    value = db.get(keys.DEV_AMENDED)
    return None if value is None else int.from_bytes(value, "big")


def committed_head(app):
    """The head as a CommittedBlock, txs and results loaded, to announce it again (after a rewind)."""
    header, meta = app.head
    events, updates = app.finalize_info(header.height) or ((), ())
    return CommittedBlock(header, meta, tuple(app.tx_at(header.height, i) for i in range(meta.num_txs)),
                          tuple(app.result_at(header.height, i) for i in range(meta.num_txs)),
                          events=tuple(events), validator_updates=tuple(updates))


def rewind(app, mark):
    """Undo every batch written since undo mark `mark` (blocks, indexes, state, dev changes)."""
    app.undo.rollback(mark)
    app.reload_head()


def dump_state(app, height, progress=None):
    """The whole state at `height` (EVM trie nodes and code from its root, live native keys, the IAVL
    stores' trees) as gzipped JSON, so a fixture can be kept in a file and loaded into another dev chain.
    progress(done, None) is told the entries gathered so far, now and then, and once at the end."""
    count = _Count(progress, None)
    _, meta = app.block_at(height)
    root = meta.evm_state_root
    nodes = {}
    for node in live_nodes(app.db, [root]):
        value = app.db.get(keys.EVM_NODE + node)
        if value is not None:
            nodes[node.hex()] = value.hex()
            count.add()
    native = {}
    for key, value in VersionedReader(app.db, height).iterate(b""):
        native[key.hex()] = value.hex()
        count.add()
    info = app.stores.commit_info(height)
    stores = None
    if info is not None:
        stores = {}
        for name, store_root in info.roots:
            if name == multistore.EVM:
                continue
            records = stores[name] = {"root": store_root.hex(), "nodes": {}}
            for h, raw in app.stores.tree_nodes(info, name):
                records["nodes"][h.hex()] = raw.hex()
                count.add()
    doc = {"format": STATE_FORMAT, "chainId": app.genesis.chain_id, "height": height,
           "evmStateRoot": root.hex(), "nodes": nodes, "native": native, "stores": stores}
    blob = gzip.compress(orjson.dumps(doc), compresslevel=1)
    count.done(count.value)
    return blob


class _Count:
    """Entries done of a long import or export, told to progress(done, total) every STEP entries."""

    STEP = 4096

    def __init__(self, progress, total):
        self.progress = progress
        self.total = total
        self.value = 0

    def add(self):
        self.value += 1
        if self.progress is not None and not self.value % self.STEP:
            self.progress(self.value, self.total)

    def done(self, total):
        if self.progress is not None:
            self.progress(self.value, total)


def _entries(doc):
    stores = doc.get("stores") or {}
    return len(doc["nodes"]) + len(doc["native"]) + sum(len(store["nodes"]) for store in stores.values())


@attrs.frozen
class Dump:
    """A parsed dump_state blob. stores: {name: (root, {node hash: record})}, None when it was taken
    before the first block (the stores have no version then)."""

    evm_root: bytes
    nodes: dict
    native: dict
    stores: dict = None

    @property
    def entries(self):
        return len(self.nodes) + len(self.native) + sum(len(records) for _, records in (self.stores or {}).values())


def parse_state(blob, max_bytes, progress=None):
    """The Dump of a dump_state blob; ValueError when it is not one, or when it decompresses to more than
    `max_bytes`. progress(done, total) is told the entries decoded, now and then; load_state goes on counting
    from there to twice the entries."""
    try:
        doc = orjson.loads(_gunzip(blob, max_bytes))
        if doc.get("format") != STATE_FORMAT:
            raise ValueError(f"not a {STATE_FORMAT} dump")
        count = _Count(progress, 2 * _entries(doc))

        def decoded(pairs):
            out = {}
            for k, v in pairs.items():
                out[bytes.fromhex(k)] = bytes.fromhex(v)
                count.add()
            return out

        stores = doc["stores"]
        return Dump(bytes.fromhex(doc["evmStateRoot"]), decoded(doc["nodes"]), decoded(doc["native"]),
                    None if stores is None else {
                        name: (bytes.fromhex(store["root"]), decoded(store["nodes"]))
                        for name, store in stores.items()})
    except (OSError, EOFError, zlib.error, orjson.JSONDecodeError, KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"not a state dump: {e}") from None


_GUNZIP_PIECE = 1 << 20     # bytes inflated at a time


def _gunzip(blob, max_bytes):
    """The gzip members of `blob` decompressed; ValueError when that passes `max_bytes`. A first pass inflates a
    piece at a time and keeps nothing, so a bomb is refused having held a piece, not the limit."""
    size = _inflate(blob, max_bytes, None)
    out = bytearray()
    _inflate(blob, size, out)
    return out


def _inflate(blob, max_bytes, out):
    """The size of blob's gzip members inflated (appended to `out` unless None); ValueError beyond max_bytes."""
    size, rest = 0, blob
    while True:
        inflater = zlib.decompressobj(wbits=31)
        data = rest
        while not inflater.eof:
            piece = inflater.decompress(data, min(_GUNZIP_PIECE, max_bytes + 1 - size))
            size += len(piece)
            if size > max_bytes:
                raise ValueError(f"the dump decompresses to more than {max_bytes} bytes ([dev] max-state-bytes)")
            if out is not None:
                out += piece
            data = inflater.unconsumed_tail
            if not data and not piece:
                raise ValueError("not a state dump: truncated gzip data")
        rest = inflater.unused_data
        if not rest.startswith(b"\x1f\x8b"):
            if rest.strip(b"\x00"):
                raise ValueError("not a state dump: trailing data after the gzip stream")
            return size


def load_state(app, dump, progress=None):
    """Make the head's state the dumped one, committed into the head as amend_head does: native keys,
    EVM trie and, when the head has a version of the stores, the dumped IAVL trees as that version.
    ValueError when the dump has no stores to give that version. progress(done, total) counts on from
    parse_state's half: each entry once more as it goes into the batch."""
    entries = dump.entries
    count = _Count(progress, 2 * entries)
    count.value = entries
    header, meta = app.head
    head_info = app.stores.commit_info(header.height)
    if head_info is not None and dump.stores is None:
        raise ValueError("the dump was taken before the chain's first block: it has no IAVL stores to load "
                         "into a chain that has blocks; load it right after anvil_reset, or dump after block 1")
    ctx = app._context(header.height + 1, header.time_ns, meta.hash, meta.base_fee, evm_root=meta.evm_state_root)
    ctx.store.height = header.height
    for key, _ in list(ctx.store.iterate(b"")):
        if key not in dump.native:
            ctx.store.delete(key)
    for key, value in dump.native.items():
        ctx.store.set(key, value)
        count.add()
    puts = ctx.store.batch_puts()
    for node, value in dump.nodes.items():
        puts[keys.EVM_NODE + node] = value
        count.add()
    app_hash = meta.app_hash
    if head_info is not None:
        roots = {name: root for name, (root, _) in dump.stores.items()}
        roots[multistore.EVM] = dump.evm_root
        nodes = {name: records for name, (_, records) in dump.stores.items()}
        app_hash = app.stores.install(header.height, roots, nodes, puts).hash()
    meta = attrs.evolve(meta, evm_state_root=dump.evm_root, app_hash=app_hash)
    events, updates = app.finalize_info(header.height) or ((), ())
    block = CommittedBlock(header, meta, (), (), events=tuple(events), validator_updates=tuple(updates))
    puts[keys.block_key(header.height)] = block.record()
    _note_amended(app, header.height, puts)
    app.write(puts)
    app.reload_head()
    count.value = 2 * entries
    count.done(2 * entries)


def reset(app):
    """Back to genesis: every key goes, genesis is written again (the producer then makes block 1)."""
    app.db.write({}, list(app.db.keys(b"")))
    app.undo.clear()
    app._init_chain()
    app.reload_head()
