"""The account trie read and updated by store/mpt.py (FastAccountDB) gives py-trie's roots and values: random
batches against py-trie's HexaryTrie, and a chain's blocks against py-evm's own AccountDB."""

import collections
import os
import random

import pytest
import rlp
from eth.constants import BLANK_ROOT_HASH
from eth.db.account import AccountDB
from eth.rlp.accounts import Account
from trie import HexaryTrie

from chain_driver import Chain
from chaind.chain.modules.evm.state import NativeState
from chaind.store import mpt
from chaind.store.evm_accounts import FastAccountDB, decode_account, encode_account
from chaind.store.evm_state import rlp_list


@pytest.mark.parametrize("seed", range(6))
def test_batches_give_py_trie_roots_and_values(seed):
    rng = random.Random(seed)
    for _ in range(40):
        reference, ours, root = HexaryTrie({}), {}, BLANK_ROOT_HASH
        # Keys of one length, as in a secure trie (py-trie takes no key that is a prefix of another); short ones
        # of few distinct bytes share long prefixes, so extensions and nodes inlined in their parent show up.
        if rng.random() < 0.5:
            keys = [bytes(rng.randrange(3) for _ in range(3)) for _ in range(30)]
        else:
            keys = [os.urandom(32) for _ in range(30)]
        for _ in range(5):
            changes = _random_changes(rng, keys, 25, 0.35)
            _apply(reference, changes)
            mpt._nodes.clear()
            # Only the nodes mpt itself wrote: the new trie must be whole without py-trie's.
            root, added = mpt.update(ours.__getitem__, root, changes)
            ours.update(added)
            assert root == reference.root_hash
            mpt._nodes.clear()
            for key in keys:
                assert mpt.get(ours.__getitem__, root, key) == reference.get(key)


@pytest.mark.parametrize("seed", range(4))
def test_the_nodes_an_update_remembers_are_their_decoded_rlp(seed, monkeypatch):
    """update() remembers each node it makes with the items it built them from: those equal the decoded RLP, and
    reads and later updates through a warm cache (a small one, evicting as it goes) give py-trie's roots."""
    monkeypatch.setattr(mpt, "CACHE_NODES", 64)
    monkeypatch.setattr(mpt, "_nodes", collections.OrderedDict())
    rng = random.Random(seed)
    reference, ours, root = HexaryTrie({}), {}, BLANK_ROOT_HASH
    keys = [bytes(rng.randrange(3) for _ in range(3)) for _ in range(20)] + [os.urandom(32) for _ in range(40)]
    keys = [key for key in keys if len(key) == 32] if seed % 2 else [key for key in keys if len(key) == 3]
    for _ in range(60):
        changes = _random_changes(rng, keys, 12, 0.3)
        _apply(reference, changes)
        root, added = mpt.update(ours.__getitem__, root, changes)
        ours.update(added)
        assert root == reference.root_hash
        for ref, encoded in added.items():
            if ref in mpt._nodes:
                assert mpt._nodes[ref] == tuple(rlp_list(encoded))
        for key in keys:
            assert mpt.get(ours.__getitem__, root, key) == reference.get(key)
    assert len(mpt._nodes) <= 64


def test_missing_node_is_a_key_error():
    root, added = mpt.update({}.__getitem__, BLANK_ROOT_HASH, {os.urandom(32): b"x" * 40, os.urandom(32): b"y" * 40})
    mpt._nodes.clear()
    with pytest.raises(KeyError):
        mpt.get({}.__getitem__, root, b"\0" * 32)


def test_blocks_match_py_evm_account_db(tmp_path, monkeypatch):
    """The workload's blocks (transfers, contract deploys and writes, native sends) give the same EVM state
    roots and app hashes with py-evm's AccountDB."""
    def run(name):
        chain = Chain(tmp_path, name)
        out = []
        for step in range(8):
            block = chain.block(chain.workload(step))
            out.append((block.meta.evm_state_root, block.meta.app_hash))
        out.append(chain.reads(chain.app.height))
        chain.close()
        return out

    assert NativeState.account_db_class is FastAccountDB
    fast = run("fast")
    monkeypatch.setattr(NativeState, "account_db_class", AccountDB)
    assert run("reference") == fast


def test_accounts_encode_and_decode_as_py_evm_does():
    rng = random.Random(7)
    values = [0, 1, 0x7f, 0x80, 0xff, 0x100, 2**64, 2**256 - 1]
    for _ in range(200):
        account = Account(rng.choice(values + [rng.randrange(2**70)]), rng.choice(values + [rng.randrange(2**200)]),
                          rng.choice([BLANK_ROOT_HASH, os.urandom(32)]), os.urandom(32))
        encoded = encode_account(account)
        assert encoded == rlp.encode(account, sedes=Account)
        assert decode_account(encoded) == account
    assert decode_account(b"") == Account()


