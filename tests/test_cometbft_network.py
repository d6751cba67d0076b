"""The real CometBFT v0.38 runs chaind: `chaind testnet` homes driven by `cometbft node` processes make blocks
with EVM and native txs, and every node's app hashes and block hashes are CometBFT's."""

import json
import time

import pytest
from eth_account import Account
from eth_utils import to_checksum_address
from websockets.sync.client import connect

from chaind.chain import txs
from chaind.crypto.addresses import to_bech32
from chaind.crypto.keys import AccountKey
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from cometbft_network import listening_addresses, operator_key, same_hashes, start_network
from helpers import wait_until
from native_txs import build_native

pytestmark = [pytest.mark.external, pytest.mark.slow]

RECIPIENT = to_checksum_address("0x" + "ab" * 20)
CHAIN_ID, EVM_CHAIN_ID = "chain_9000-1", 9000


def _evm_transfer(validator, value):
    """An EVM transfer from the operator, sent to chaind's JSON-RPC; its receipt once in a block."""
    key = operator_key(validator)
    sender = Account.from_key(key).address
    nonce = int(validator.eth("eth_getTransactionCount", sender, "pending"), 16)
    signed = Account.sign_transaction({"chainId": EVM_CHAIN_ID, "nonce": nonce, "to": RECIPIENT, "value": value,
                                       "gas": 21000, "maxFeePerGas": 10**11, "maxPriorityFeePerGas": 1}, key)
    tx_hash = validator.eth("eth_sendRawTransaction", signed.raw_transaction.to_0x_hex())
    for _ in range(300):
        receipt = validator.eth("eth_getTransactionReceipt", tx_hash)
        if receipt:
            return receipt
        validator.wait_height(validator.height() + 1)
    raise AssertionError(f"{tx_hash} never got a receipt")


def _native_send(validator, amount):
    """A bank MsgSend from the operator, through CometBFT's broadcast_tx_commit; its answer."""
    key = AccountKey(operator_key(validator))
    sender = to_bech32("chain", key.address)
    account = validator.rest(f"/cosmos/auth/v1beta1/accounts/{sender}")["account"]
    msg = bank_tx.MsgSend(from_address=sender, to_address=to_bech32("chain", bytes.fromhex(RECIPIENT[2:])),
                          amount=[coin_pb2.Coin(denom="achain", amount=str(amount))])
    raw = build_native([(txs.MSG_SEND, msg)], key, CHAIN_ID, int(account["account_number"]),
                           int(account.get("sequence", "0")), [("achain", 200000 * 10**11)], 200000)
    return validator.broadcast_commit(raw)


def test_one_validator_cometbft_runs_chaind(cometbft_binary, tmp_path):
    (validator,) = start_network(cometbft_binary, tmp_path, 1)
    try:
        validator.start()
        validator.wait_height(3)
        # Every listener of both processes is on loopback, where `chaind testnet` put them.
        for pid in (validator.comet.pid, validator.chaind.process.pid):
            addresses = listening_addresses(pid)
            # (gRPC listens on an IPv6 socket, as ::ffff:127.0.0.1: loopback all the same)
            assert addresses and {host.removeprefix("::ffff:") for host, _ in addresses} == {"127.0.0.1"}, \
                (pid, addresses)
        assert {port for _, port in listening_addresses(validator.comet.pid)} == \
            {validator.ports["p2p"], validator.ports["rpc"]}
        # chaind's eth_subscribe and CometBFT's own /websocket both hear of the blocks CometBFT decides.
        with connect(f"ws://127.0.0.1:{validator.ports['ws']}", open_timeout=30) as eth_ws, \
                connect(f"ws://127.0.0.1:{validator.ports['rpc']}/websocket", open_timeout=30) as comet_ws:
            eth_ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_subscribe", "params": ["newHeads"]}))
            assert "result" in json.loads(eth_ws.recv(timeout=30))
            comet_ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "subscribe",
                                      "params": {"query": "tm.event='NewBlock'"}}))
            assert json.loads(comet_ws.recv(timeout=30))["result"] == {}
            head = json.loads(eth_ws.recv(timeout=30))["params"]["result"]
            new_block = json.loads(comet_ws.recv(timeout=30))["result"]["data"]["value"]
            heights = {int(head["number"], 16), int(new_block["block"]["header"]["height"])}
            # (the two may be a block apart: the subscriptions began at different moments)
            while len(heights) > 1:
                later = max(heights)
                while int(head["number"], 16) < later:
                    head = json.loads(eth_ws.recv(timeout=30))["params"]["result"]
                while int(new_block["block"]["header"]["height"]) < later:
                    new_block = json.loads(comet_ws.recv(timeout=30))["result"]["data"]["value"]
                heights = {int(head["number"], 16), int(new_block["block"]["header"]["height"])}
            # An EVM block's hash is CometBFT's block hash, as in Evmos.
            assert head["hash"] == "0x" + new_block["block_id"]["hash"].lower()

        receipt = _evm_transfer(validator, 12345)
        assert receipt["status"] == "0x1"
        evm_height = int(receipt["blockNumber"], 16)
        committed = _native_send(validator, 777)
        assert committed["check_tx"]["code"] == 0, committed
        assert committed["tx_result"]["code"] == 0, committed
        native_height = int(committed["height"])
        # Both are in CometBFT's blocks, found by its own tx indexer from FinalizeBlock's events.
        found = validator.rpc("tx_search", query=f"\"ethereum_tx.ethereumTxHash='{receipt['transactionHash']}'\"")
        assert [t["height"] for t in found["txs"]] == [str(evm_height)], found
        # (broadcast_tx_commit answers from the event bus; the indexer, a subscriber too, may follow it by a moment)
        found = validator.rpc("tx_search", query=f"\"tx.hash='{committed['hash']}'\"")
        for _ in range(50):
            if found["txs"]:
                break
            time.sleep(0.2)
            found = validator.rpc("tx_search", query=f"\"tx.hash='{committed['hash']}'\"")
        assert [t["height"] for t in found["txs"]] == [str(native_height)], found
        assert validator.eth("eth_getBalance", RECIPIENT, "latest") == hex(12345 + 777)   # both sends arrived
        top = max(evm_height, native_height) + 1
        validator.wait_height(top + 1)
        same_hashes([validator], range(1, top + 1))
    finally:
        validator.stop()


