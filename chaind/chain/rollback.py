"""Rollback: the committed state one height back (the Cosmos SDK's `rollback`), and the kept block re-executed.

A rollback deletes what the head block's commit wrote of the state (its versions of the native keys, its IAVL
nodes, orphans and commit info, the validator sets and consensus params it set for later heights) and its
results and indexes, so the head is the height below. Its block (header, txs) is kept unless `hard`, as
CometBFT's block store keeps it: a node started on it executes it again (replay_kept_block), as CometBFT's
handshake replays a block the app lacks. Content-addressed EVM trie nodes and preimages stay (a pruning pass
collects what no root reaches).
"""

import attrs

from chaind.chain import valset
from chaind.chain.app import DecidedBlock
from chaind.chain.modules.consensus import params as consensus
from chaind.store import keys
from chaind.store.multistore import EVM


class RollbackError(RuntimeError):
    """A rollback refused; nothing was written."""


@attrs.frozen
class RolledBack:
    height: int            # the head now
    app_hash: bytes        # its app hash
    removed_block: bool    # whether a block was deleted (hard)


def rollback(app, hard=False):
    """Roll `app`'s state (a stopped node's) back one height; RolledBack. As CometBFT's RollbackState, a block kept
    by an earlier rollback above the head makes the state stay where it is (the block is deleted if `hard`)."""
    height = app.height
    kept = app.block_at(height + 1)
    if kept is not None:
        deletes = _block_keys(app, height + 1) if hard else []
        app.db.write({}, deletes)
        return RolledBack(height, app.block_at(height)[1].app_hash, hard)
    target = height - 1
    if target < app.genesis.initial_height - 1:
        raise RollbackError(f"failed to rollback CometBFT state: no block to roll back: the chain is at its "
                            f"genesis height {height}")
    oldest = app.oldest_state_height()
    if target < oldest:
        raise RollbackError(f"failed to rollback to version: version {target} is pruned (the oldest state kept is "
                            f"at height {oldest})")
    deletes = _state_keys(app, height) + _result_keys(app, height)
    if hard:
        deletes += _block_keys(app, height)
    app.db.write({keys.HEAD: keys.height_bytes(target)}, deletes)
    return RolledBack(target, app.block_at(target)[1].app_hash, hard)


def _suffix_at(db, prefix, suffix_at, width, wanted):
    """Keys under `prefix` whose `width` bytes from `suffix_at` (counted from the end) are `wanted`."""
    return [key for key in db.keys(prefix) if key[len(key) - suffix_at:len(key) - suffix_at + width] == wanted]


def _state_keys(app, height):
    db, at = app.db, keys.height_bytes(height)
    found = _suffix_at(db, keys.VERSIONED, 8, 8, keys.inverted_height(height))
    info = app.stores.commit_info(height)
    if info is not None:
        found.append(keys.COMMIT_INFO + at)
        for name, _ in info.roots:
            if name != EVM:
                found += app.stores.version_node_keys(info, name)
    found += db.keys_between(keys.IAVL_ORPHAN + at, keys.IAVL_ORPHAN + keys.height_bytes(height + 1))
    # A block sets the validators of the height two above it and the consensus params of the next one.
    found += db.keys_between(keys.VALIDATOR_SET, valset.key(height + 1))
    found += db.keys_between(keys.CONSENSUS_PARAMS, consensus.key(height))
    return found


def _result_keys(app, height):
    db, at = app.db, keys.height_bytes(height)
    found = [keys.result_key(height, index) for index in range(app.block_at(height)[1].num_txs)]
    for prefix in (keys.TX_BY_HASH, keys.EVM_TX_BY_HASH):
        found += [key for key, value in db.iterate(prefix) if value[:8] == at]
    found += [key for key, value in db.iterate(keys.EVIDENCE) if value == at]
    found += _suffix_at(db, keys.TX_EVENT, 12, 8, at)
    found += _suffix_at(db, keys.BLOCK_EVENT, 8, 8, at)
    return found


def _block_keys(app, height):
    header, meta = app.block_at(height)
    found = [keys.block_key(height), *(keys.tx_key(height, index) for index in range(meta.num_txs))]
    if meta.hash:
        found.append(keys.BLOCK_BY_HASH + meta.hash)
    return found


def replay_kept_block(app):
    """Execute and commit the block a rollback kept above the head, as its header says (time, proposer, last
    commit); the committed block, or None when there is none. RollbackError when it comes out another block."""
    height = app.height + 1
    found = app.block_at(height)
    if found is None:
        return None
    header, meta = found
    raws = [app.tx_at(height, index) for index in range(meta.num_txs)]
    last_commit, misbehavior, evidence = app.consensus_info(height)
    # A header this node made hashes to its block hash; one CometBFT decided (socket mode) is taken as given.
    decided = None if header.hash() == meta.hash else \
        DecidedBlock(height, meta.hash, header.next_validators_hash, misbehavior, last_commit)
    committed, puts = app.finalize_block(raws, header.time_ns, header.proposer_address, decided,
                                         evidence=evidence if decided is None else ())
    if committed.hash != meta.hash:
        raise RollbackError(f"the block kept at height {height} re-executes into another block: stored "
                            f"{meta.hash.hex().upper()}, made {committed.hash.hex().upper()}")
    app.commit(committed, puts)
    return committed
