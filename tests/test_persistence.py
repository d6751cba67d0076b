"""Persistence: a restart, or a kill -9 at any moment, keeps every committed block, receipt and state."""

import signal
import time

import pytest
import pytest_twisted

from chaind.home import Home
from contracts import INIT, RUNTIME
from crash_load import (
    MixedLoad,
    batch,
    call,
    check_seen,
    committed_chain,
    deploy,
    kill_cycles,
)
from evm_client import DEV0, OTHER, send, w3
from helpers import chaind_process, in_thread, make_node
from node_process import NodeProcess

# -- restart in process ----------------------------------------------------------------------------

def snapshot(node, contract, tx_hashes):
    """Everything a client can read about the chain so far, over JSON-RPC."""
    height = node.app.height
    calls = [("eth_blockNumber", [])]
    calls += [("eth_getBlockByNumber", [hex(h), True]) for h in range(height + 1)]
    calls += [("eth_getTransactionReceipt", [h]) for h in tx_hashes]
    for h in range(height + 1):
        calls += [("eth_getBalance", [DEV0, hex(h)]), ("eth_getBalance", [OTHER, hex(h)]),
                  ("eth_getTransactionCount", [DEV0, hex(h)]), ("eth_getCode", [contract, hex(h)]),
                  ("eth_getStorageAt", [contract, "0x0", hex(h)])]
    app_hashes = [node.app.block_at(h)[1].app_hash for h in range(height + 1)]
    return batch(node, calls), app_hashes


@pytest_twisted.inlineCallbacks
def test_restart_keeps_blocks_receipts_state_and_app_hash(tmp_path):
    node = make_node(tmp_path / "home")
    node.startService()
    try:
        web3 = w3(node)
        receipts = [(yield in_thread(send, web3, {"to": OTHER, "value": 77, "nonce": 0}))]
        receipts.append((yield in_thread(send, web3, {"data": "0x" + INIT.hex(), "gas": 200000, "nonce": 1})))
        contract = receipts[-1].contractAddress
        receipts.append((yield in_thread(send, web3, {"to": contract, "data": "0x" + (7).to_bytes(32, "big").hex(),
                                                      "gas": 100000, "nonce": 2})))
        receipts.append((yield in_thread(send, web3, {"to": OTHER, "value": 5, "nonce": 3})))
        hashes = [r.transactionHash.to_0x_hex() for r in receipts]
        before = yield in_thread(snapshot, node, contract, hashes)
    finally:
        yield node.stopService()
    again = make_node(tmp_path / "home")
    again.startService()
    try:
        after = yield in_thread(snapshot, again, contract, hashes)
        assert after == before
        reads = before[0]
        head = receipts[-1].blockNumber
        assert int(reads[0], 16) == head and reads[-1] == "0x" + (7).to_bytes(32, "big").hex()
        assert reads[-2] == "0x" + RUNTIME.hex()
        # The chain goes on from where it was.
        web3 = w3(again)
        receipt = yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": 4})
        assert receipt.blockNumber == head + 1
        assert (yield in_thread(web3.eth.get_balance, OTHER)) == 83
    finally:
        yield again.stopService()


# -- kill -9 ---------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("storage, kills", [("", 5), ("[storage]\npruning = 30\nprune-interval = 3\n", 2)],
                         ids=["archive", "pruning"])
def test_kill_9_at_random_moments_loses_nothing_committed(tmp_path, storage, kills):
    stats = kill_cycles(tmp_path, storage, kills, seed=20261122)
    assert stats["receipts"] > 20 and stats["commits"] > 3


@pytest.mark.slow
def test_sigterm_under_load_shuts_down_cleanly_and_restarts(tmp_path):
    home = tmp_path / "home"
    Home(home).init("test", dev=True)
    config = tmp_path / "chaind.toml"
    config.write_text('[chain]\nblock-interval = 0.0\n[json-rpc]\naddress = "127.0.0.1:0"\nws-address = "127.0.0.1:0"\n'
                      '[cometbft-rpc]\naddress = "127.0.0.1:0"\n[grpc]\naddress = "127.0.0.1:0"\n'
                      '[rest]\naddress = "127.0.0.1:0"\n')
    node = NodeProcess(home, config, tmp_path)
    receipts, commits = {}, {}
    try:
        ports = node.start()
        load = MixedLoad(ports, deploy(ports["json-rpc"]), receipts, commits)
        load.thread.start()
        assert load.first_seen.wait(30)
        time.sleep(0.5)
        node.stop()
        # twistd re-raises SIGTERM once shut down, so the exit status says which signal ended it.
        assert node.process.returncode in (0, -signal.SIGTERM), "".join(node.output[-30:])
        load.thread.join(30)
        assert not load.failures, load.failures
        log = "".join(node.output)
        assert "Traceback" not in log and "Unhandled" not in log, log[-3000:]
        assert "Server Shut Down." in log
        disk = committed_chain(home)
        ports = node.start()
        assert int(call(ports["json-rpc"], "eth_blockNumber"), 16) == max(disk)
        check_seen(ports, receipts, commits)
        busy = chaind_process("replay", "--home", home)
        assert busy.returncode == 1 and "is the node still running?" in busy.stderr, busy.stderr
        node.stop()
    finally:
        node.kill()
    done = chaind_process("replay", "--home", home)
    assert done.returncode == 0, done.stderr
    assert f"blocks 1..{max(disk)} replayed from genesis: every block hash and app hash matches" in done.stdout
