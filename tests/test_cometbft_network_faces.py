"""Each node's own faces under real CometBFT v0.38: an EVM tx through every node's JSON-RPC and a native one through
every node's gRPC BroadcastTx reach every node's blocks, CometBFT's /websocket pushes each, newHeads follows."""

import base64
import hashlib
import json
import time

import grpc
import pytest
from eth_account import Account
from eth_utils import to_checksum_address
from websockets.sync.client import connect

from chaind.chain import txs
from chaind.crypto.addresses import to_bech32
from chaind.crypto.keys import AccountKey
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.tx.v1beta1 import service_pb2, service_pb2_grpc
from cometbft_network import comet_block_hashes, operator_key, same_hashes, start_network
from native_txs import build_native

pytestmark = [pytest.mark.external, pytest.mark.slow]

RECIPIENT = to_checksum_address("0x" + "cd" * 20)
CHAIN_ID, EVM_CHAIN_ID = "chain_9000-1", 9000


def _send_evm(validator, value):
    """An EVM transfer from the node's operator to its own node's eth_sendRawTransaction; its EVM hash."""
    key = operator_key(validator)
    nonce = int(validator.eth("eth_getTransactionCount", Account.from_key(key).address, "pending"), 16)
    signed = Account.sign_transaction({"chainId": EVM_CHAIN_ID, "nonce": nonce, "to": RECIPIENT, "value": value,
                                       "gas": 21000, "maxFeePerGas": 10**11, "maxPriorityFeePerGas": 1}, key)
    return validator.eth("eth_sendRawTransaction", signed.raw_transaction.to_0x_hex())


def _broadcast_native(validator, amount):
    """A bank MsgSend from the node's operator through its own node's gRPC BroadcastTx (sync); its tx hash."""
    key = AccountKey(operator_key(validator))
    sender = to_bech32("chain", key.address)
    account = validator.rest(f"/cosmos/auth/v1beta1/accounts/{sender}")["account"]
    msg = bank_tx.MsgSend(from_address=sender, to_address=to_bech32("chain", bytes.fromhex(RECIPIENT[2:])),
                          amount=[coin_pb2.Coin(denom="achain", amount=str(amount))])
    raw = build_native([(txs.MSG_SEND, msg)], key, CHAIN_ID, int(account["account_number"]),
                       int(account.get("sequence", "0")), [("achain", 200000 * 10**11)], 200000)
    with grpc.insecure_channel(f"127.0.0.1:{validator.ports['grpc']}") as channel:
        answer = service_pb2_grpc.ServiceStub(channel).BroadcastTx(
            service_pb2.BroadcastTxRequest(tx_bytes=raw, mode=service_pb2.BROADCAST_MODE_SYNC), timeout=60)
    assert answer.tx_response.code == 0, answer
    return answer.tx_response.txhash


def _until(found, what, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = found()
        if got:
            return got
        time.sleep(0.3)
    raise AssertionError(f"{what} not seen in {timeout} s")


def _tx_at(validator, query):
    """The height of the one tx `query` finds in the node's CometBFT indexer, or None."""
    found = validator.rpc("tx_search", query=f'"{query}"')["txs"]
    assert len(found) <= 1, found
    return int(found[0]["height"]) if found else None


def test_txs_through_every_nodes_own_faces_reach_every_node(cometbft_binary, tmp_path):
    validators = start_network(cometbft_binary, tmp_path, 4)
    try:
        for v in validators:
            v.start()
        for v in validators:
            v.wait_height(3, timeout=180)
        with connect(f"ws://127.0.0.1:{validators[0].ports['rpc']}/websocket", open_timeout=30) as comet_ws, \
                connect(f"ws://127.0.0.1:{validators[3].ports['ws']}", open_timeout=30) as eth_ws:
            comet_ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "subscribe",
                                      "params": {"query": "tm.event='Tx'"}}))
            assert json.loads(comet_ws.recv(timeout=30))["result"] == {}
            eth_ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_subscribe", "params": ["newHeads"]}))
            assert "result" in json.loads(eth_ws.recv(timeout=30))

            # One EVM transfer into each node's own JSON-RPC, then (their nonces spent) one native send into
            # each node's own gRPC: chaind checks each and hands it to its CometBFT's mempool.
            evm = [_send_evm(v, 1000 + i) for i, v in enumerate(validators)]
            receipts = [_until(lambda v=v, h=h: v.eth("eth_getTransactionReceipt", h), f"receipt of {h}")
                        for v, h in zip(validators, evm, strict=True)]
            assert [r["status"] for r in receipts] == ["0x1"] * 4
            native = [_broadcast_native(v, 10 + i) for i, v in enumerate(validators)]
            heights = [_until(lambda h=h: _tx_at(validators[0], f"tx.hash='{h}'"), h) for h in native]
            top = max(heights + [int(r["blockNumber"], 16) for r in receipts])
            for v in validators:
                v.wait_height(top + 1)

            # CometBFT's /websocket on node0 pushed each of the eight txs, with the height it was committed at.
            envelopes = {validators[0].rpc("tx_search", query=f"\"ethereum_tx.ethereumTxHash='{h}'\"")["txs"][0]
                         ["hash"]: int(r["blockNumber"], 16) for h, r in zip(evm, receipts, strict=True)}
            wanted = {**envelopes, **dict(zip(native, heights, strict=True))}
            pushed = {}
            while len(pushed) < len(wanted):
                result = json.loads(comet_ws.recv(timeout=60))["result"]["data"]["value"]["TxResult"]
                raw = base64.b64decode(result["tx"])
                pushed[hashlib.sha256(raw).hexdigest().upper()] = int(result["height"])
            assert pushed == wanted
            # newHeads of node3's chaind: every block, under the hash CometBFT gave it.
            head = json.loads(eth_ws.recv(timeout=60))["params"]["result"]
            first = int(head["number"], 16)
            while int(head["number"], 16) < top:
                number = int(head["number"], 16)
                assert head["hash"] == "0x" + comet_block_hashes(validators[3], number)[1].lower()
                head = json.loads(eth_ws.recv(timeout=60))["params"]["result"]
                assert int(head["number"], 16) == number + 1
            assert first <= min(heights + [int(r["blockNumber"], 16) for r in receipts])

        # Every node has every tx at the same height, the same receipts, and the same balances; its node info is
        # its CometBFT's (p2p id and address, network, version, moniker), and it is not syncing.
        for v in validators:
            comet = v.rpc("status")["node_info"]
            ours = v.rest("/cosmos/base/tendermint/v1beta1/node_info")["default_node_info"]
            assert (ours["default_node_id"], ours["listen_addr"], ours["network"], ours["version"],
                    ours["moniker"], ours["other"]) == (comet["id"], comet["listen_addr"], comet["network"],
                                                        comet["version"], comet["moniker"], comet["other"])
            assert v.rest("/cosmos/base/tendermint/v1beta1/syncing") == {"syncing": False}
            for h, receipt in zip(evm, receipts, strict=True):
                assert v.eth("eth_getTransactionReceipt", h) == receipt, v.home.name
            for h, height in zip(native, heights, strict=True):
                assert _until(lambda v=v, h=h: _tx_at(v, f"tx.hash='{h}'"), h) == height, v.home.name
                assert v.rest(f"/cosmos/tx/v1beta1/txs/{h}")["tx_response"]["height"] == str(height)
            assert v.eth("eth_getBalance", RECIPIENT, "latest") == hex(sum(1000 + i + 10 + i for i in range(4)))
        same_hashes(validators, range(1, top + 1))
    finally:
        for v in validators:
            v.stop()
