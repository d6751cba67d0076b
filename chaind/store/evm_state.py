"""The py-evm account database on LevelDB: trie nodes and code are kept by hash.

Nodes are never overwritten, so the state of any kept height is read through its root.
"""

import functools

from eth.constants import BLANK_ROOT_HASH, EMPTY_SHA3
from eth.db.atomic import AtomicDB
from eth.db.backends.base import BaseDB

from chaind.store import keys


class CommittedNodes(BaseDB):
    """Trie nodes as committed on disk; read-only."""

    def __init__(self, db):
        self._db = db

    def __getitem__(self, key):
        value = self._db.get(keys.EVM_NODE + key)
        if value is None:
            raise KeyError(key)
        return value

    def _exists(self, key):
        return self._db.get(keys.EVM_NODE + key) is not None

    def __setitem__(self, key, value):
        raise TypeError("committed state is read-only")

    def __delitem__(self, key):
        raise TypeError("committed state is read-only")


class PendingNodes(CommittedNodes):
    """Nodes written while executing, held in memory on top of the committed ones.

    The block writer drains them into the block's write batch; an eth_call just drops them.
    """

    def __init__(self, db):
        super().__init__(db)
        self.written = {}

    def __getitem__(self, key):
        try:
            return self.written[key]
        except KeyError:
            return super().__getitem__(key)

    def _exists(self, key):
        return key in self.written or super()._exists(key)

    def __setitem__(self, key, value):
        self.written[key] = value

    def __delitem__(self, key):
        # Nodes are shared between heights: only a pruning pass (store/pruning.py) may delete them.
        pass

    def batch_puts(self):
        # A preimage (store/evm_accounts.py) goes under its own prefix: pruning, which deletes the nodes no kept
        # root reaches, never sees it.
        return {(keys.EVM_PREIMAGE + key[len(PREIMAGE_MARK):] if key.startswith(PREIMAGE_MARK)
                 else keys.EVM_NODE + key): value for key, value in self.written.items()}


# What a preimage is written under by the account DB: never 32 bytes long, so never a node's hash.
PREIMAGE_MARK = b"preimage:"


def account_leaves(db, root):
    """{account key: [nonce, balance, storage root, code hash] (RLP strings)} of every account in the committed state
    `root`: one walk of its trie, where reading the accounts one by one walks it from the root each time."""
    return {hashed: rlp_list(encoded) for hashed, encoded in trie_items(CommittedNodes(db).__getitem__, root)}


def contract_accounts(db, root, known=None, leaves=None):
    """[(address, nonce, storage root, code hash)] of every account with code or storage in the committed state
    `root`, by address; `known` maps account keys to the addresses the caller knows, the rest come from the
    recorded preimages (LookupError for one that has none: written before chaind recorded them). `leaves`: the
    state's account_leaves, when the caller has them."""
    known = known or {}
    out = []
    for hashed, items in (account_leaves(db, root) if leaves is None else leaves).items():
        nonce, _, storage_root, code_hash = items
        if code_hash == EMPTY_SHA3 and storage_root == BLANK_ROOT_HASH:
            continue
        address = known.get(hashed) or preimage(db, hashed)
        if address is None:
            raise LookupError(f"an account with code or storage (address hash 0x{hashed.hex()}) has no recorded "
                              "preimage: it was written before chaind kept them")
        out.append((address, int.from_bytes(nonce, "big"), storage_root, code_hash))
    return sorted(out)


def preimage(db, hashed):
    """The storage slot (32 bytes) or contract address (20) whose keccak is `hashed`, or None when it was never
    recorded (written before chaind recorded them)."""
    return db.get(keys.EVM_PREIMAGE + hashed)


def pending_trie(state):
    """(root hash of the account trie as of the last state root, a reader of its nodes, the addresses whose
    account changed since) of a block's py-evm State.

    py-evm 0.12 offers no public way to list the accounts changed since the last state root: they are the
    account trie journal's pending writes, kept by address until make_state_root (py-evm's AccountDB names;
    store/evm_accounts.FastAccountDB keeps them). This reads that journal and the State's account DB through
    those private names, which pyproject's exact py-evm pin keeps valid (tests/test_pyevm_internals.py
    fingerprints AccountDB).
    """
    account_db = state._account_db
    diff = account_db._journaltrie.diff()
    changed = set(diff.pending_keys()) | set(diff.deleted_keys())
    return account_db._trie.root_hash, account_db._raw_store_db.__getitem__, changed


def pending_state_db(db):
    """An AtomicDB for py-evm whose writes stay in memory until committed."""
    pending = PendingNodes(db)
    return pending, AtomicDB(pending)


