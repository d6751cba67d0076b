"""The IAVL stores and the multistore app hash: iavl's hashing, the SDK's commit info, layout, pruning, old homes."""

import hashlib
import random

import orjson
import pytest
from google.protobuf import any_pb2

from chain_driver import RECIPIENTS, Chain
from chaind.chain import merkle, registry
from chaind.chain.app import App, StaleHomeError
from chaind.chain.module import stores_of
from chaind.chain.modules import auth
from chaind.chain.modules.auth import keeper as auth_keeper
from chaind.chain.modules.auth import store_layout as auth_layout
from chaind.pb.cosmos.auth.v1beta1 import auth_pb2
from chaind.pb.cosmos.bank.v1beta1 import bank_pb2
from chaind.store import keys, multistore
from chaind.store.db import Database
from chaind.store.iavl import tree as trees
from chaind.store.iavl.node import EMPTY_ROOT, from_record, varint
from chaind.store.layout import Layout


class MemoryDB(dict):
    def get(self, key):
        return dict.get(self, key)


def build(history):
    """Apply {version: {key: value or None}} in order; the root hash after each version."""
    db = MemoryDB()
    nodes = trees.NodeStore(db, b"n", trees.NodeCache(10_000))
    root, hashes = None, []
    for version, changes in history.items():
        tree = trees.MutableTree(nodes, root)
        for key, value in sorted(changes.items()):
            tree.remove(key) if value is None else tree.set(key, value)
        puts = {}
        hashes.append(tree.save(version, puts).hex())
        db.update(puts)
        root = tree.root if tree.root is None or tree.root.version is None else nodes.load(tree.root.hash)
    return hashes


def test_a_set_resuming_from_the_last_path_shapes_the_tree_as_a_set_from_the_root():
    """MutableTree.set starts below the last set's path when the key's range is there (a block's sorted keys):
    the same tree as sets that each descend from the root (a new MutableTree per key), over saved versions."""
    rng = random.Random(19)
    roots = {"resumed": None, "from the root": None}
    dbs = {name: MemoryDB() for name in roots}
    hashes = {name: [] for name in roots}
    for version in range(1, 6):
        changes = [(rng.randrange(400).to_bytes(2, "big"), rng.randbytes(2)) for _ in range(300)]
        if version % 2:
            changes.sort()
        removed = [key for key, _ in changes[::7]]
        for name in roots:
            nodes = trees.NodeStore(dbs[name], b"n", trees.NodeCache(100))
            tree = trees.MutableTree(nodes, roots[name])
            for key, value in changes:
                if name != "resumed":
                    tree = trees.MutableTree(nodes, tree.root)
                tree.set(key, value)
            for key in removed:
                tree.remove(key)
            tree.set(b"\xff\xff", b"last")
            puts = {}
            hashes[name].append(tree.save(version, puts))
            dbs[name].update(puts)
            roots[name] = nodes.load(tree.root.hash)
    assert hashes["resumed"] == hashes["from the root"]


def test_go_varint_is_zigzag():
    assert [varint(n) for n in (0, 1, -1, 63, 64, 1000)] == [b"\x00", b"\x02", b"\x01", b"\x7e", b"\x80\x01",
                                                            b"\xd0\x0f"]


def test_empty_and_single_leaf_hashes_are_iavls():
    assert build({1: {}}) == [EMPTY_ROOT.hex()] == [hashlib.sha256(b"").hexdigest()]
    # A leaf: varint height 0, size 1, version, then the key and SHA-256 of the value, each length-prefixed.
    leaf = hashlib.sha256(b"\x00\x02\x04\x01k\x20" + hashlib.sha256(b"v").digest()).hexdigest()
    assert build({2: {b"k": b"v"}}) == [leaf]


def test_rotations_removals_and_versions_give_the_same_roots_as_before():
    """Regression values of this implementation, which reproduces iavl's TestTreeHash vectors (4 versions of
    4,096 random sets, updates and removes; checked outside the suite, as the vectors need Go's math/rand)."""
    keys_ = [hashlib.sha256(b"%d" % i).digest()[:6] for i in range(300)]
    history = {1: {k: k * 2 for k in keys_[:200]},
               2: {**{k: None for k in keys_[:200:3]}, **{k: b"x" for k in keys_[200:]}},
               3: {**{k: b"y" for k in keys_[1:300:7]}, **{k: None for k in keys_[250:]}}}
    assert build(history) == ["c32980816f3e29cb24085e7c28fb28f5866b17c83d1319b74417eb255bf80364",
                              "2a5ff3a5e5932371017d9deea0671a045f7c72b6bd297ed9ab7bfbaf07183a75",
                              "07733ed46dfc6e4ec941520fcdd6b729e1d9acb87c12048f52cba693400e08aa"]


