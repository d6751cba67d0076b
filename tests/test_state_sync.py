"""State-sync snapshots over ABCI: a node in socket mode takes snapshots every [state-sync] snapshot-interval blocks;
a fresh node restores one through OfferSnapshot and ApplySnapshotChunk (the driver plays CometBFT's state sync),
answers as the source at that height and follows the next blocks with the same app hashes; bad offers and chunks
are refused as the SDK refuses them, and change nothing."""

import shutil
import time

import pytest
import pytest_twisted
from eth_account import Account
from web3 import Web3

import staking_msgs as m
from abci_driver import Driver, Replica
from chain_driver import contract_address
from chaind import config
from chaind.chain import txs
from chaind.home import Home
from chaind.pb.tendermint.abci import types_pb2 as pb
from chaind.store.versioned import VersionedReader
from contracts import INIT
from evm_client import OTHER, send, w3
from helpers import in_thread, make_node, until
from native_client import signed_send
from native_txs import build_native

S = 10**9
SLOT_VALUE = (0x1234).to_bytes(32, "big")


def _evm(node, who, nonce, **tx):
    key = node.dev_keys[who]
    body = {"chainId": 9000, "gas": 300000, "maxFeePerGas": 10**11, "maxPriorityFeePerGas": 1, "nonce": nonce,
            "value": 0, **tx}
    return txs.wrap_evm(Account.sign_transaction(body, key.private_key).raw_transaction, 9000,
                        node.genesis.base_denom).raw


def _delegate(node, who, operator_who):
    key, view = node.dev_keys[who], node.app.view()
    number, _ = node.app.keepers["auth"].account(view, key.address)
    msg = m.delegate(node.genesis.bech32_prefix, key.address, node.dev_keys[operator_who].address, 5 * 10**18)
    gas = 400000
    return build_native([msg], key, node.genesis.chain_id, number, view.accounts.get_nonce(key.address),
                        [(node.genesis.base_denom, 2 * node.app.next_base_fee() * gas)], gas)


def _blocks(node, contract):
    """Each block's txs, built when it is due (nonces read from the node): a contract made, its storage set,
    bank sends, a delegation."""
    yield [_evm(node, 1, 0, data=INIT), signed_send(node, 2, b"\x44" * 20, 10**15)]
    yield [_evm(node, 1, 1, to=contract, data=SLOT_VALUE), _delegate(node, 3, 0)]
    yield [_evm(node, 0, 0, to="0x" + "33" * 20, value=7)]
    yield [signed_send(node, 2, b"\x55" * 20, 3)]
    yield [_evm(node, 1, 2, to=contract, data=(0x99).to_bytes(32, "big")), signed_send(node, 4, b"\x44" * 20, 1)]
    yield [_evm(node, 0, 1, to="0x" + "33" * 20, value=9)]


def _run(port, driver, node, contract, count, first=1):
    replica = Replica(port)
    try:
        if first == 1:
            driver.handshake(replica)
        for i, raws in enumerate(_blocks(node, contract)):
            if i + 1 < first:
                continue
            if i + 1 >= first + count:
                break
            response = driver.run_block([replica], driver.decide(raws, node.genesis.genesis_time_ns + (i + 1) * S))
            assert all(r.code == 0 for r in response.tx_results), [r.log for r in response.tx_results]
            if (i + 1) % 2 == 0:
                # One snapshot is taken at a time (a height due while one is under way is skipped, as the SDK's).
                _wait_for_snapshot(node, i + 1)
    finally:
        replica.close()


def _wait_for_snapshot(node, height, deadline=30):
    stop = time.monotonic() + deadline
    while time.monotonic() < stop:
        if any(s.height == height for s in node.abci.snapshots.store.list()):
            return
        time.sleep(0.05)
    raise AssertionError(f"no snapshot of height {height}")


def _offer(replica, snapshot, app_hash, **changes):
    offered = pb.Snapshot(height=snapshot.height, format=snapshot.format, chunks=snapshot.chunks, hash=snapshot.hash,
                          metadata=snapshot.metadata)
    for name, value in changes.items():
        setattr(offered, name, value)
    return replica.query.call("offer_snapshot", pb.RequestOfferSnapshot(snapshot=offered, app_hash=app_hash)).result


def _chunk(replica, snapshot, index):
    return replica.query.call("load_snapshot_chunk", pb.RequestLoadSnapshotChunk(
        height=snapshot.height, format=snapshot.format, chunk=index)).chunk


def _apply(replica, index, chunk, sender="peer-a"):
    return replica.query.call("apply_snapshot_chunk", pb.RequestApplySnapshotChunk(index=index, chunk=chunk,
                                                                                   sender=sender))


