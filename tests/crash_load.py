"""The crash harness: a mixed load (EVM transfers and contract writes, native sends) against a node process
killed with SIGKILL at random moments, checked after each restart and replayed from genesis at the end;
tests/test_persistence.py runs a few cycles, bench/crash_run.py many."""

import base64
import hashlib
import http.client
import json
import random
import threading
import time
import urllib.request

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
from contracts import INIT
from evm_client import DEV0, DEV0_KEY, OTHER, post
from helpers import wait_until
from native_txs import build_native
from node_process import NodeProcess

DEVS = {i: (Account.from_key(k).address, k) for i, k in enumerate([
    DEV0_KEY, "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
    "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"])}
RECIPIENT = lambda n: to_checksum_address((n % 50 + 1).to_bytes(20, "big"))  # noqa: E731
IBC = "ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2"
DEV2_ACCOUNT_NUMBER = 2     # accounts are numbered in genesis balance order


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
        receipt = wait_until(lambda: call(ports["json-rpc"], "eth_getTransactionReceipt", tx_hash),
                             "a new block after the restarts", timeout=10, every=0.02)
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


def call(port, method, *params):
    reply = _post_port(port, {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)})
    assert "error" not in reply, (method, reply)
    return reply["result"]


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


def deploy(port):
    signed = Account.sign_transaction({"chainId": 9000, "gas": 300000, "maxFeePerGas": 10**10,
                                       "maxPriorityFeePerGas": 1, "nonce": 0, "data": INIT}, DEVS[1][1])
    tx_hash = call(port, "eth_sendRawTransaction", signed.raw_transaction.to_0x_hex())
    receipt = wait_until(lambda: call(port, "eth_getTransactionReceipt", tx_hash), "the deploy's receipt",
                         timeout=10, every=0.02)
    return to_checksum_address(receipt["contractAddress"])


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


def _post_port(port, payload, timeout=10):
    request = urllib.request.Request(f"http://127.0.0.1:{port}", data=json.dumps(payload).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


def native_send(sequence, step):
    key = AccountKey(bytes.fromhex(DEVS[2][1][2:]))
    msg = bank_tx.MsgSend(from_address=to_bech32("chain", key.address),
                          to_address=to_bech32("chain", bytes.fromhex(RECIPIENT(step)[2:])),
                          amount=[coin_pb2.Coin(denom=IBC, amount=str(step))])
    return build_native([(txs.MSG_SEND, msg)], key, "chain_9000-1", DEV2_ACCOUNT_NUMBER, sequence,
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
