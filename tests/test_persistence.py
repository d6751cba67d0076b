"""Persistence: a restart, or a kill -9 at any moment, keeps every committed block, receipt and state."""

import http.client
import json
import os
import queue
import random
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
import pytest_twisted
from eth_account import Account
from eth_utils import to_checksum_address

from chaind.chain.app import App
from chaind.chain.genesis import Genesis
from chaind.home import Home
from chaind.store.db import Database

from conftest import in_thread, make_node
from contracts import INIT, RUNTIME
from evm_client import DEV0, DEV0_KEY, OTHER, post, send, w3

REPO = Path(__file__).resolve().parent.parent
TWISTD = Path(sys.executable).parent / "twistd"


def batch(node_or_port, calls, size=500):
    """Replies to (method, params) calls, in order, sent as JSON-RPC batches within the node's batch limit."""
    results = []
    for start in range(0, len(calls), size):
        payload = [{"jsonrpc": "2.0", "id": i, "method": m, "params": list(p)}
                   for i, (m, p) in enumerate(calls[start:start + size])]
        if isinstance(node_or_port, int):
            replies = _post_port(node_or_port, payload)
        else:
            _, replies = post(node_or_port, payload)
        assert isinstance(replies, list), replies
        assert all("error" not in r for r in replies), [r for r in replies if "error" in r][:3]
        results += [r["result"] for r in sorted(replies, key=lambda r: r["id"])]
    return results


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

def _post_port(port, payload, timeout=10):
    request = urllib.request.Request(f"http://127.0.0.1:{port}", data=json.dumps(payload).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


def call(port, method, *params):
    reply = _post_port(port, {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)})
    assert "error" not in reply, (method, reply)
    return reply["result"]


class NodeProcess:
    """`twistd -n chaind` as a real process, running this checkout's code."""

    def __init__(self, home, config, cwd):
        self.args = [str(TWISTD), "-n", "--pidfile=", "chaind", "--home", str(home), "--config", str(config)]
        self.cwd = cwd
        self.process = None
        self.output = []

    def start(self, timeout=60):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
        self.process = subprocess.Popen(self.args, cwd=self.cwd, env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.process.stdout, lines), daemon=True).start()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.2)
            except queue.Empty:
                if self.process.poll() is not None:
                    break
                continue
            if line is None:
                break
            found = re.search(r"json-rpc: http://127\.0\.0\.1:(\d+)", line)
            if found:
                return int(found.group(1))
        self.kill()
        raise AssertionError("node did not start:\n" + "".join(self.output[-40:]))

    def _read(self, stream, lines):
        for line in stream:
            self.output.append(line)
            lines.put(line)
        lines.put(None)

    def kill(self):
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        if self.process is not None:
            self.process.wait(timeout=30)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)


def stream_transfers(port, seen, first_seen, recipients, failures):
    """Send signed transfers and poll their receipts until the node goes away; records every receipt seen."""
    try:
        _stream(port, seen, first_seen, recipients)
    except BaseException as e:
        failures.append(e)
        raise


def _stream(port, seen, first_seen, recipients):
    nonce = int(call(port, "eth_getTransactionCount", DEV0, "latest"), 16)
    pending = []
    try:
        while True:
            while len(pending) < 8:
                tx = {"chainId": 9000, "gas": 21000, "maxFeePerGas": 10**10, "maxPriorityFeePerGas": 1,
                      "nonce": nonce, "to": recipients(nonce), "value": nonce + 1}
                signed = Account.sign_transaction(tx, DEV0_KEY)
                tx_hash = call(port, "eth_sendRawTransaction", signed.raw_transaction.to_0x_hex())
                pending.append(tx_hash)
                nonce += 1
            replies = _post_port(port, [{"jsonrpc": "2.0", "id": i, "method": "eth_getTransactionReceipt",
                                         "params": [h]} for i, h in enumerate(pending)])
            found = {pending[r["id"]]: r["result"] for r in replies if r.get("result")}
            seen.update(found)
            if found:
                first_seen.set()
            pending = [h for h in pending if h not in found]
            if not found:
                time.sleep(0.005)
    except (OSError, http.client.HTTPException):
        # The node was killed mid-request: what a client sees then is a dropped connection.
        return


