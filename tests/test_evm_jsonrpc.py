"""End to end: a real node, driven by web3.py over HTTP."""

import json

import pytest
import pytest_twisted
from eth_account import Account
from web3.exceptions import ContractLogicError

from contracts import INIT, RUNTIME, STORED
from evm_client import DEV0, DEV0_KEY, OTHER, post, rpc, send, w3
from helpers import in_thread


@pytest_twisted.inlineCallbacks
def test_identity_and_dev_accounts(node):
    web3 = w3(node)
    assert (yield in_thread(lambda: web3.eth.chain_id)) == 9000
    assert (yield in_thread(lambda: web3.net.version)) == "9000"
    accounts = yield in_thread(lambda: web3.eth.accounts)
    assert accounts[0] == DEV0 and len(accounts) == 10
    assert (yield in_thread(web3.eth.get_balance, DEV0)) == 10**26
    # cosmos/evm's node answers the eth/65 protocol's number.
    _, reply = yield rpc(node, "eth_protocolVersion")
    assert reply["result"] == "0x41"


@pytest_twisted.inlineCallbacks
def test_transfer_receipt_block_and_history(node):
    web3 = w3(node)
    receipt = yield in_thread(send, web3, {"to": OTHER, "value": 12345, "nonce": 0})
    assert receipt.status == 1 and receipt.gasUsed == 21000
    assert (yield in_thread(web3.eth.get_balance, OTHER)) == 12345
    block = yield in_thread(web3.eth.get_block, receipt.blockNumber, True)
    assert block.hash == receipt.blockHash
    assert block.transactions[0].hash == receipt.transactionHash
    tx = yield in_thread(web3.eth.get_transaction, receipt.transactionHash)
    assert tx["from"] == DEV0 and tx.value == 12345
    # The state before the block is still readable (archive).
    before = yield in_thread(web3.eth.get_balance, OTHER, receipt.blockNumber - 1)
    assert before == 0
    by_hash = yield rpc(node, "eth_getBalance", OTHER, {"blockHash": block.hash.to_0x_hex()})
    assert by_hash[1]["result"] == hex(12345)


@pytest_twisted.inlineCallbacks
def test_contract_deploy_call_logs_and_revert(node):
    web3 = w3(node)
    deploy = yield in_thread(send, web3, {"data": "0x" + INIT.hex(), "gas": 200000, "nonce": 0})
    assert deploy.status == 1
    address = deploy.contractAddress
    assert (yield in_thread(web3.eth.get_code, address)) == RUNTIME
    stored = yield in_thread(send, web3, {"to": address, "data": "0x" + (7).to_bytes(32, "big").hex(),
                                          "gas": 100000, "nonce": 1})
    assert stored.status == 1
    assert stored.logs[0].topics[0] == STORED and int(stored.logs[0].data.hex(), 16) == 7
    value = yield in_thread(web3.eth.call, {"to": address, "data": "0x"})
    assert int(value.hex(), 16) == 7
    assert (yield in_thread(web3.eth.get_storage_at, address, 0))[-1] == 7
    status, reply = yield in_thread(post, node, {"jsonrpc": "2.0", "id": 5, "method": "eth_call",
                                                 "params": [{"to": address, "data": "0x" + "00" * 32}, "latest"]})
    assert reply["error"]["code"] == 3
    assert reply["error"]["data"] == "0x" + (42).to_bytes(32, "big").hex()
    with pytest.raises(ContractLogicError):
        yield in_thread(web3.eth.call, {"to": address, "data": "0x" + "00" * 32})
    failed = yield in_thread(send, web3, {"to": address, "data": "0x" + "00" * 32, "gas": 100000, "nonce": 2})
    assert failed.status == 0 and failed.logs == []
    gas = yield in_thread(web3.eth.estimate_gas, {"from": DEV0, "to": address,
                                                  "data": "0x" + (9).to_bytes(32, "big").hex()})
    assert 21000 < gas < 100000


