"""Persistence: a restart, or a kill -9 at any moment, keeps every committed block, receipt and state."""

import base64
import hashlib
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
from cryptography.hazmat.primitives.asymmetric import ed25519
from eth_account import Account
from eth_utils import to_checksum_address

from chaind.chain import txs
from chaind.chain.app import App
from chaind.chain.genesis import Genesis
from chaind.chain.replay import replay_chain
from chaind.crypto.addresses import to_bech32
from chaind.crypto.keys import AccountKey
from chaind.home import Home
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.store.db import Database
from contracts import INIT, RUNTIME
from evm_client import DEV0, DEV0_KEY, OTHER, post, send, w3
from helpers import in_thread, make_node

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
        deadline, ports = time.monotonic() + timeout, {}
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.2)
            except queue.Empty:
                if self.process.poll() is not None:
                    break
                continue
            if line is None:
                break
            found = re.match(r"([a-z-]+): [a-z+]+://127\.0\.0\.1:(\d+)", line)
            if found:
                ports[found.group(1)] = int(found.group(2))
            if "json-rpc namespaces:" in line:      # the banner names every face before this line
                return ports
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


class MixedLoad:
    """A client sending EVM transfers (dev0), contract calls (dev1) and native sends (dev2, with
    broadcast_tx_commit on 26657) until the node goes away; it records every result it saw."""

    def __init__(self, ports, contract, receipts, commits):
        self.ports, self.contract = ports, contract
        self.receipts, self.commits = receipts, commits    # what the client saw, by hash
        self.first_seen, self.failures = threading.Event(), []
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        try:
            self._load()
        except (OSError, http.client.HTTPException):
            return      # the node was killed mid-request: a client sees a dropped connection
        except BaseException as e:  # noqa: BLE001 (the load thread's error, of any kind, fails the test)
            self.failures.append(e)

    def _load(self):
        port, comet = self.ports["json-rpc"], self.ports["cometbft"]
        nonces = {who: int(call(port, "eth_getTransactionCount", DEVS[who][0], "latest"), 16) for who in DEVS}
        pending, step = [], 0
        while True:
            while len(pending) < 8:
                step += 1
                kind = ("transfer", "call", "native")[step % 3]
                who = {"transfer": 0, "call": 1, "native": 2}[kind]
                if kind == "native":
                    tx_hash, result = broadcast_commit(comet, native_send(nonces[2], step))
                    nonces[2] += 1
                    if result is not None:
                        self.commits[tx_hash] = result
                        self.first_seen.set()
                    continue
                tx = {"chainId": 9000, "gas": 100000, "maxFeePerGas": 10**10, "maxPriorityFeePerGas": 1,
                      "nonce": nonces[who]}
                tx.update({"to": RECIPIENT(step), "value": step} if kind == "transfer" else
                          {"to": self.contract, "data": (step % 7 + 1).to_bytes(32, "big")})
                signed = Account.sign_transaction(tx, DEVS[who][1])
                pending.append(call(port, "eth_sendRawTransaction", signed.raw_transaction.to_0x_hex()))
                nonces[who] += 1
            replies = _post_port(port, [{"jsonrpc": "2.0", "id": i, "method": "eth_getTransactionReceipt",
                                         "params": [h]} for i, h in enumerate(pending)])
            found = {pending[r["id"]]: r["result"] for r in replies if r.get("result")}
            self.receipts.update(found)
            if found:
                self.first_seen.set()
            pending = [h for h in pending if h not in found]
            if not found:
                time.sleep(0.005)


DEVS = {i: (Account.from_key(k).address, k) for i, k in enumerate([
    DEV0_KEY, "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
    "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"])}
RECIPIENT = lambda n: to_checksum_address((n % 50 + 1).to_bytes(20, "big"))  # noqa: E731
IBC = "ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2"
DEV2_ACCOUNT_NUMBER = 2     # accounts are numbered in genesis balance order