def test_app_hash_is_the_sdks_commit_info_over_the_store_roots(tmp_path):
    chain = Chain(tmp_path, "db")
    for step in range(3):
        chain.block(chain.workload(step))
    app = chain.app
    info = app.store_version()
    names = [name for name, _ in info.roots]
    assert names == sorted(names) and {"acc", "bank", "erc20", "evm", "staking"} <= set(names)
    assert info.root_of("evm") == app.head[1].evm_state_root
    # CommitInfo.Hash(): leaves are KVPair bytes (uvarint length, name, uvarint length, SHA-256 of the root).
    leaves = [bytes([len(n)]) + n.encode() + b"\x20" + hashlib.sha256(root).digest() for n, root in info.roots]
    assert merkle.root(leaves) == app.head[1].app_hash == info.hash()
    # The first block's header carries baseapp's app hash of a new chain (SHA-256 of nothing), InitChain's answer.
    assert app.block_at(chain.genesis.initial_height)[0].app_hash == hashlib.sha256(b"").digest()
    assert app.block_at(app.height)[0].app_hash == app.block_at(app.height - 1)[1].app_hash


_LAYOUT = Layout(stores_of(registry.MODULES, "chain"))


def test_place_puts_each_modules_keys_in_its_store():
    """The registry's layout puts every module's keys in the store the module declares (a module it does not
    know, in a store of its name), the special cases' keys and every other key among them, over random keys of
    every registered module."""
    rng = random.Random(15)
    stores = {m.name: m.store_name for m in registry.MODULES}
    words = ["supply", "acct", "params", "si", "missed", "ev", "val", "feepool", "hist", "start", "bal"]
    names = [m.name for m in registry.MODULES] + ["unknown"]
    for _ in range(2000):
        word = rng.choice(words)
        # slashing's missed-block keys are an address and a chunk index, bank's balances an address and a denom.
        count = 2 if word in ("missed", "bal") else rng.randrange(3)
        parts = [rng.choice(names), word] + [rng.randbytes(rng.choice((1, 8, 20))) for _ in range(count)]
        native = keys.compose(*parts)
        # A deletion: the key alone (a value would have to be the record the key names).
        assert set(_LAYOUT.place({native: None})) == {stores.get(parts[0], parts[0])}
    # Each module placed apart has its case.
    for native, where in [(keys.compose("evm", "params"), ("evmparams", b"\x03")),
                          (keys.compose("consensus", "params"), ("consensus", b"Consensus")),
                          (keys.compose("slashing", "params"), ("slashing", b"\x00")),
                          (keys.compose("evidence", "ev", b"\x07" * 32), ("evidence", b"\x00" + b"\x07" * 32)),
                          (keys.compose("bank", "supply", b"achain"), ("bank", b"\x00achain"))]:
        assert _LAYOUT.locate(native) == [where]
        assert _LAYOUT.place({native: b"v"}) == {where[0]: [(where[1], b"v")]}


def test_commit_info_hash_with_remembered_leaves_is_cometbfts_simple_root_over_random_stores():
    """CommitInfo.hash (leaf hashes remembered by store root) against merkle.root over the KVPair leaves: random
    store counts and names, most roots kept from one commit info to the next as a block keeps them."""
    rng = random.Random(11)
    names = sorted({rng.randbytes(rng.randrange(1, 12)).hex() for _ in range(60)})
    roots = {name: rng.randbytes(32) for name in names}
    for _ in range(300):
        for name in rng.sample(names, rng.randrange(4)):
            roots[name] = rng.randbytes(32)
        chosen = sorted(rng.sample(names, rng.randrange(1, 41)))
        info = multistore.CommitInfo(1, tuple((name, roots[name]) for name in chosen))
        leaves = [bytes([len(n)]) + n.encode() + b"\x20" + hashlib.sha256(roots[n]).digest() for n in chosen]
        assert info.hash() == merkle.root(leaves)