@pytest_twisted.inlineCallbacks
def test_block_parameter_forms(node):
    web3 = w3(node)
    receipt = yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": 0})
    n = receipt.blockNumber
    for tag in ("latest", "pending", "safe", "finalized", hex(n), {"blockNumber": hex(n)},
                {"blockHash": receipt.blockHash.to_0x_hex()}):
        _, reply = yield rpc(node, "eth_getBalance", OTHER, tag)
        assert reply["result"] == "0x1", tag
    _, reply = yield rpc(node, "eth_getBalance", OTHER, "earliest")
    assert reply["result"] == "0x0"
    _, reply = yield rpc(node, "eth_getBalance", OTHER, {"blockNumber": "0x1", "blockHash": "0x" + "00" * 32})
    assert reply["error"]["code"] == -32602
    _, reply = yield rpc(node, "eth_getBalance", OTHER, "0x99")
    assert reply["error"] == {"code": -32000, "message": "header not found"}


@pytest_twisted.inlineCallbacks
def test_bad_input_gets_geth_errors(node):
    cases = [
        (b"{not json", -32700),
        (b"[]", -32600),
        (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_nope", "params": []}).encode(), -32601),
        (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_getBalance", "params": ["0x12"]}).encode(), -32602),
        (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_getBalance", "params": []}).encode(), -32602),
        (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_sendRawTransaction", "params": ["0xzz"]}).encode(),
         -32602),
        (json.dumps({"jsonrpc": "1.0", "id": 1, "method": "eth_chainId"}).encode(), -32600),
    ]
    for body, code in cases:
        _, reply = yield in_thread(post, node, body, True)
        assert reply["error"]["code"] == code, body
        if code == -32700:
            assert reply["error"]["message"].startswith("the request body is not JSON: "), reply
    # A tx with a bad signature, nonce too low, insufficient funds.
    web3 = w3(node)
    yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": 0})
    low = Account.sign_transaction({"chainId": 9000, "gas": 21000, "maxFeePerGas": 10**10,
                                    "maxPriorityFeePerGas": 1, "nonce": 0, "to": OTHER, "value": 1}, DEV0_KEY)
    _, reply = yield rpc(node, "eth_sendRawTransaction", low.raw_transaction.to_0x_hex())
    assert reply["error"]["code"] == -32000 and reply["error"]["message"].startswith("nonce too low")
    poor = Account.create()
    broke = Account.sign_transaction({"chainId": 9000, "gas": 21000, "maxFeePerGas": 10**10,
                                      "maxPriorityFeePerGas": 1, "nonce": 0, "to": OTHER, "value": 1}, poor.key)
    _, reply = yield rpc(node, "eth_sendRawTransaction", broke.raw_transaction.to_0x_hex())
    assert reply["error"]["message"].startswith("insufficient funds for gas * price + value")
    wrong_chain = Account.sign_transaction({"chainId": 1, "gas": 21000, "maxFeePerGas": 10**10,
                                            "maxPriorityFeePerGas": 1, "nonce": 1, "to": OTHER, "value": 1}, DEV0_KEY)
    _, reply = yield rpc(node, "eth_sendRawTransaction", wrong_chain.raw_transaction.to_0x_hex())
    assert reply["error"]["code"] == -32000 and "chain id" in reply["error"]["message"]
    # Nothing committed changed, and the node still serves.
    assert (yield in_thread(web3.eth.get_balance, OTHER)) == 1


@pytest_twisted.inlineCallbacks
def test_batches_and_limits(node_factory):
    node = node_factory(json_rpc={"max_batch_size": 3, "max_body_bytes": 2000})
    batch = [{"jsonrpc": "2.0", "id": i, "method": "eth_blockNumber", "params": []} for i in range(3)]
    status, reply = yield in_thread(post, node, batch)
    assert [r["id"] for r in reply] == [0, 1, 2] and all("result" in r for r in reply)
    _, reply = yield in_thread(post, node, batch + batch)
    assert reply["error"]["code"] == -32600 and "batch too large" in reply["error"]["message"]
    status, reply = yield in_thread(post, node, b"[" + b" " * 3000 + b"]", True)
    assert status == 413 and reply["error"]["code"] == -32600

