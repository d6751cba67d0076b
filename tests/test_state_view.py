"""Committed-state reads: the direct trie walk agrees with py-trie, and a committed view refuses writes."""

import os
import random

import pytest
from trie import HexaryTrie

from chaind.store import keys
from chaind.store.db import Database
from chaind.store.evm_state import trie_get
from helpers import make_node


def test_trie_walk_matches_py_trie(tmp_path):
    rng = random.Random(7)
    nodes = {}
    trie = HexaryTrie(nodes)
    entries = {os.urandom(32): os.urandom(rng.choice((1, 5, 40, 100))) for _ in range(300)}
    # Keys sharing long prefixes make extension nodes; short values near the leaves make inlined nodes.
    base = os.urandom(30)
    entries.update({base + bytes([0, i]): bytes([i + 1]) for i in range(4)})
    entries.update({b"\x12\x34": b"short", b"\x12\x34\x56": b"value in a branch"})
    for key, value in entries.items():
        trie[key] = value
    db = Database(tmp_path / "db")
    db.write({keys.EVM_NODE + h: v for h, v in nodes.items()})
    try:
        for key, value in entries.items():
            assert trie_get(db, trie.root_hash, key) == value
        for key in (os.urandom(32), base + b"\x00\x09", base + b"\x01\x00", b"\x12", b"\x12\x34\x56\x78"):
            assert trie_get(db, trie.root_hash, key) == trie.get(key) == b""
        with pytest.raises(LookupError, match="missing"):
            trie_get(db, b"\x01" * 32, os.urandom(32))
    finally:
        db.close()


def test_committed_view_reads_accounts_and_refuses_writes(tmp_path):
    node = make_node(tmp_path / "home")
    try:
        accounts = node.app.view().accounts
        dev0 = node.dev_keys[0].address
        assert accounts.get_balance(dev0) == 10**26 and accounts.get_nonce(dev0) == 0
        assert accounts.get_code(dev0) == b"" and accounts.get_storage(dev0, 0) == 0
        assert accounts.get_balance(b"\x99" * 20) == 0 and not accounts.account_exists(b"\x99" * 20)
        with pytest.raises(TypeError, match="read-only"):
            accounts.set_balance(dev0, 1)
        with pytest.raises(TypeError, match="read-only"):
            accounts.delete_account(dev0)
    finally:
        node.db.close()