def committed_chain(home):
    """{height: (block hash, app hash)} as on disk, and whether state at the head agrees with the blocks."""
    db = Database(Home(home).data_dir / "chain.db")
    try:
        app = App(db, Genesis.load(Home(home).genesis_file))
        blocks = {h: (app.block_at(h)[1].hash, app.block_at(h)[1].app_hash) for h in range(app.height + 1)}
        # Only DEV0 sends, so its nonce at the head counts every tx in every committed block.
        sent = sum(app.block_at(h)[1].num_txs for h in range(1, app.height + 1))
        assert app.view().accounts.get_nonce(bytes.fromhex(DEV0[2:])) == sent
        return blocks
    finally:
        db.close()


@pytest.mark.parametrize("storage", ["", "[storage]\npruning = 30\nprune-interval = 3\n"],
                         ids=["archive", "pruning"])
def test_kill_9_at_random_moments_loses_nothing_committed(tmp_path, storage):
    home = tmp_path / "home"
    Home(home).init("test", dev=True)
    config = tmp_path / "chaind.toml"
    config.write_text('[chain]\nblock-interval = 0.0\n[json-rpc]\naddress = "127.0.0.1:0"\nws-address = "127.0.0.1:0"\n'
                      '[cometbft-rpc]\naddress = "127.0.0.1:0"\n[grpc]\naddress = "127.0.0.1:0"\n'
                      '[rest]\naddress = "127.0.0.1:0"\n' + storage)
    rng = random.Random(20261122)
    recipients = lambda nonce: to_checksum_address((nonce % 50 + 1).to_bytes(20, "big"))  # noqa: E731
    node = NodeProcess(home, config, tmp_path)
    seen, disk = {}, {}
    try:
        for _ in range(3):
            port = node.start()
            head = int(call(port, "eth_blockNumber"), 16)
            if disk:  # (the first start makes block 1 itself)
                assert head == max(disk)
            # Every receipt seen before any kill is still served, byte for byte, in the same block.
            if seen:
                hashes = list(seen)
                assert batch(port, [("eth_getTransactionReceipt", [h]) for h in hashes]) == [seen[h] for h in hashes]
            first_seen, failures = threading.Event(), []
            client = threading.Thread(target=stream_transfers,
                                      args=(port, seen, first_seen, recipients, failures))
            client.start()
            deadline = time.monotonic() + 30
            while not first_seen.wait(0.1):
                assert not failures and client.is_alive() and time.monotonic() < deadline, failures
            time.sleep(rng.uniform(0.0, 1.5))
            node.kill()
            client.join(30)
            assert not client.is_alive() and not failures, failures
            after = committed_chain(home)
            # Blocks and app hashes committed before are unchanged; every receipt seen is on disk.
            assert {h: after[h] for h in disk} == disk
            for receipt in seen.values():
                assert after[int(receipt["blockNumber"], 16)][0].hex() == receipt["blockHash"][2:]
            disk = after
        port = node.start()
        assert int(call(port, "eth_blockNumber"), 16) == max(disk)
        hashes = list(seen)
        assert batch(port, [("eth_getTransactionReceipt", [h]) for h in hashes]) == [seen[h] for h in hashes]
        # It keeps producing blocks.
        nonce = int(call(port, "eth_getTransactionCount", DEV0, "latest"), 16)
        signed = Account.sign_transaction({"chainId": 9000, "gas": 21000, "maxFeePerGas": 10**10,
                                           "maxPriorityFeePerGas": 1, "nonce": nonce, "to": OTHER, "value": 1},
                                          DEV0_KEY)
        tx_hash = call(port, "eth_sendRawTransaction", signed.raw_transaction.to_0x_hex())
        deadline = time.monotonic() + 10
        while not (receipt := call(port, "eth_getTransactionReceipt", tx_hash)):
            assert time.monotonic() < deadline, "no new block after the restarts"
            time.sleep(0.02)
        assert int(receipt["blockNumber"], 16) == max(disk) + 1
        node.stop()
    finally:
        node.kill()
    assert len(seen) > 20
