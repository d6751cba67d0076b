"""Garbage collection for a pruning node: delete the state that no kept height can read any more.

Blocks, txs, results and hash indexes are history and stay; only native versions and EVM trie nodes go.

How, and why this way:

- Native state (`v:` key + inverted height): a read at height h takes the newest version at or below h.
  For a horizon H (the lowest height still kept), each key needs its versions above H plus the newest
  one at or below H, and not even that one when it is a tombstone. Older versions are deleted. One
  ordered scan of `v:` finds them, since a key's versions sort together, newest first.
- EVM state (`s:` + hash: trie nodes and contract code, content-addressed and shared between heights
  and between accounts): mark and sweep. Mark walks the account trie from the state root of every kept
  height, into each account's storage trie and code, skipping subtrees already marked; sweep deletes
  every `s:` key left unmarked. Reference counting was the alternative: cheaper per pass, but a count per
  node costs extra writes on every block, must stay exact across crashes, and has to be rebuilt by this
  very walk whenever pruning is switched on for an existing archive. Mark and sweep needs no bookkeeping
  and its correctness rests on one thing only: decoding the nodes a kept root reaches. Its cost is a walk
  of the live state per pass, so it runs every `prune-interval` blocks, not on each one.

The caller (App.commit, on the writer thread) runs `collect_garbage` between blocks, so no block is half
written meanwhile; the deletions and the new horizon go in one write batch, so a crash leaves either
all of a pass or none of it.
"""

import struct

import attrs
from eth.constants import BLANK_ROOT_HASH, EMPTY_SHA3
from eth_utils import keccak

from chaind.store import keys

_INVERTED = struct.Struct(">Q")
_MAX = 2**64 - 1
_LIVE = 0x01
# Hashes py-evm resolves without reading the database, so they may never have been stored.
_IMPLICIT = {BLANK_ROOT_HASH, EMPTY_SHA3}


class PruneError(RuntimeError):
    """A kept state root reaches a node that is not on disk; nothing is deleted."""


@attrs.frozen
class PruneStats:
    horizon: int
    versions_deleted: int
    nodes_kept: int
    nodes_deleted: int
    store_keys_deleted: int = 0


def collect_garbage(db, horizon, state_roots, store_deletes=()):
    """Delete what no read at a height >= `horizon` needs; `state_roots` are those heights' EVM roots,
    `store_deletes` the IAVL stores' keys below the horizon (MultiStore.prune)."""
    deletes = list(stale_versions(db, horizon))
    versions = len(deletes)
    live = live_nodes(db, state_roots)
    node_prefix = len(keys.EVM_NODE)
    deletes += [key for key in db.keys(keys.EVM_NODE) if key[node_prefix:] not in live]
    nodes_deleted = len(deletes) - versions
    deletes += store_deletes
    db.write({keys.PRUNED_BELOW: keys.height_bytes(horizon)}, deletes)
    return PruneStats(horizon, versions, len(live), nodes_deleted, len(store_deletes))


def stale_versions(db, horizon):
    """Keys of native versions that no read at a height >= `horizon` reaches."""
    current, floor_found = None, False
    start = len(keys.VERSIONED)
    for full, value in db.iterate(keys.VERSIONED):
        key, height = full[start:-8], _MAX - _INVERTED.unpack(full[-8:])[0]
        if key != current:
            current, floor_found = key, False
        if height > horizon:
            continue
        if floor_found:
            yield full
            continue
        floor_found = True
        # The floor version answers every read at or above the horizon; a tombstone answers as absence does.
        if value[0] != _LIVE:
            yield full


def live_nodes(db, state_roots, verify=False):
    """Hashes of every trie node and code blob reachable from `state_roots`. `verify`: check each one's keccak is
    its hash (what a state-sync restore was given by a peer)."""
    live, expanded = set(), set()
    tries, codes = list(state_roots), []

    def load(ref):
        raw = db.get(keys.EVM_NODE + ref)
        if raw is None and ref not in _IMPLICIT:
            raise PruneError(f"state node 0x{ref.hex()} is missing")
        if raw is not None:
            if verify and keccak(raw) != ref:
                raise PruneError(f"state node 0x{ref.hex()} holds bytes of another hash")
            live.add(ref)
        return raw

    while tries or codes:
        while codes:
            load(codes.pop())
        if not tries:
            break
        ref = tries.pop()
        # Code and a node with the same bytes share a hash: expand each node once, whichever way it came.
        if ref in expanded:
            continue
        expanded.add(ref)
        raw = load(ref)
        if raw is not None:
            try:
                _children(_decode(raw), tries, codes)
            except (IndexError, ValueError) as e:
                raise PruneError(f"state node 0x{ref.hex()} does not decode: {e}") from None
    return live


def _decode(data):
    """rlp.decode of a trie node, without its checks of canonical form (a walk only looks for the children, and
    pyrlp's decoder was most of its time); ValueError or IndexError for bytes that are not one RLP item."""
    item, end = _item(data, 0)
    if end != len(data):
        raise ValueError(f"{len(data) - end} bytes after the RLP item")
    return item


def _item(data, at):
    """The RLP item at `at` of `data` (bytes, or a list of items) and the position after it."""
    first = data[at]
    if first < 0x80:
        return data[at:at + 1], at + 1
    if first < 0xB8:
        start = at + 1
        end = start + first - 0x80
    elif first < 0xC0:
        start = at + 1 + first - 0xB7
        end = start + int.from_bytes(data[at + 1:start], "big")
    else:
        if first < 0xF8:
            start = at + 1
            end = start + first - 0xC0
        else:
            start = at + 1 + first - 0xF7
            end = start + int.from_bytes(data[at + 1:start], "big")
        if end > len(data):
            raise ValueError("an RLP list runs past the end")
        out = []
        while start < end:
            child, start = _item(data, start)
            out.append(child)
        if start != end:
            raise ValueError("an RLP list's items run past its length")
        return out, end
    if end > len(data):
        raise ValueError("an RLP string runs past the end")
    return data[start:end], end


def _children(node, tries, codes):
    """Push the hashed children of a decoded node; nodes under 32 bytes are inlined and walked here."""
    if not node:
        return
    if len(node) == 17:
        for child in node[:16]:
            _ref(child, tries, codes)
        _value(node[16], tries, codes)
        return
    path, second = node
    if path[0] >> 4 & 2:    # hex-prefix flag: leaf
        _value(second, tries, codes)
    else:
        _ref(second, tries, codes)


def _ref(child, tries, codes):
    if isinstance(child, list):
        _children(child, tries, codes)
    elif len(child) == 32:
        tries.append(child)


def _value(value, tries, codes):
    """An account leaf (an RLP list) leads to its storage trie and code; a storage value leads nowhere."""
    if not value or value[0] < 0xC0:
        return
    _nonce, _balance, storage_root, code_hash = _decode(value)
    tries.append(storage_root)
    codes.append(code_hash)