def test_bank_and_auth_keys_are_the_sdks_layout(tmp_path):
    address, denom = b"\x11" * 20, "ibc/ABC"
    native = keys.compose("bank", "bal", address, denom)
    # A balance (0x02 | len | address | denom); the SDK's address-by-denom index stays out of the tree.
    assert _LAYOUT.place({native: b"5"}) == {"bank": [(b"\x02\x14" + address + denom.encode(), b"5")]}
    assert _LAYOUT.place({native: None}) == {"bank": [(b"\x02\x14" + address + denom.encode(), None)]}
    # Denom metadata (0x01 | denom), as x/bank's Metadata proto.
    meta = {"description": "d", "denom_units": [{"denom": denom, "exponent": 0, "aliases": []}], "base": denom,
            "display": denom, "name": denom, "symbol": "ABC"}
    [(key, raw)] = _LAYOUT.place({keys.compose("bank", "meta", denom): orjson.dumps(meta)})["bank"]
    assert key == b"\x01" + denom.encode()
    assert bank_pb2.Metadata.FromString(raw) == bank_pb2.Metadata(
        description="d", denom_units=[bank_pb2.DenomUnit(denom=denom)], base=denom, display=denom, name=denom,
        symbol="ABC")
    assert _LAYOUT.locate(keys.compose("bank", "supply", denom)) == [("bank", b"\x00" + denom.encode())]
    # chaind's own account records stay out of the tree (the app writes x/auth's form), but for the index of
    # account numbers.
    record = orjson.dumps([7])
    assert _LAYOUT.place({keys.compose("auth", "acct", address): record}) == \
        {"acc": [(auth_layout.NUMBER_INDEX + (7).to_bytes(8, "big"), address)]}
    chain = Chain(tmp_path, "db")
    for step in range(3):
        chain.block(chain.workload(step))
    app = chain.app
    info, view = app.store_version(), app.view()
    holder = chain.keys[2].address
    value, _ = app.stores.read(info, "bank", b"\x02\x14" + holder + chain.ibc.encode(), False)
    assert int(value) == app.keepers["bank"].balance(view, holder, chain.ibc)
    # x/auth's account: 0x01 | address -> Any(BaseAccount), the sequence being the EVM nonce.
    for key in chain.keys[:4]:
        raw, _ = app.stores.read(info, "acc", b"\x01" + key.address, False)
        found = any_pb2.Any.FromString(raw)
        assert found.type_url == "/cosmos.auth.v1beta1.BaseAccount"
        account = auth_pb2.BaseAccount.FromString(found.value)
        assert account.address == chain.b32(key.address)
        assert (account.account_number, account.sequence) == (app.keepers["auth"].account(view, key.address)[0],
                                                                view.accounts.get_nonce(key.address))
    raw, _ = app.stores.read(info, "acc", b"\x01" + auth.FEE_COLLECTOR, False)
    assert any_pb2.Any.FromString(raw).type_url == "/cosmos.auth.v1beta1.ModuleAccount"
    # x/auth's account-number index ("accountNumber" | big-endian number -> address) and next number (0x02).
    for key in chain.keys[:4]:
        number = app.keepers["auth"].account(view, key.address)[0]
        raw, _ = app.stores.read(info, "acc", b"accountNumber" + number.to_bytes(8, "big"), False)
        assert raw == key.address
    raw, _ = app.stores.read(info, "acc", b"\x02", False)
    assert int.from_bytes(raw, "big") == int(view.store.get(auth_keeper.NEXT_NUMBER))
    # The base denom's balances (mirrored from the EVM) sit at the SDK's keys as the others do; no
    # address-by-denom index entries are written.
    raw, _ = app.stores.read(info, "bank", b"\x02\x14" + holder + chain.genesis.base_denom.encode(), False)
    assert int(raw) == app.keepers["bank"].balance(view, holder, chain.genesis.base_denom)
    for denom in (chain.ibc, chain.genesis.base_denom):
        raw, _ = app.stores.read(info, "bank", b"\x03" + denom.encode() + b"\x00\x14" + holder, False)
        assert raw is None
    # x/bank's params (0x05).
    raw, _ = app.stores.read(info, "bank", b"\x05", False)
    assert bank_pb2.Params.FromString(raw) == bank_pb2.Params(default_send_enabled=True)


def test_pruning_drops_orphaned_nodes_and_old_versions_and_keeps_proofs_of_kept_heights(tmp_path):
    chain = Chain(tmp_path, "db", pruning=4, prune_interval=4)
    for step in range(14):
        chain.block(chain.workload(step))
    app = chain.app
    assert app.stores.commit_info(3) is None and app.stores.commit_info(app.oldest_state_height()) is not None
    horizon = keys.height_of(chain.db.get(keys.PRUNED_BELOW))
    orphans = [keys.height_of(k[len(keys.IAVL_ORPHAN):len(keys.IAVL_ORPHAN) + 8])
               for k in chain.db.keys(keys.IAVL_ORPHAN)]
    assert orphans and min(orphans) > horizon
    holder = chain.keys[2].address
    for height in range(app.oldest_state_height(), app.height + 1):
        info = app.store_version(height)
        value, ops = app.stores.read(info, "bank", b"\x02\x14" + holder + chain.ibc.encode(), True)
        assert [op[0] for op in ops] == ["ics23:iavl", "ics23:simple"]
        assert (int(value) if value else 0) == app.keepers["bank"].balance(app.view(height), holder, chain.ibc)