def native_send(sequence, step):
    key = AccountKey(bytes.fromhex(DEVS[2][1][2:]))
    msg = bank_tx.MsgSend(from_address=to_bech32("chain", key.address),
                          to_address=to_bech32("chain", bytes.fromhex(RECIPIENT(step)[2:])),
                          amount=[coin_pb2.Coin(denom=IBC, amount=str(step))])
    return txs.build_native([(txs.MSG_SEND, msg)], key, "chain_9000-1", DEV2_ACCOUNT_NUMBER, sequence,
                            [("achain", 200000 * 10**10)], 200000)


def broadcast_commit(port, raw):
    """(tx hash, the committed tx_result) as broadcast_tx_commit answers; result None if not committed."""
    reply = _post_comet(port, "broadcast_tx_commit", {"tx": base64.b64encode(raw).decode()})
    result = reply["result"]
    assert result["check_tx"]["code"] == 0, result
    if result["tx_result"]["code"] != 0 or result["height"] == "0":
        return result["hash"], None
    return result["hash"], {"height": result["height"], "tx_result": result["tx_result"]}


def _post_comet(port, method, params, timeout=10):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/", headers={"content-type": "application/json"},
                                     data=json.dumps({"jsonrpc": "2.0", "id": 1, "method": method,
                                                      "params": params}).encode())
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


def check_seen(ports, receipts, commits):
    """Every receipt and broadcast_tx_commit result a client saw is served again, the same."""
    hashes = list(receipts)
    assert batch(ports["json-rpc"], [("eth_getTransactionReceipt", [h]) for h in hashes]) == \
        [receipts[h] for h in hashes]
    for tx_hash, seen in commits.items():
        # Over JSON-RPC, CometBFT takes bytes as base64.
        found = _post_comet(ports["cometbft"], "tx", {"hash": base64.b64encode(bytes.fromhex(tx_hash)).decode()})
        found = found["result"]
        assert {"height": found["height"], "tx_result": found["tx_result"]} == seen, tx_hash


def committed_chain(home):
    """{height: (block hash, app hash)} as on disk; checks heights are contiguous."""
    db = Database(Home(home).data_dir / "chain.db")
    try:
        app = App(db, Genesis.load(Home(home).genesis_file))
        blocks = {h: (app.block_at(h)[1].hash, app.block_at(h)[1].app_hash) for h in range(app.height + 1)}
        assert app.block_at(app.height + 1) is None
        return blocks
    finally:
        db.close()


def replay_from_genesis(home, target):
    """Replays the stored chain into a new store: every block and app hash must come out the same."""
    h = Home(home)
    db = Database(h.data_dir / "chain.db")
    try:
        source = App(db, Genesis.load(h.genesis_file))
        key = ed25519.Ed25519PrivateKey.from_private_bytes(h.validator_key())
        address = hashlib.sha256(source.genesis.validators[0].consensus_pubkey).digest()[:20]
        return replay_chain(source, target, key, address)
    finally:
        db.close()


@pytest.mark.slow
@pytest.mark.parametrize("storage, kills", [("", 5), ("[storage]\npruning = 30\nprune-interval = 3\n", 2)],
                         ids=["archive", "pruning"])
def test_kill_9_at_random_moments_loses_nothing_committed(tmp_path, storage, kills):
    stats = kill_cycles(tmp_path, storage, kills, seed=20261122)
    assert stats["receipts"] > 20 and stats["commits"] > 3


