"""py-evm's AccountDB whose account trie is read and updated through store/mpt.py (one walk over cached decoded
nodes per read, one batched update per state root) instead of py-trie; storage tries stay py-evm's.
"""

import functools

from eth.constants import BLANK_ROOT_HASH, EMPTY_SHA3
from eth.db.account import AccountDB
from eth.db.cache import CacheDB
from eth.db.journal import JournalDB
from eth.db.journal import get_next_checkpoint as next_checkpoint
from eth.rlp.accounts import Account
from eth.validation import validate_canonical_address, validate_uint64, validate_uint256
from eth.vm.interrupt import MissingBytecode
from eth_hash.auto import keccak
from eth_utils import ValidationError

from chaind.store import account_records, mpt
from chaind.store.evm_state import PREIMAGE_MARK, rlp_list

_EMPTY_ACCOUNT = Account()


class FastAccountDB(AccountDB):
    def __init__(self, db, state_root=BLANK_ROOT_HASH):
        super().__init__(db, state_root)
        # Account reads past the journal: the trie under the current root, through the node cache.
        self._trie_cache = CacheDB(_AccountReads(self))
        self._journaltrie = JournalDB(self._trie_cache)
        # {keccak(x): x} of the storage slots written since the last persist, and of the accounts given code or
        # storage: their preimages, which the tries do not keep and an export lists accounts and storage by
        # (geth's preimage store).
        self._preimages = {}
        # {address: (Account, its encoding)} as last written to the account journal (touch_account's shortcut).
        self._written = {}
        self._hexary = self._trie._db      # the HexaryTrie under the HashTrie: its root, without KeyMapDB's hop
        self.last_records = None           # (state root, {address: RLP}) of the accounts the last root changed

    @property
    def state_root(self):
        return self._hexary.root_hash

    @state_root.setter
    def state_root(self, value):
        if self._hexary.root_hash != value:
            self._trie_cache.reset_cache()
            self._hexary.root_hash = value

    def touch_account(self, address):
        """py-evm's touch (the account written back as it is), less the write when the account journal's value is
        already this account's encoding: a write of equal bytes leaves every value, revert and diff as they were.
        (Skipping the write for any loaded account changed state roots: an account read but never written is
        absent from the trie, and its touch writes it; EIP-161 then decides whether it stays.)"""
        validate_canonical_address(address, title="Storage Address")
        account = self._get_account(address)
        written = self._written.get(address)
        if (written is not None and written[0] is account
                and self._journaltrie._journal._current_values.get(address) is written[1]):
            return
        self._set_account(address, account)

    def record(self):
        """py-evm's record, each journal's checkpoint opened as Journal.record_checkpoint opens one (record_journal)."""
        checkpoint = next_checkpoint()
        record_journal(self._journaldb, checkpoint)
        record_journal(self._journaltrie, checkpoint)
        record_journal(self._journal_accessed_state, checkpoint)
        if self._dirty_accounts:
            stores = self._account_stores
            for address in self._dirty_accounts:
                stores[address].record(checkpoint)
        return checkpoint

    def commit(self, checkpoint):
        """py-evm's commit, each journal's newest checkpoint dropped without its walk (commit_journal)."""
        commit_journal(self._journaldb, checkpoint)
        commit_journal(self._journaltrie, checkpoint)
        commit_journal(self._journal_accessed_state, checkpoint)
        if self._dirty_accounts:
            stores = self._account_stores
            for address in self._dirty_accounts:
                stores[address].commit(checkpoint)

    def set_storage(self, address, slot, value):
        super().set_storage(address, slot, value)
        key = slot.to_bytes(32, "big")
        self._preimages[_slot_hash(key)] = key
        self._preimages[account_key(address)] = address

    def set_code(self, address, code):
        super().set_code(address, code)
        self._preimages[account_key(address)] = address

    def get_code(self, address):
        """py-evm's get_code less its note of the bytecodes read for a block witness (persist returns none): the note
        copied every key the state had read, on every CALL into code (issue 36); get_code_hash's own check of the
        address made once."""
        validate_canonical_address(address, title="Storage Address")
        code_hash = self._get_account(address).code_hash
        if code_hash == EMPTY_SHA3:
            return b""
        try:
            return self._journaldb[code_hash]
        except KeyError:
            raise MissingBytecode(code_hash) from KeyError

    # py-evm's rlp sedes cost more than the rest of a balance change: accounts are read and written by hand.
    def _get_account(self, address, from_journal=True):
        if from_journal and address in self._account_cache:
            return self._account_cache[address]
        account = decode_account(self._get_encoded_account(address, from_journal))
        if from_journal:
            self._account_cache[address] = account
        return account

    def _set_account(self, address, account):
        self._account_cache[address] = account
        encoded = encode_account(account)
        self._journaltrie[address] = encoded
        self._written[address] = (account, encoded)

    # py-evm's setters change one field with Account.copy, whose keyword merging and validation cost several times
    # the new Account itself: the same checks, then the Account built from its four fields.
    def set_balance(self, address, balance):
        validate_canonical_address(address, title="Storage Address")
        validate_uint256(balance, title="Account Balance")
        account = self._get_account(address)
        self._set_account(address, Account(account.nonce, balance, account.storage_root, account.code_hash))

    def set_nonce(self, address, nonce):
        validate_canonical_address(address, title="Storage Address")
        validate_uint64(nonce, title="Nonce")
        account = self._get_account(address)
        self._set_account(address, Account(nonce, account.balance, account.storage_root, account.code_hash))

    def make_state_root(self):
        for _, store in self._dirty_account_stores():
            store.make_storage_root()
        for address, storage_root in self._get_changed_roots():
            if self.account_exists(address) or storage_root != BLANK_ROOT_HASH:
                self._set_storage_root(address, storage_root)
        self._journaldb.persist()
        diff = self._journaltrie.diff()
        records = dict.fromkeys(diff.deleted_keys(), b"")
        records.update(diff.pending_items())
        if records:
            changes = {account_key(address): value for address, value in records.items()}
            root, added = mpt.update(self._batchtrie.__getitem__, self._hexary.root_hash, changes)
            # Into the batch persist() writes out, as py-trie's nodes went.
            for ref, encoded in added.items():
                self._batchtrie[ref] = encoded
            self._hexary.root_hash = root
        # What a block's writer hands to store/account_records once the block is committed.
        self.last_records = (self.state_root, records)
        self._journaltrie.reset()
        self._trie_cache.reset_cache()
        return self.state_root


    def persist(self):
        """py-evm's persist, less the witness it returns (the nodes and accounts the block read, which nothing here
        asks for) and the storage batch and checks of a block that wrote no storage. Returns None."""
        self.make_state_root()
        dirty = tuple(self._dirty_account_stores())
        if dirty:
            with self._raw_store_db.atomic_batch() as write_batch:
                for address, store in dirty:
                    self._validate_flushed_storage(address, store)
                    store.persist(write_batch)
            for address, new_root in self._get_changed_roots():
                if new_root is None:
                    raise ValidationError(f"Cannot validate new root of account 0x{address.hex()} "
                                          f"which has a new root hash of None")
                if new_root not in self._raw_store_db and new_root != BLANK_ROOT_HASH:
                    raise ValidationError("After persisting storage trie, a root node was not found. State root "
                                          f"for account 0x{address.hex()} is missing for hash 0x{new_root.hex()}.")
        self._account_stores = {}
        self._dirty_accounts = set()
        self._accessed_accounts = set()
        self._accessed_bytecodes = set()
        self._account_cache.clear()
        self._validate_generated_root()
        with self._raw_store_db.atomic_batch() as write_batch:
            self._batchtrie.commit_to(write_batch, apply_deletes=False)
            self._batchdb.commit_to(write_batch, apply_deletes=False)
            # One small put per slot (and contract) the block wrote, beside the trie nodes the write changed.
            for hashed, value in self._preimages.items():
                write_batch[PREIMAGE_MARK + hashed] = value
        self._preimages = {}
        self._written = {}
        self._root_hash_at_last_persist = self.state_root


