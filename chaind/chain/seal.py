"""Sealing a block's state: the EVM state root, the stores' mirrors of native state in the SDK's layout, the app hash.

The modules place their native keys in their stores themselves (each its store_layout.py, through the multistore's
layout); here are the mirrors the app writes in the SDK's form itself: the base denom's balances (held in the EVM
state) and the accounts (whose sequence is the EVM nonce).
"""

import collections

from chaind.chain.modules.auth import account_of
from chaind.chain.modules.auth import store_layout as auth_layout
from chaind.chain.modules.bank import store_layout as bank_layout
from chaind.chain.view import StateView
from chaind.store.evm_state import pending_trie
from chaind.store.versioned import VersionedReader

_ACCOUNT_ANYS_KEPT = 4096


class Sealer:
    """Seals the blocks of `db` into `stores` (a MultiStore). auth: auth's keeper, whose accounts (its module
    accounts among them, which the first version of the stores holds) the acc store mirrors."""

    def __init__(self, db, genesis, stores, auth):
        self.db = db
        self.genesis = genesis
        self.stores = stores
        self.auth = auth
        # (address, auth record, sequence) -> the account's Any (writer only); ordered, to evict the oldest cheaply.
        self._account_anys = collections.OrderedDict()
        self.sealed_info = (None, None)     # (app hash, CommitInfo) of the state sealed last

    def seal(self, ctx, puts, head_info, amend=None):
        """The block's state roots and app hash; the IAVL nodes and commit info go into `puts`. head_info: the
        head's CommitInfo as the app keeps it, or None. `amend`: the head's CommitInfo, when a dev node changes the
        head's state in place (its version is applied again over itself, chain/devstate.py)."""
        touched = _touched_accounts(ctx.accounts)
        changes = ctx.store.changes
        if amend is None and ctx.height == self.genesis.initial_height:
            # The first version of the stores holds the genesis state too (written at the height before).
            genesis = VersionedReader(self.db, ctx.height - 1)
            changes = {**dict(genesis.iterate(b"")), **changes}
            touched |= set(self.auth.all_addresses(StateView(genesis.height, genesis, None)))
            touched |= {address for address, _ in self.auth.module_accounts.values()}
        # Read before persist: the block's accounts are still in py-evm's cache, after it only in the trie.
        direct = _base_balance_mirror(ctx.accounts, touched, self.genesis.base_denom)
        # An account's SDK record holds its sequence (the EVM nonce): new for each account the block touched.
        touched |= {address for address in map(account_of, changes) if address is not None}
        nonces = ctx.nonces = {address: ctx.accounts.get_nonce(address) for address in touched}
        ctx.accounts.persist()
        evm_root = ctx.accounts.state_root
        parent = amend or head_info
        if amend is None and (parent is None or parent.version != ctx.height - 1):
            parent = self.stores.commit_info(ctx.height - 1)
        direct += self.account_mirror(ctx, nonces, parent)
        info = self.stores.apply(parent.version if amend else ctx.height, parent, changes, evm_root, puts, direct)
        app_hash = info.hash()
        self.sealed_info = (app_hash, info)
        return {"evm_state_root": evm_root, "app_hash": app_hash}

    def account_mirror(self, ctx, nonces, parent):
        """The acc store's entries of the addresses of `nonces` ({address: its EVM nonce}) as x/auth keeps them:
        0x01 | address -> the account's Any. An Any the acc store of `parent` (a CommitInfo, or None) already holds
        is left out: x/auth sets an account when its record or sequence changes, not a transfer's recipient nor the
        fee collector each block (a new leaf version of the same value: a quarter of a transfer block's nodes)."""
        made = self._account_anys
        out = []
        for address, nonce in nonces.items():
            # An account's Any is made of its auth record and its sequence alone: most of a block's accounts (the
            # fee collector, a recipient) are written again as they were.
            memo = (address, self.auth.record(ctx, address), nonce)
            found = made.get(memo)
            if found is None:
                account = self.auth.account_any(ctx, address, nonce)
                found = made[memo] = b"" if account is None else account.SerializeToString()
                if len(made) > _ACCOUNT_ANYS_KEPT:
                    made.popitem(last=False)
            if found:
                key = auth_layout.account(address)
                if parent is None or self.stores.read(parent, auth_layout.STORE, key, False)[0] != found:
                    out.append((auth_layout.STORE, key, found))
        return out


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
