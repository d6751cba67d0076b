"""Dev-node changes to the chain that no tx makes: state set directly, runs of empty blocks, rewinds.

Writer thread only (the producer runs them between blocks). Each is one atomic batch through App.write,
so dev snapshots can undo it like a block.
"""

import gzip
import hashlib
import types

import attrs
import orjson

from chaind.chain import block as blocks
from chaind.chain import valset
from chaind.chain.block import CommittedBlock
from chaind.chain.modules import feemarket
from chaind.store import keys
from chaind.store.pruning import live_nodes
from chaind.store.versioned import VersionedReader

STATE_FORMAT = "chaind-state/1"


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
    sealed = app._seal_state(ctx, prev_native=meta.native_hash)
    meta = attrs.evolve(meta, **sealed)
    events, updates = app.finalize_info(header.height) or ((), ())
    block = CommittedBlock(header, meta, (), (), events=tuple(events), validator_updates=tuple(updates))
    puts = {**ctx.store.batch_puts(), **ctx.pending_nodes.batch_puts(), keys.block_key(header.height): block.record()}
    app.write(puts)
    app.reload_head()
    return result


def empty_blocks(app, times_ns, proposer_address):
    """Commit blocks without txs on top of the head, one per time, in one batch; returns them.

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
    results_hash = app._last_results_hash(header.height, meta.hash)
    made, puts = [], {}
    g = app.genesis
    for time_ns in times_ns:
        header = app.next_header(header, meta, (), time_ns, proposer_address, results_hash, sets)
        base_fee = feemarket.next_base_fee(g, meta.base_fee, meta.gas_used, g.max_gas)
        native_hash = hashlib.sha256(meta.native_hash).digest()
        meta = attrs.evolve(meta, hash=header.hash(), num_txs=0, gas_used=0, base_fee=base_fee,
                            bloom=bytes(256), log_count=0, size=0, native_hash=native_hash,
                            app_hash=hashlib.sha256(meta.evm_state_root + native_hash).digest())
        # feemarket's block events, as its end blocker gives them for a block without gas used.
        ctx = types.SimpleNamespace(events=[], base_fee=base_fee, height=header.height, gas_used=0)
        feemarket.MODULE.end_block(app, ctx)
        block = CommittedBlock(header, meta, (), (), events=tuple(ctx.events))
        puts.update(app._block_puts(block, {}))
        made.append(block)
        results_hash = _EMPTY_RESULTS
    app.write(puts)
    app.reload_head()
    return made


_EMPTY_RESULTS = blocks.results_hash([])


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


def dump_state(app, height):
    """The whole state at `height` (EVM trie nodes and code from its root, live native keys) as gzipped
    JSON, so a fixture can be kept in a file and loaded into another dev chain."""
    _, meta = app.block_at(height)
    root = meta.evm_state_root
    nodes = {}
    for node in live_nodes(app.db, [root]):
        value = app.db.get(keys.EVM_NODE + node)
        if value is not None:
            nodes[node.hex()] = value.hex()
    native = {key.hex(): value.hex() for key, value in VersionedReader(app.db, height).iterate(b"")}
    doc = {"format": STATE_FORMAT, "chainId": app.genesis.chain_id, "height": height,
           "evmStateRoot": root.hex(), "nodes": nodes, "native": native}
    return gzip.compress(orjson.dumps(doc), compresslevel=1)


def parse_state(blob):
    """(EVM root, {node: bytes}, {native key: value}) of a dump_state blob; ValueError when it is not one."""
    try:
        doc = orjson.loads(gzip.decompress(blob))
        if doc.get("format") != STATE_FORMAT:
            raise ValueError(f"not a {STATE_FORMAT} dump")
        return (bytes.fromhex(doc["evmStateRoot"]),
                {bytes.fromhex(k): bytes.fromhex(v) for k, v in doc["nodes"].items()},
                {bytes.fromhex(k): bytes.fromhex(v) for k, v in doc["native"].items()})
    except (OSError, EOFError, orjson.JSONDecodeError, KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"not a state dump: {e}") from None


def load_state(app, parsed):
    """Make the head's state the dumped one (committed into the head, as amend_head does)."""
    root, nodes, native = parsed

    def change(ctx):
        for key, _ in list(ctx.store.iterate(b"")):
            if key not in native:
                ctx.store.delete(key)
        for key, value in native.items():
            ctx.store.set(key, value)
        ctx.pending_nodes.written.update(nodes)
        # The dumped root replaces the head's: nothing to execute, so no py-evm state to persist.
        ctx.accounts = types.SimpleNamespace(persist=lambda: None, state_root=root)

    amend_head(app, change)


def reset(app):
    """Back to genesis: every key goes, genesis is written again (the producer then makes block 1)."""
    app.db.write({}, list(app.db.keys(b"")))
    app.undo.clear()
    app.init_chain()
    app.reload_head()