class _AccountReads:
    """The encoded account of an address under the account DB's current root (b"" when there is none)."""

    def __init__(self, account_db):
        self._account_db = account_db

    def __getitem__(self, address):
        account_db = self._account_db
        root = account_db._hexary.root_hash
        found = account_records.get(root, address)
        if found is not None:
            return found
        return mpt.get(account_db._batchtrie.__getitem__, root, account_key(address))

    def __contains__(self, address):
        return bool(self[address])


def record_journal(journal_db, checkpoint):
    """journal_db.record(checkpoint) for a checkpoint new to it (one next_checkpoint gave): py-evm's
    Journal.record_checkpoint less its check that the checkpoint is not already there."""
    journal = journal_db._journal
    journal._journal_data[checkpoint] = {}
    journal._checkpoint_stack.append(checkpoint)


def commit_journal(journal_db, checkpoint):
    """journal_db.commit(checkpoint): when it is the newest checkpoint (a call frame's, always), dropped from the
    stack directly, as py-evm's commit_checkpoint does after walking the stack to find it."""
    stack = journal_db._journal._checkpoint_stack
    if len(stack) > 1 and stack[-1] == checkpoint:
        del stack[-1]
    else:
        journal_db.commit(checkpoint)


def decode_account(encoded):
    """The Account an account trie value holds (an empty one for b"")."""
    if not encoded:
        return Account()
    nonce, balance, storage_root, code_hash = rlp_list(encoded)
    return Account(int.from_bytes(nonce, "big"), int.from_bytes(balance, "big"), storage_root, code_hash)


def encode_account(account):
    """rlp.encode(account, sedes=Account)."""
    nonce, balance = account.nonce, account.balance
    return mpt.rlp_list_of(mpt.rlp_string(nonce.to_bytes((nonce.bit_length() + 7) // 8, "big"))
                           + mpt.rlp_string(balance.to_bytes((balance.bit_length() + 7) // 8, "big"))
                           + mpt.rlp_string(account.storage_root) + mpt.rlp_string(account.code_hash))


@functools.lru_cache(maxsize=4096)
def _slot_hash(slot):
    return keccak(slot)


@functools.lru_cache(maxsize=4096)
def account_key(address):
    """An address's key in the secure account trie (keccak costs more than the rest of a cached read)."""
    return keccak(address)