def _state_sync(source_port, target_port, driver):
    """CometBFT's state sync, as the tests play it: the source's snapshots listed, bad offers and chunks tried
    and refused, then the newest restored chunk by chunk. Returns (the snapshot, the target's Info after)."""
    source, target = Replica(source_port), Replica(target_port)
    R, A = pb.ResponseOfferSnapshot, pb.ResponseApplySnapshotChunk
    try:
        listed = source.query.call("list_snapshots", pb.RequestListSnapshots()).snapshots
        assert [(s.height, s.format) for s in listed] == [(6, 3), (4, 3)]     # keep-recent 2: height 2's gone
        snap = listed[1]
        trusted = driver.blocks[snap.height].app_hash
        chunks = [_chunk(source, snap, i) for i in range(snap.chunks)]
        assert all(chunks)
        assert _chunk(source, snap, snap.chunks) == b""
        # Offers the SDK refuses: an unknown format, metadata that does not decode or does not match the chunks.
        assert _offer(target, snap, trusted, format=2) == R.REJECT_FORMAT
        assert _offer(target, snap, trusted, metadata=b"\xff\xff") == R.REJECT
        assert _offer(target, snap, trusted, chunks=snap.chunks + 1) == R.REJECT
        assert target.query.call("offer_snapshot", pb.RequestOfferSnapshot(app_hash=trusted)).result == R.REJECT
        # A chunk before any offer ends nothing and changes nothing.
        assert _apply(target, 0, chunks[0]).result == A.ABORT
        # A snapshot whose restored state is not the trusted app hash is refused at its end.
        assert _offer(target, snap, b"\x01" * 32) == R.ACCEPT
        for i, chunk in enumerate(chunks):
            answer = _apply(target, i, chunk)
        assert answer.result == A.ABORT
        assert target.query.call("info", pb.RequestInfo()).last_block_height == 0
        # The real one: a corrupted chunk is fetched again from another peer, then the state is whole.
        assert _offer(target, snap, trusted) == R.ACCEPT
        corrupted = bytearray(chunks[0])
        corrupted[len(corrupted) // 2] ^= 0xFF
        answer = _apply(target, 0, bytes(corrupted), sender="bad-peer")
        assert (answer.result, list(answer.refetch_chunks), list(answer.reject_senders)) == \
            (A.RETRY, [0], ["bad-peer"])
        assert target.query.call("info", pb.RequestInfo()).last_block_height == 0
        for i, chunk in enumerate(chunks):
            assert _apply(target, i, chunk).result == A.ACCEPT
        return snap, target.query.call("info", pb.RequestInfo())
    finally:
        source.close()
        target.close()


def _native(app, height):
    return dict(VersionedReader(app.db, height).iterate(b""))


@pytest_twisted.inlineCallbacks
def test_a_fresh_node_restores_a_snapshot_and_follows_the_next_blocks(tmp_path):
    Home(tmp_path / "source").init("test", dev=True)
    shutil.copytree(tmp_path / "source", tmp_path / "target")
    socket_mode = {"address": "127.0.0.1:0", "mode": "socket"}
    source = make_node(tmp_path / "source", abci=socket_mode,
                       state_sync={"snapshot_interval": 2, "snapshot_keep_recent": 2})
    target = make_node(tmp_path / "target", abci=socket_mode)
    source.startService()
    target.startService()
    try:
        driver = Driver(source.genesis.document)
        contract = Web3.to_checksum_address(contract_address(source.dev_keys[1].address, 0))
        yield in_thread(_run, source.port_of("abci"), driver, source, contract, 4)
        # The source goes on while the target syncs: the snapshot is of height 4 whatever came after.
        yield in_thread(_run, source.port_of("abci"), driver, source, contract, 2, first=5)
        snap, info = yield in_thread(_state_sync, source.port_of("abci"), target.port_of("abci"), driver)
        assert snap.height == 4
        assert (info.last_block_height, info.last_block_app_hash) == (4, driver.blocks[4].app_hash)
        # The same state at that height: every native key, the contract's storage, the EVM balances.
        assert _native(target.app, 4) == _native(source.app, 4)
        view, source_view = target.app.view(4), source.app.view(4)
        address = bytes.fromhex(contract[2:])
        assert view.accounts.get_storage(address, 0) == source_view.accounts.get_storage(address, 0) == 0x1234
        assert view.accounts.get_balance(b"\x33" * 20) == source_view.accounts.get_balance(b"\x33" * 20) == 7
        # CometBFT then hands it the blocks after the snapshot: the same app hashes as the source's.
        replica = Replica(target.port_of("abci"))
        try:
            assert (yield in_thread(driver.handshake, replica)) == 4
        finally:
            replica.close()
        assert target.app.height == 6 and target.app.head[1].app_hash == driver.blocks[6].app_hash
        assert _native(target.app, 6) == _native(source.app, 6)
        # Below the snapshot there is no state: a query there says so.
        with pytest.raises(LookupError):
            target.app.view(3)
    finally:
        yield source.stopService()
        yield target.stopService()


@pytest_twisted.inlineCallbacks
def test_the_builtin_producer_takes_snapshots_at_the_interval_and_keeps_the_recent(node_factory):
    node = node_factory(state_sync={"snapshot_interval": 2, "snapshot_keep_recent": 2})
    web3 = w3(node)

    def heights():
        return [s.height for s in node.snapshots.store.list()]
    for nonce in range(5):
        yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": nonce, "gas": 21000,
                                     "maxFeePerGas": 10**10, "maxPriorityFeePerGas": 1, "chainId": 9000})
        height = node.app.height
        if height % 2 == 0:
            # One at a time: a height due while one is under way is skipped, as the SDK skips it.
            yield until(lambda h=height: h in heights(), f"the snapshot of {height}")
    assert node.app.height == 6
    assert heights() == [6, 4]
    assert not (node.home.data_dir / "snapshots" / "2").exists()


def test_state_sync_settings_default_off_and_are_checked():
    assert config.Settings().state_sync.snapshot_interval == 0
    assert config.Settings().state_sync.snapshot_keep_recent == 2
    assert config.Settings().state_sync.max_restore_bytes == 4 << 30
    loaded = config.load(text="[state-sync]\nsnapshot-interval = 100\nsnapshot-keep-recent = 0\n"
                              "max-restore-bytes = 1048576\n")
    assert (loaded.state_sync.snapshot_interval, loaded.state_sync.snapshot_keep_recent,
            loaded.state_sync.max_restore_bytes) == (100, 0, 1 << 20)
    for bad in ("snapshot-interval = -1", "snapshot-keep-recent = -2", "max-restore-bytes = 1000"):
        with pytest.raises(config.ConfigError, match="state-sync"):
            config.load(text=f"[state-sync]\n{bad}\n")