@pytest.mark.parametrize("seed", range(4))
def test_setters_give_py_evm_account_dbs_accounts_and_roots(seed):
    """FastAccountDB's set_balance and set_nonce (no Account.copy) and persist against py-evm's AccountDB over
    random changes to new and existing accounts with code and storage, across persists; out-of-range values raise
    the same ValidationError and change nothing."""
    from eth.db.atomic import AtomicDB
    from eth_utils import ValidationError

    rng = random.Random(seed)
    addresses = [os.urandom(20) for _ in range(12)]
    dbs = {kind: kind(AtomicDB()) for kind in (AccountDB, FastAccountDB)}
    values = [0, 1, 0x7f, 0x80, 2**64 - 1, 2**256 - 1]
    for _ in range(6):
        for _ in range(40):
            address, roll = rng.choice(addresses), rng.random()
            value = rng.choice(values + [rng.randrange(2**80)])
            for db in dbs.values():
                if roll < 0.35:
                    db.set_balance(address, value)
                elif roll < 0.55:
                    db.set_nonce(address, value % 2**64)
                elif roll < 0.7:
                    db.increment_nonce(address) if db.get_nonce(address) < 2**64 - 1 else None
                elif roll < 0.8:
                    db.set_code(address, bytes([value % 256]) * 3)
                elif roll < 0.9:
                    db.set_storage(address, value % 50, value)
                elif roll < 0.95:
                    db.delete_account(address)
                else:
                    for bad in (-1, 2**256):
                        with pytest.raises(ValidationError):
                            db.set_balance(address, bad)
                    with pytest.raises(ValidationError):
                        db.set_nonce(address, 2**64)
        def reads(db):
            return [(db.get_nonce(a), db.get_balance(a), db.get_code(a), [db.get_storage(a, slot) for slot in (0, 7)])
                    for a in addresses]

        assert reads(dbs[FastAccountDB]) == reads(dbs[AccountDB])
        roots = [db.make_state_root() for db in dbs.values()]
        assert roots[0] == roots[1]
        # FastAccountDB.persist (no witness; no storage batch without storage writes): the same root and reads.
        for db in dbs.values():
            db.persist()
        assert dbs[FastAccountDB].state_root == dbs[AccountDB].state_root == roots[0]
        assert reads(dbs[FastAccountDB]) == reads(dbs[AccountDB])


def test_opening_a_state_reads_and_writes_no_system_contract(tmp_path):
    """An Evmos chain has no beacon-root or block-history contract: a block's state opens without touching their
    accounts, even where their code is (py-evm's Prague state writes it again there, a change to the block)."""
    from eth.vm.forks.cancun.constants import BEACON_ROOTS_ADDRESS, BEACON_ROOTS_CONTRACT_CODE
    from eth.vm.forks.prague.constants import HISTORY_STORAGE_ADDRESS, HISTORY_STORAGE_CONTRACT_CODE

    from chain_driver import Chain
    from chaind.chain import devstate
    from chaind.store.evm_state import pending_trie

    chain = Chain(tmp_path, "chain")
    chain.block(chain.workload(0))

    def deploy(ctx):
        ctx.accounts.set_code(BEACON_ROOTS_ADDRESS, BEACON_ROOTS_CONTRACT_CODE)
        ctx.accounts.set_code(HISTORY_STORAGE_ADDRESS, HISTORY_STORAGE_CONTRACT_CODE)

    devstate.amend_head(chain.app, deploy)
    header, meta = chain.app.head
    ctx = chain.app._context(header.height + 1, header.time_ns + 10**9, b"\1" * 32, meta.base_fee,
                             evm_root=meta.evm_state_root)
    assert not pending_trie(ctx.accounts)[2]
    assert ctx.accounts.get_code(BEACON_ROOTS_ADDRESS) == BEACON_ROOTS_CONTRACT_CODE
    chain.close()


def _random_changes(rng, keys, most, deleted):
    """Fewer than `most` changes of random `keys`: b"" (a deletion) at odds `deleted`, else a value of some length."""
    return {rng.choice(keys): b"" if rng.random() < deleted else os.urandom(rng.choice([1, 5, 20, 40, 90]))
            for _ in range(rng.randrange(1, most))}


def _apply(reference, changes):
    """The changes applied to py-trie's trie, in key order."""
    for key, value in sorted(changes.items()):
        if value:
            reference[key] = value
        else:
            del reference[key]