def trie_get(db, root, key, get=None):
    """The value under `key` (already hashed, as in the secure account trie) in the committed trie `root`
    (or, with get(node hash) giving nodes, in any trie).

    b"" when absent. A direct walk over the stored RLP nodes: py-trie's generic traversal costs
    several times more per read, which dominated eth_getBalance.
    """
    if root == BLANK_ROOT_HASH:
        return b""
    path, pos, ref = key.hex(), 0, root
    while True:
        if len(ref) == 32:
            try:
                node = _stored_node(db, ref) if get is None else rlp_list(get(ref))
            except KeyError:
                raise LookupError(f"trie node 0x{ref.hex()} of state root 0x{root.hex()} is missing") from None
        elif ref:                       # a node under 32 bytes is inlined in its parent
            node = rlp_list(ref)
        else:
            return b""
        if len(node) == 17:             # branch: one child per nibble, then a value
            if pos == len(path):
                return node[16]
            ref = node[int(path[pos], 16)]
            pos += 1
            continue
        # Leaf or extension: a hex-prefix path (flag nibble: 2 = leaf, 1 = odd length), then a value or child.
        compact = node[0].hex()
        flag = int(compact[0], 16)
        segment = compact[1:] if flag & 1 else compact[2:]
        if flag & 2:
            return node[1] if path[pos:] == segment else b""
        if not path.startswith(segment, pos):
            return b""
        pos += len(segment)
        ref = node[1]


def trie_values(get, root):
    """Every value stored in the trie `root` (its leaves, in no particular order); get(node hash) gives a node."""
    if root == BLANK_ROOT_HASH:
        return
    stack = [root]
    while stack:
        ref = stack.pop()
        if len(ref) == 32:
            node = rlp_list(get(ref))
        elif ref:                       # inlined in its parent
            node = rlp_list(ref)
        else:
            continue
        if len(node) == 17:
            if node[16]:
                yield node[16]
            stack.extend(child for child in node[:16] if child)
        elif int(node[0].hex()[0], 16) & 2:
            yield node[1]
        else:
            stack.append(node[1])


def trie_items(get, root):
    """(key, value) of every leaf of the trie `root` (in no particular order): trie_values with each leaf's path."""
    if root == BLANK_ROOT_HASH:
        return
    stack = [(root, "")]
    while stack:
        ref, path = stack.pop()
        if len(ref) == 32:
            node = rlp_list(get(ref))
        elif ref:                       # inlined in its parent
            node = rlp_list(ref)
        else:
            continue
        if len(node) == 17:
            if node[16]:
                yield bytes.fromhex(path), node[16]
            stack.extend((child, path + "0123456789abcdef"[i]) for i, child in enumerate(node[:16]) if child)
            continue
        compact = node[0].hex()
        flag = int(compact[0], 16)
        segment = compact[1:] if flag & 1 else compact[2:]
        if flag & 2:
            yield bytes.fromhex(path + segment), node[1]
        else:
            stack.append((node[1], path + segment))


# A node's key is the hash of its content, so a decoded node never goes stale. The nodes near the root
# are read by every balance query of a block; decoding a 17-item branch cost more than the rest of a read.
# A branch takes about 1.5 KB decoded: 1,024 of them bound the memory to a couple of MB.
@functools.lru_cache(maxsize=1024)
def _stored_node(db, ref):
    """The items of committed trie node `ref` (a tuple); KeyError when it is not stored (not remembered)."""
    raw = db.get(keys.EVM_NODE + ref)
    if raw is None:
        raise KeyError(ref)
    return tuple(rlp_list(raw))


def rlp_list(data):
    """The items of the RLP list `data`, one level deep: strings decoded, nested lists left encoded."""
    head = data[0]
    if head < 0xc0:
        raise ValueError("RLP list expected")
    pos = 1 if head < 0xf8 else 1 + head - 0xf7
    items = []
    while pos < len(data):
        head = data[pos]
        if head < 0x80:
            items.append(data[pos:pos + 1])
            pos += 1
        elif head < 0xb8:
            end = pos + 1 + head - 0x80
            items.append(data[pos + 1:end])
            pos = end
        elif head < 0xc0:
            start = pos + 1 + head - 0xb7
            end = start + int.from_bytes(data[pos + 1:start], "big")
            items.append(data[start:end])
            pos = end
        else:
            start = pos + 1 if head < 0xf8 else pos + 1 + head - 0xf7
            end = start + (head - 0xc0 if head < 0xf8 else int.from_bytes(data[pos + 1:start], "big"))
            items.append(data[pos:end])
            pos = end
    return items