def kill_cycles(tmp_path, storage, kills, seed):
    """Mixed load, SIGKILL at random moments `kills` times, restart and check each time, then replay
    the whole chain from genesis. Returns figures (bench/crash_run.py runs it 50 times over)."""
    home = tmp_path / "home"
    Home(home).init("test", dev=True)
    config = tmp_path / "chaind.toml"
    config.write_text('[chain]\nblock-interval = 0.0\n[json-rpc]\naddress = "127.0.0.1:0"\nws-address = "127.0.0.1:0"\n'
                      '[cometbft-rpc]\naddress = "127.0.0.1:0"\n[grpc]\naddress = "127.0.0.1:0"\n'
                      '[rest]\naddress = "127.0.0.1:0"\n' + storage)
    rng = random.Random(seed)
    node = NodeProcess(home, config, tmp_path)
    receipts, commits, disk, restarts = {}, {}, {}, []
    try:
        ports = node.start()
        contract = deploy(ports["json-rpc"])
        for _ in range(kills):
            head = int(call(ports["json-rpc"], "eth_blockNumber"), 16)
            if disk:
                assert head == max(disk)
            check_seen(ports, receipts, commits)
            load = MixedLoad(ports, contract, receipts, commits)
            load.thread.start()
            deadline = time.monotonic() + 30
            while not load.first_seen.wait(0.1):
                assert not load.failures and load.thread.is_alive() and time.monotonic() < deadline, load.failures
            time.sleep(rng.uniform(0.0, 1.5))
            node.kill()
            load.thread.join(30)
            assert not load.thread.is_alive() and not load.failures, load.failures
            after = committed_chain(home)
            # Blocks and app hashes committed before are unchanged; every result seen is on disk.
            assert {h: after[h] for h in disk} == disk
            for receipt in receipts.values():
                assert after[int(receipt["blockNumber"], 16)][0].hex() == receipt["blockHash"][2:]
            for seen in commits.values():
                assert int(seen["height"]) in after
            disk = after
            began = time.monotonic()
            ports = node.start()
            restarts.append(time.monotonic() - began)
        assert int(call(ports["json-rpc"], "eth_blockNumber"), 16) == max(disk)
        check_seen(ports, receipts, commits)
        # It keeps producing blocks.
        nonce = int(call(ports["json-rpc"], "eth_getTransactionCount", DEV0, "latest"), 16)
        signed = Account.sign_transaction({"chainId": 9000, "gas": 21000, "maxFeePerGas": 10**10,
                                           "maxPriorityFeePerGas": 1, "nonce": nonce, "to": OTHER, "value": 1},
                                          DEV0_KEY)
        tx_hash = call(ports["json-rpc"], "eth_sendRawTransaction", signed.raw_transaction.to_0x_hex())
        deadline = time.monotonic() + 10
        while not (receipt := call(ports["json-rpc"], "eth_getTransactionReceipt", tx_hash)):
            assert time.monotonic() < deadline, "no new block after the restarts"
            time.sleep(0.02)
        assert int(receipt["blockNumber"], 16) == max(disk) + 1
        node.stop()
    finally:
        node.kill()
    kinds = {(r["to"] or "").lower() for r in receipts.values()}
    assert contract.lower() in kinds and len(kinds) > 2      # transfers and contract calls both landed
    report = replay_from_genesis(home, tmp_path / "replayed.db")
    assert report.ok, str(report.mismatch)
    return {"kills": kills, "receipts": len(receipts), "commits": len(commits), "height": max(disk),
            "restart_seconds": restarts}


def deploy(port):
    signed = Account.sign_transaction({"chainId": 9000, "gas": 300000, "maxFeePerGas": 10**10,
                                       "maxPriorityFeePerGas": 1, "nonce": 0, "data": INIT}, DEVS[1][1])
    tx_hash = call(port, "eth_sendRawTransaction", signed.raw_transaction.to_0x_hex())
    deadline = time.monotonic() + 10
    while not (receipt := call(port, "eth_getTransactionReceipt", tx_hash)):
        assert time.monotonic() < deadline
        time.sleep(0.02)
    return to_checksum_address(receipt["contractAddress"])


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
        busy = chaind("replay", "--home", home)
        assert busy.returncode == 1 and "is the node still running?" in busy.stderr, busy.stderr
        node.stop()
    finally:
        node.kill()
    done = chaind("replay", "--home", home)
    assert done.returncode == 0, done.stderr
    assert f"blocks 1..{max(disk)} replayed from genesis: every block hash and app hash matches" in done.stdout


def chaind(*args):
    """The `chaind` command as a user runs it."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([str(Path(sys.executable).parent / "chaind"), *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=120)
