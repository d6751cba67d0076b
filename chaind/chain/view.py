"""A read-only view of committed state at one height: native store plus EVM accounts."""

import functools

import attrs
from eth.db.account import AccountDB
from eth.db.atomic import AtomicDB
from eth.rlp.accounts import Account
from eth_hash.auto import keccak

from chaind.store import account_records
from chaind.store.evm_state import CommittedNodes, account_leaves, pending_trie, rlp_list, trie_get, trie_values
from chaind.store.versioned import VersionedReader


class PrunedError(LookupError):
    """A read below the oldest height the node keeps."""


@attrs.frozen
class StateView:
    """What services read: `store` (native modules) and `accounts` (py-evm balances, nonces, code).

    The writer's in-progress block offers the same two attributes.
    """

    height: int
    store: object
    accounts: object
    # What whole-state reads found at this height, kept for the view's next readers (module_genesis.memoized).
    memo: dict = attrs.field(factory=dict, eq=False, repr=False)

    @classmethod
    def committed(cls, db, height, evm_state_root, cache=None):
        """The state committed at `height`; `cache`: the app's head cache, when `height` is the head."""
        return cls(height, VersionedReader(db, height, cache), CommittedAccounts(db, evm_state_root))


class CommittedAccounts(AccountDB):
    """py-evm's AccountDB over one committed state root, read-only.

    Account records are read straight from the stored trie (store.evm_state.trie_get): with no
    writes there is no journal to consult. py-evm's own machinery (journals, caches, tries), which
    costs more to set up than a balance read, is built on first use by any other method.
    """

    def __init__(self, db, state_root):
        self._db = db
        self._root = state_root

    def __getattr__(self, name):
        # Only reached for attributes AccountDB.__init__ sets: build them once, then look again.
        if name.startswith("__") or "_journaldb" in self.__dict__:
            raise AttributeError(name)
        AccountDB.__init__(self, AtomicDB(CommittedNodes(self._db)), self._root)
        return getattr(self, name)

    def all_accounts(self):
        """{account key: [nonce, balance, storage root, code hash] (RLP strings)} of every account: one walk of the
        trie (store.evm_state.account_leaves), kept for this view's next readers (an export's modules each read
        every account)."""
        found = self.__dict__.get("_leaves")
        if found is None:
            found = self.__dict__["_leaves"] = account_leaves(self._db, self._root)
        return found

    def get_balance(self, address):
        # The one field a balance read needs, without building an Account (the hot path of queries).
        items = _account_items(self._db, self._root, address)
        return int.from_bytes(items[1], "big") if items else 0

    def get_nonce(self, address):
        items = _account_items(self._db, self._root, address)
        return int.from_bytes(items[0], "big") if items else 0

    def _get_account(self, address, from_journal=True):
        encoded = self._get_encoded_account(address)
        if not encoded:
            return Account()
        nonce, balance, storage_root, code_hash = rlp_list(encoded)
        return Account(int.from_bytes(nonce, "big"), int.from_bytes(balance, "big"), storage_root, code_hash)

    def _get_encoded_account(self, address, from_journal=True):
        return trie_get(self._db, self._root, _account_key(address))

    def _set_account(self, address, account):
        raise TypeError("committed state is read-only")

    def delete_account(self, address):
        raise TypeError("committed state is read-only")


# An account's record under a state root never changes (the root is the hash of the whole state): a flat
# cache of them, as geth answers account reads from its snapshot rather than walking the trie each time.
@functools.lru_cache(maxsize=16384)
def _account_items(db, root, address):
    """(nonce, balance, storage root, code hash) as stored under `root`; () for no account."""
    encoded = account_records.get(root, address)
    if encoded is None:
        encoded = trie_get(db, root, _account_key(address))
    return tuple(rlp_list(encoded)) if encoded else ()


@functools.lru_cache(maxsize=4096)
def _account_key(address):
    """The account trie key of an address; remembered, as keccak costs more than the rest of a balance read."""
    return keccak(address)


def balances_total(accounts):
    """The sum of every account's balance in `accounts`: a committed view's, or a block's py-evm State while the
    block runs (its changed accounts are py-evm's pending trie writes, over the parent's trie)."""
    if isinstance(accounts, CommittedAccounts):
        root, get, changed = accounts._root, CommittedNodes(accounts._db).__getitem__, ()
    else:
        root, get, changed = pending_trie(accounts)
    total = sum(int.from_bytes(rlp_list(value)[1], "big") for value in trie_values(get, root))
    for address in changed:
        encoded = trie_get(None, root, keccak(address), get)
        total += accounts.get_balance(address) - (int.from_bytes(rlp_list(encoded)[1], "big") if encoded else 0)
    return total