def test_four_validators_agree_one_catches_up_after_a_kill_three_go_on_and_jail_the_fourth(cometbft_binary, tmp_path):
    validators = start_network(cometbft_binary, tmp_path, 4)
    try:
        for v in validators:
            v.start()
        for v in validators:
            v.wait_height(3, timeout=180)
        # An EVM tx through node1's JSON-RPC, a native one through node2's CometBFT: every node has both.
        receipt = _evm_transfer(validators[1], 4242)
        assert receipt["status"] == "0x1"
        committed = _native_send(validators[2], 99)
        assert committed["tx_result"]["code"] == 0, committed
        top = max(int(receipt["blockNumber"], 16), int(committed["height"])) + 1
        for v in validators:
            v.wait_height(top + 1)
            assert v.eth("eth_getTransactionReceipt", receipt["transactionHash"]) == receipt, v.home.name
            assert v.eth("eth_getBalance", RECIPIENT, "latest") == hex(4242 + 99), v.home.name
        same_hashes(validators, range(1, top + 1))

        # node2 is killed (both processes, SIGKILL) while the other three go on, then restarted: CometBFT's
        # handshake with its chaind and block sync bring it to the others' height with the same hashes.
        validators[2].stop()
        others = [validators[i] for i in (0, 1, 3)]
        killed_at = max(v.height() for v in others)
        for v in others:
            v.wait_height(killed_at + 5, timeout=120)
        log_before = validators[2].comet_log.stat().st_size
        validators[2].start()
        restarted = time.monotonic()
        target = max(v.height() for v in others)
        validators[2].wait_height(target, timeout=180)
        caught_up = time.monotonic() - restarted
        print(f"node2 caught up {target - killed_at} blocks in {caught_up:.1f} s from its start")
        def restart_log():
            with open(validators[2].comet_log) as log:
                log.seek(log_before)
                return log.read()

        # It came back through CometBFT's handshake with its chaind (Info, then any replay) and block sync, whose
        # switch to consensus can come after its chaind reached the others' height (it chases a moving one).
        wait_until(lambda: all(line in restart_log() for line in
                               ("Completed ABCI Handshake", "Time to switch to consensus reactor!")),
                   "node2's CometBFT to log its handshake and its switch from block sync", timeout=60)

        # node3 stops for good: the three left, node2 among them, hold 3/4 of the power, over 2/3, so node2
        # votes again and they keep making blocks.
        validators[3].stop()
        rest = validators[:3]
        stopped_at = max(v.height() for v in rest)
        for v in rest:
            v.wait_height(stopped_at + 3, timeout=120)
        same_hashes(rest, range(top, stopped_at + 3))

        # Missing over half of the 20-block window (the testnet genesis' slashing params) jails node3: x/staking
        # answers FinalizeBlock with its power 0, and CometBFT's validator set drops it.
        gone = json.loads((validators[3].home / "config" / "priv_validator_key.json").read_text())["address"]
        deadline = time.monotonic() + 120
        while True:
            height = rest[0].height()
            current = rest[0].rpc("validators", height=height)["validators"]
            if len(current) == 3:
                break
            assert time.monotonic() < deadline, f"node3 still in CometBFT's set at {height}: {current}"
            time.sleep(1)
        assert gone not in {v["address"] for v in current}
        monikers = {v["description"]["moniker"]: v for v in
                    rest[0].rest("/cosmos/staking/v1beta1/validators")["validators"]}
        assert monikers["node3"]["jailed"] and monikers["node3"]["status"] != "BOND_STATUS_BONDED"
        assert not any(monikers[f"node{i}"]["jailed"] for i in range(3))
        for v in rest:
            v.wait_height(height + 3, timeout=120)
        same_hashes(rest, range(stopped_at, height + 3))
    finally:
        for v in validators:
            v.stop()
