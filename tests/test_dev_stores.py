"""The dev namespace keeps the IAVL stores with the chain: after a revert, a setter, a run of mined blocks or
a loaded dump, `abci_query prove=true` at the head proves against the head's app hash, checked here by
applying the ICS-23 ops as a light client does.
"""

import base64
import gzip
import hashlib

import orjson
import pytest_twisted
from web3 import Web3

from chaind.pb.cosmos.ics23.v1 import proofs_pb2 as ics23
from chaind.store import keys
from chaind.store.iavl.node import uvarint
from cometbft_client import abci_query, balance_key
from evm_client import DEV0, OTHER, call, error, send, w3
from helpers import in_thread, until_height


def _apply(exist):
    """The root an ICS-23 ExistenceProof (SHA-256, VAR_PROTO leaves, as IAVL and the simple tree use) gives."""
    leaf = exist.leaf
    assert (leaf.hash, leaf.prehash_key, leaf.prehash_value, leaf.length) == \
        (ics23.SHA256, ics23.NO_HASH, ics23.SHA256, ics23.VAR_PROTO)
    value = hashlib.sha256(exist.value).digest()
    node = hashlib.sha256(leaf.prefix + uvarint(len(exist.key)) + exist.key + uvarint(len(value)) + value).digest()
    for step in exist.path:
        assert step.hash == ics23.SHA256
        node = hashlib.sha256(step.prefix + node + step.suffix).digest()
    return node


@pytest_twisted.inlineCallbacks
def proven_balance(node, address, height=0):
    """(balance, the app hash its proof leads to) of `address`'s base denom from abci_query prove=true."""
    key = bytes.fromhex(balance_key(address, node.app.genesis.base_denom))
    answer = yield abci_query(node, "/store/bank/key", key, height=height)
    assert answer["code"] == 0, answer
    value = base64.b64decode(answer["value"])
    iavl, simple = [ics23.CommitmentProof.FromString(base64.b64decode(op["data"])) for op in answer["proofOps"]["ops"]]
    assert iavl.exist.key == key and iavl.exist.value == value
    assert simple.exist.key == b"bank" and simple.exist.value == _apply(iavl.exist)
    return int(value), _apply(simple.exist)


def dev0(node):
    return node.home.dev_keys()[0].address


@pytest_twisted.inlineCallbacks
def test_revert_restores_the_commit_info_and_proofs_at_the_head_verify(node):
    web3 = w3(node)
    yield in_thread(send, web3, {"to": OTHER, "value": 3, "nonce": 0})
    height, app_hash = node.app.height, node.app.head[1].app_hash
    balance, proven = yield proven_balance(node, dev0(node))
    assert proven == app_hash and balance == (yield in_thread(web3.eth.get_balance, DEV0))
    snap = yield call(node, "evm_snapshot")
    for nonce in (1, 2, 3):
        yield in_thread(send, web3, {"to": OTHER, "value": 5, "nonce": nonce})
    yield call(node, "anvil_setBalance", DEV0, hex(10**18))
    assert node.app.head[1].app_hash != app_hash
    assert (yield call(node, "evm_revert", snap)) is True
    assert node.app.height == height and node.app.head[1].app_hash == app_hash
    assert node.app.store_version().hash() == app_hash
    assert (yield proven_balance(node, dev0(node))) == (balance, app_hash)
    # The next block's header carries that app hash, as a light client checks it.
    yield call(node, "evm_mine")
    header = yield in_thread(web3.eth.get_block, height + 1)
    assert node.app.block_at(height + 1)[0].app_hash == app_hash and header.number == height + 1


@pytest_twisted.inlineCallbacks
def test_setters_amend_the_heads_store_version(node):
    web3 = w3(node)
    yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": 0})
    height = node.app.height
    target = Web3.to_checksum_address("0x" + "45" * 20)
    yield call(node, "anvil_setBalance", target, hex(777))
    assert node.app.height == height
    balance, proven = yield proven_balance(node, b"\x45" * 20)
    assert balance == 777 and proven == node.app.head[1].app_hash == node.app.store_version().hash()
    # Away and back: the nodes made again at this version have the hashes of nodes the first change
    # orphaned; they are live, so they must not be listed as orphans (pruning would drop them).
    yield call(node, "anvil_setBalance", target, hex(778))
    yield call(node, "anvil_setBalance", target, hex(777))
    assert (yield proven_balance(node, b"\x45" * 20)) == (777, node.app.head[1].app_hash)
    raw = node.app.db.get(keys.IAVL_ORPHAN + keys.height_bytes(height) + keys.compose("bank"))
    orphans = {raw[at:at + 32] for at in range(0, len(raw), 32)}
    live = {h for h, _ in node.app.stores.tree_nodes(node.app.store_version(), "bank")}
    assert orphans and not orphans & live
    yield call(node, "evm_mine")
    assert node.app.block_at(height + 1)[0].app_hash == node.app.block_at(height)[1].app_hash
    assert (yield proven_balance(node, b"\x45" * 20, height=height)) == (777, node.app.block_at(height)[1].app_hash)


@pytest_twisted.inlineCallbacks
def test_mined_runs_have_a_store_version_per_height(node):
    yield in_thread(send, w3(node), {"to": OTHER, "value": 1, "nonce": 0})
    height = node.app.height
    yield call(node, "anvil_mine", "0x64")
    assert node.app.height == height + 100
    # The first block is built in full (its begin and end blockers may change state); the run after it
    # changes nothing, so each of its heights has that block's roots and app hash.
    app_hash = node.app.block_at(height + 1)[1].app_hash
    for at in (height + 2, height + 50, height + 99):
        assert node.app.block_at(at)[1].app_hash == app_hash == node.app.store_version(at).hash()
        assert (yield proven_balance(node, dev0(node), height=at))[1] == app_hash


@pytest_twisted.inlineCallbacks
def test_a_loaded_dump_brings_its_stores(node_factory):
    first, second = node_factory("a"), node_factory("b")
    for n in (first, second):
        yield until_height(n, 1)
    yield in_thread(send, w3(first), {"to": OTHER, "value": 1, "nonce": 0})
    target = "0x" + "46" * 20
    yield call(first, "anvil_setBalance", target, hex(4242))
    dump = yield call(first, "anvil_dumpState")
    yield call(second, "anvil_mine", "0x2")     # proofs are served above height 1, as the SDK's
    assert (yield call(second, "anvil_loadState", dump)) is True
    assert second.app.store_version().hash() == second.app.head[1].app_hash == first.app.head[1].app_hash
    assert (yield proven_balance(second, b"\x46" * 20)) == (4242, second.app.head[1].app_hash)
    # The loaded stores take the next block's changes.
    receipt = yield in_thread(send, w3(second), {"to": target, "value": 8, "nonce": 1})
    assert receipt.status == 1
    assert (yield proven_balance(second, b"\x46" * 20)) == (4250, second.app.head[1].app_hash)
    # A dump without stores (taken before a first block) cannot give the head's version its trees.
    doc = orjson.loads(gzip.decompress(bytes.fromhex(dump[2:])))
    doc["stores"] = None
    bare = "0x" + gzip.compress(orjson.dumps(doc)).hex()
    err = yield error(second, "anvil_loadState", bare)
    assert err["code"] == -32602 and "before the chain's first block" in err["message"]
    assert (yield proven_balance(second, b"\x46" * 20)) == (4250, second.app.head[1].app_hash)