@pytest.mark.parametrize("written, why", [
    (None, "older chaind.*start a new chain"),
    (b"3", "staking's records.*slashing's missed blocks in another layout .*start a new chain"),
    (b"4", "validator's running rewards under a key of its own.*start a new chain"),
    (b"5", "every account a block touched in the acc store again.*start a new chain"),
], ids=["before the multistore", "before the SDK layout of staking", "before distribution's buckets",
        "before accounts set only when changed"])
def test_a_home_of_an_older_state_format_is_refused_with_what_to_do(tmp_path, written, why):
    chain = Chain(tmp_path, "db")
    chain.block(chain.workload(0))
    if written is None:
        chain.db.write({}, [keys.STATE_FORMAT])
    else:
        chain.db.write({keys.STATE_FORMAT: written}, [])
    chain.close()
    db = Database(tmp_path / "db")
    try:
        with pytest.raises(StaleHomeError, match=why):
            App(db, chain.genesis)
    finally:
        db.close()


def test_a_block_sets_in_the_acc_store_only_the_accounts_whose_record_or_sequence_it_changed(tmp_path):
    chain = Chain(tmp_path, "db")
    chain.block(chain.workload(0))
    # The recipient's account is made by the first transfer, so set then; the second changes only the sender's.
    sender, recipient = chain.keys[0].address, RECIPIENTS[0]
    chain.block([chain.evm(0, 0, to=recipient, value=1)])
    app = chain.app
    assert _accounts_set(app) == {sender, recipient}
    chain.block([chain.evm(0, 1, to=recipient, value=1)])
    assert _accounts_set(app) == {sender}
    raw, _ = app.stores.read(app.store_version(), "acc", b"\x01" + sender, False)
    assert auth_pb2.BaseAccount.FromString(any_pb2.Any.FromString(raw).value).sequence == 2
    # The recipient's and the fee collector's accounts read as before, from their older leaves.
    for address in (recipient, auth.FEE_COLLECTOR):
        raw, _ = app.stores.read(app.store_version(), "acc", b"\x01" + address, False)
        assert raw == app.stores.read(app.store_version(app.height - 1), "acc", b"\x01" + address, False)[0]


def _accounts_set(app):
    """The addresses whose x/auth account (0x01 | address) the head's block set in the acc store."""
    info = app.store_version()
    nodes = app.stores.nodes("acc")
    leaves = [from_record(key[len(nodes.prefix):], app.db.get(key))
              for key in app.stores.version_node_keys(info, "acc")]
    return {leaf.key[1:] for leaf in leaves if not leaf.height and leaf.key[:1] == b"\x01"}


def test_the_base_denoms_balances_are_mirrored_from_the_evm_state(tmp_path):
    chain = Chain(tmp_path, "db")
    base = chain.genesis.base_denom
    for step in range(4):
        chain.block(chain.workload(step))
        app = chain.app
        info, view = app.store_version(), app.view()
        # Genesis holders (the first block carries the genesis state), senders, recipients, the fee collector.
        module_accounts = [address for address, _ in app.module_accounts.values()]
        for address in [k.address for k in chain.keys[:5]] + RECIPIENTS + module_accounts:
            value, _ = app.stores.read(info, "bank", b"\x02\x14" + address + base.encode(), False)
            assert (int(value) if value else 0) == view.accounts.get_balance(address)



def test_a_commit_drops_the_nodes_it_orphaned_from_the_node_cache_and_old_versions_still_read(tmp_path):
    db = MemoryDB()
    stores = multistore.MultiStore(db, 10_000, 100)
    module_keys = [keys.compose("toy", b"%03d" % i) for i in range(200)]
    infos, parent = [], None
    for version, value in ((1, b"a"), (2, b"b")):
        puts = {}
        # Version 2 rewrites every other key: the leaves and the paths above them are orphaned.
        changed = module_keys if version == 1 else module_keys[::2]
        parent = stores.apply(version, parent, {k: value for k in changed}, EMPTY_ROOT, puts)
        db.update(puts)
        infos.append(parent)
    cached = stores.nodes("toy").cache
    live = {node_hash for node_hash, _ in stores.tree_nodes(infos[1], "toy")}
    orphans = db[keys.IAVL_ORPHAN + keys.height_bytes(2) + keys.compose("toy")]
    orphaned = {orphans[at:at + 32] for at in range(0, len(orphans), 32)}
    assert len(orphaned) > 100 and not orphaned & live
    assert all(cached.get(h) is not None for h in live)
    assert all(cached.get(h) is None for h in orphaned)
    # Version 1 is still whole: its nodes come from the database again.
    assert stores.read(infos[0], "toy", b"\x03" + b"001", False)[0] == b"a"
    assert stores.read(infos[1], "toy", b"\x03" + b"001", False)[0] == b"a"
    assert stores.read(infos[1], "toy", b"\x03" + b"000", False)[0] == b"b"
