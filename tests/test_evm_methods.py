"""The rest of the eth and txpool tables: fee history, dev-key sends, proofs, call overrides, the pool."""

import pytest_twisted
import rlp
from eth_account import Account
from eth_utils import keccak
from trie import HexaryTrie

from contracts import INIT, RUNTIME
from contracts import SPIN as LOOP
from evm_client import DEV0, DEV0_KEY, OTHER, rpc, send, sign, w3
from helpers import in_thread


@pytest_twisted.inlineCallbacks
def test_fee_history(node_factory):
    node = node_factory(json_rpc={"feehistory_cap": 3})
    web3 = w3(node)
    for nonce in range(2):
        yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": nonce, "maxPriorityFeePerGas": 0})
    receipt = yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": 2, "maxPriorityFeePerGas": 7})
    n = receipt.blockNumber
    _, reply = yield rpc(node, "eth_feeHistory", "0x2", "latest", [10, 90])
    history = reply["result"]
    assert history["oldestBlock"] == hex(n - 1)
    assert len(history["baseFeePerGas"]) == 3 and len(history["gasUsedRatio"]) == 2
    block = yield in_thread(web3.eth.get_block, n)
    assert history["baseFeePerGas"][1] == hex(block.baseFeePerGas)
    assert history["gasUsedRatio"][1] == 21000 / block.gasLimit
    assert history["reward"][1] == ["0x7", "0x7"] and history["reward"][0] == ["0x0", "0x0"]
    # web3.py's call, and the cap: 10 blocks asked, 3 given.
    via_web3 = yield in_thread(web3.eth.fee_history, 10, "latest")
    assert via_web3.oldestBlock == n - 2 and len(via_web3.gasUsedRatio) == 3 and "reward" not in via_web3
    for params, code in ((["0x1", "latest", [50, 10]], -32000), (["0x1", "latest", [101]], -32000),
                         (["0x1", hex(n + 5)], -32000), (["nope", "latest"], -32602), ([4], -32602)):
        _, reply = yield rpc(node, "eth_feeHistory", *params)
        assert reply["error"]["code"] == code, params
    _, reply = yield rpc(node, "eth_feeHistory", 1, "latest")
    assert reply["result"]["oldestBlock"] == hex(n)


@pytest_twisted.inlineCallbacks
def test_send_transaction_with_dev_keys(node):
    web3 = w3(node)
    tx_hash = yield in_thread(web3.eth.send_transaction, {"from": DEV0, "to": OTHER, "value": 5})
    receipt = yield in_thread(web3.eth.wait_for_transaction_receipt, tx_hash, 10, 0.05)
    assert receipt.status == 1 and receipt["from"] == DEV0
    assert (yield in_thread(web3.eth.get_balance, OTHER)) == 5
    deploy_hash = yield in_thread(web3.eth.send_transaction, {"from": DEV0, "data": "0x" + INIT.hex()})
    deployed = yield in_thread(web3.eth.wait_for_transaction_receipt, deploy_hash, 10, 0.05)
    assert (yield in_thread(web3.eth.get_code, deployed.contractAddress)) == RUNTIME
    legacy_hash = yield in_thread(web3.eth.send_transaction,
                                  {"from": DEV0, "to": OTHER, "value": 1, "gasPrice": 10**10, "gas": 21000})
    legacy = yield in_thread(web3.eth.get_transaction, legacy_hash)
    assert legacy.type == 0 and legacy.nonce == 2
    for args, message in (({"from": OTHER, "to": DEV0}, "unknown account"),
                          ({"from": DEV0}, "contract creation without any data provided"),
                          ({"from": DEV0, "to": OTHER, "gasPrice": "0x1", "maxFeePerGas": "0x1"},
                           "both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified"),
                          ({"from": DEV0, "to": OTHER, "chainId": "0x1"},
                           "chainId does not match node's (have=1, want=9000)")):
        _, reply = yield rpc(node, "eth_sendTransaction", args)
        assert reply["error"] == {"code": -32000, "message": message}
    # Too little balance, found by the estimate or by the check: geth's words, which ethers and viem match.
    for args in ({"from": DEV0, "to": OTHER, "value": hex(10**40)},
                 {"from": DEV0, "to": OTHER, "value": hex(10**40), "gas": "0x5208"},
                 {"from": DEV0, "to": OTHER, "gas": hex(10**7), "gasPrice": hex(10**20)}):
        _, reply = yield rpc(node, "eth_sendTransaction", args)
        assert reply["error"]["code"] == -32000
        assert reply["error"]["message"].startswith(
            f"insufficient funds for gas * price + value: address {DEV0} have "), reply


def geth_block_size(block, raw_txs):
    """len(rlp([header, txs, uncles])) with py-evm's London header: what geth's Block.Size() counts."""
    from eth.vm.forks.london.blocks import LondonBlockHeader

    def b(key):
        return bytes.fromhex(block[key][2:])

    header = LondonBlockHeader(
        parent_hash=b("parentHash"), uncles_hash=b("sha3Uncles"), coinbase=b("miner"), state_root=b("stateRoot"),
        transaction_root=b("transactionsRoot"), receipt_root=b("receiptsRoot"), bloom=int.from_bytes(b("logsBloom")),
        difficulty=int(block["difficulty"], 16), block_number=int(block["number"], 16),
        gas_limit=int(block["gasLimit"], 16), gas_used=int(block["gasUsed"], 16),
        timestamp=int(block["timestamp"], 16), extra_data=b("extraData"), mix_hash=b("mixHash"), nonce=b("nonce"),
        base_fee_per_gas=int(block["baseFeePerGas"], 16))
    # A typed tx is a byte string in the block's list, a legacy tx its own RLP list.
    txs = [raw if raw[0] < 0xC0 else rlp.decode(raw) for raw in raw_txs]
    return len(rlp.encode([header, txs, []]))


@pytest_twisted.inlineCallbacks
def test_block_size_is_the_rlp_size_geth_reports(node):
    for fields in ({"to": OTHER, "value": 3, "nonce": 0, "maxFeePerGas": 10**12},
                   {"to": OTHER, "value": 4, "nonce": 1, "gasPrice": 10**12, "gas": 30000, "chainId": 9000,
                    "data": "0x" + "ab" * 100}):
        signed = sign(fields) if "maxFeePerGas" in fields else Account.sign_transaction(fields, DEV0_KEY)
        _, sent = yield rpc(node, "eth_sendRawTransaction", signed.raw_transaction.to_0x_hex())
        web3 = w3(node)
        receipt = yield in_thread(web3.eth.wait_for_transaction_receipt, sent["result"], 10, 0.05)
        _, reply = yield rpc(node, "eth_getBlockByNumber", hex(receipt.blockNumber), False)
        block = reply["result"]
        assert block["size"] == hex(geth_block_size(block, [bytes(signed.raw_transaction)])), block
    _, reply = yield rpc(node, "eth_getBlockByNumber", "0x1", True)
    assert reply["result"]["transactions"] == []
    assert reply["result"]["size"] == hex(geth_block_size(reply["result"], [])) != "0x0"


@pytest_twisted.inlineCallbacks
def test_transaction_by_block_and_index_and_uncles(node):
    web3 = w3(node)
    receipt = yield in_thread(send, web3, {"to": OTHER, "value": 3, "nonce": 0})
    by_number = yield in_thread(web3.eth.get_transaction_by_block, receipt.blockNumber, 0)
    by_hash = yield in_thread(web3.eth.get_transaction_by_block, receipt.blockHash, 0)
    assert by_number == by_hash and by_number.hash == receipt.transactionHash
    _, reply = yield rpc(node, "eth_getTransactionByBlockNumberAndIndex", hex(receipt.blockNumber), "0x1")
    assert reply["result"] is None
    _, reply = yield rpc(node, "eth_getTransactionByBlockHashAndIndex", "0x" + "00" * 32, "0x0")
    assert reply["result"] is None
    _, reply = yield rpc(node, "eth_getUncleCountByBlockNumber", hex(receipt.blockNumber))
    assert reply["result"] == "0x0"
    _, reply = yield rpc(node, "eth_getUncleByBlockNumberAndIndex", hex(receipt.blockNumber), "0x0")
    assert reply["result"] is None


@pytest_twisted.inlineCallbacks
def test_get_proof_verifies_against_state_root(node):
    web3 = w3(node)
    deployed = yield in_thread(send, web3, {"data": "0x" + INIT.hex(), "gas": 200000, "nonce": 0})
    address = deployed.contractAddress
    stored = yield in_thread(send, web3, {"to": address, "data": "0x" + (11).to_bytes(32, "big").hex(),
                                          "gas": 100000, "nonce": 1})
    block = yield in_thread(web3.eth.get_block, stored.blockNumber)
    _, reply = yield rpc(node, "eth_getProof", address, ["0x0", "0x1"], hex(stored.blockNumber))
    proof = reply["result"]
    nodes = [rlp.decode(bytes.fromhex(n[2:])) for n in proof["accountProof"]]
    account = rlp.decode(HexaryTrie.get_from_proof(bytes(block.stateRoot), keccak(bytes.fromhex(address[2:])), nodes))
    assert int.from_bytes(account[0], "big") == int(proof["nonce"], 16) == 1
    assert "0x" + account[2].hex() == proof["storageHash"] and "0x" + account[3].hex() == proof["codeHash"]
    assert proof["codeHash"] == "0x" + keccak(RUNTIME).hex()
    slot0, slot1 = proof["storageProof"]
    assert slot0["key"] == "0x0" and slot0["value"] == hex(11)
    value = HexaryTrie.get_from_proof(bytes.fromhex(proof["storageHash"][2:]), keccak(bytes(32)),
                                      [rlp.decode(bytes.fromhex(n[2:])) for n in slot0["proof"]])
    assert rlp.decode(value) == bytes([11])
    assert slot1["value"] == "0x0"
    via_web3 = yield in_thread(web3.eth.get_proof, DEV0, [], "latest")
    assert via_web3.balance == (yield in_thread(web3.eth.get_balance, DEV0))
    _, reply = yield rpc(node, "eth_getProof", OTHER, [], "latest")
    assert reply["result"]["balance"] == "0x0" and reply["result"]["accountProof"]


@pytest_twisted.inlineCallbacks
def test_call_state_overrides_and_timeout(node_factory):
    node = node_factory(json_rpc={"evm_timeout": 0.3})
    web3 = w3(node)
    empty = "0x" + "33" * 20
    call = {"to": empty, "data": "0x"}
    overrides = {empty: {"code": "0x" + RUNTIME.hex(), "stateDiff": {"0x" + "00" * 32: "0x" + "00" * 31 + "05"}}}
    _, reply = yield rpc(node, "eth_call", call, "latest", overrides)
    assert int(reply["result"], 16) == 5
    overrides[empty]["state"] = overrides[empty].pop("stateDiff")
    _, reply = yield rpc(node, "eth_call", call, "latest", overrides)
    assert int(reply["result"], 16) == 5
    # Without the override the address has no code; the override did not stick.
    _, reply = yield rpc(node, "eth_call", call, "latest")
    assert reply["result"] == "0x"
    poor = "0x" + "44" * 20
    _, reply = yield rpc(node, "eth_call", {"from": poor, "to": OTHER, "value": "0x10"}, "latest")
    assert reply["error"]["code"] == -32000
    _, reply = yield rpc(node, "eth_call", {"from": poor, "to": OTHER, "value": "0x10"}, "latest",
                         {poor: {"balance": "0x100"}})
    assert reply["result"] == "0x"
    _, reply = yield rpc(node, "eth_call", call, "latest", {empty: {"state": {}, "stateDiff": {}}})
    assert reply["error"]["code"] == -32000 and "both 'state' and 'stateDiff'" in reply["error"]["message"]
    _, reply = yield rpc(node, "eth_call", call, "latest", {empty: {"colour": "red"}})
    assert reply["error"]["code"] == -32602
    # An endless loop is stopped at the timeout, and the node keeps serving.
    _, reply = yield rpc(node, "eth_call", call, "latest", {empty: {"code": "0x" + LOOP.hex()}})
    assert reply["error"] == {"code": -32000, "message": "execution aborted (timeout = 0.3s)"}
    _, reply = yield rpc(node, "eth_estimateGas", call, "latest", {empty: {"code": "0x" + LOOP.hex()}})
    assert reply["error"]["message"] == "execution aborted (timeout = 0.3s)"
    assert (yield in_thread(web3.eth.get_balance, poor)) == 0


@pytest_twisted.inlineCallbacks
def test_txpool_status_content_and_inspect(node_factory):
    node = node_factory(chain={"block_interval": 3600.0})
    web3 = w3(node)
    ready = sign({"to": OTHER, "value": 1, "nonce": 0})
    gapped = sign({"to": OTHER, "value": 2, "nonce": 5})
    for signed in (ready, gapped):
        yield in_thread(web3.eth.send_raw_transaction, signed.raw_transaction)
    _, reply = yield rpc(node, "txpool_status")
    assert reply["result"] == {"pending": "0x1", "queued": "0x1"}
    _, reply = yield rpc(node, "txpool_content")
    content = reply["result"]
    assert content["pending"][DEV0]["0"]["hash"] == ready.hash.to_0x_hex()
    assert content["queued"][DEV0]["5"]["value"] == "0x2"
    assert content["pending"][DEV0]["0"]["blockHash"] is None
    _, reply = yield rpc(node, "txpool_inspect")
    summary = f"{web3.to_checksum_address(OTHER)}: 1 wei + 21000 gas × {10**10} wei"
    assert reply["result"]["pending"][DEV0]["0"] == summary
    _, reply = yield rpc(node, "txpool_contentFrom", DEV0)
    assert set(reply["result"]["queued"]) == {"5"}
    _, reply = yield rpc(node, "eth_getTransactionCount", DEV0, "pending")
    assert reply["result"] == "0x1"


@pytest_twisted.inlineCallbacks
def test_gas_cap_bounds_calls_and_estimates(node_factory):
    node = node_factory(json_rpc={"gas_cap": 30000})
    empty = "0x" + "33" * 20
    looping = {empty: {"code": "0x" + LOOP.hex()}}
    _, reply = yield rpc(node, "eth_call", {"to": empty, "gas": hex(10**7)}, "latest", looping)
    assert reply["error"] == {"code": -32000, "message": "out of gas"}
    _, reply = yield rpc(node, "eth_estimateGas", {"to": empty}, "latest", looping)
    assert reply["error"] == {"code": -32000, "message": "gas required exceeds allowance (30000)"}
    _, reply = yield rpc(node, "eth_estimateGas", {"from": DEV0, "to": OTHER, "value": "0x1"})
    assert reply["result"] == hex(21000)


@pytest_twisted.inlineCallbacks
def test_max_priority_fee_follows_recent_tips(node):
    web3 = w3(node)
    _, reply = yield rpc(node, "eth_maxPriorityFeePerGas")
    assert reply["result"] == "0x0"     # no tips paid yet
    for nonce, tip in enumerate((5, 7, 9, 11, 1)):
        yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": nonce, "maxPriorityFeePerGas": tip})
    # geth's oracle: samples 5, 7, 9, 11 (a tip of 1 wei is ignored); their 60th percentile.
    _, reply = yield rpc(node, "eth_maxPriorityFeePerGas")
    assert reply["result"] == hex(7)
    _, price = yield rpc(node, "eth_gasPrice")
    assert int(price["result"], 16) == node.app.next_base_fee() + 7


@pytest_twisted.inlineCallbacks
def test_signing_with_dev_keys(node):
    from eth_account import Account
    from eth_account.messages import encode_defunct, encode_typed_data

    _, reply = yield rpc(node, "eth_sign", DEV0, "0x68656c6c6f")
    signature = reply["result"]
    assert Account.recover_message(encode_defunct(b"hello"), signature=signature) == DEV0
    _, reply = yield rpc(node, "personal_sign", "0x68656c6c6f", DEV0)
    assert reply["result"] == signature
    typed = {"types": {"EIP712Domain": [{"name": "name", "type": "string"}, {"name": "chainId", "type": "uint256"}],
                       "Mail": [{"name": "contents", "type": "string"}]},
             "primaryType": "Mail", "domain": {"name": "test", "chainId": 9000}, "message": {"contents": "hi"}}
    _, reply = yield rpc(node, "eth_signTypedData_v4", DEV0, typed)
    assert Account.recover_message(encode_typed_data(full_message=typed), signature=reply["result"]) == DEV0
    _, as_text = yield rpc(node, "eth_signTypedData_v4", DEV0, __import__("json").dumps(typed))
    assert as_text["result"] == reply["result"]
    _, reply = yield rpc(node, "eth_signTransaction", {"from": DEV0, "to": OTHER, "value": "0x1"})
    raw = reply["result"]
    assert Account.recover_transaction(raw) == DEV0
    # Not sent: the node takes it when it is sent.
    assert len(node.mempool) == 0
    _, sent = yield rpc(node, "eth_sendRawTransaction", raw)
    assert "result" in sent
    for method, params in (("eth_sign", [OTHER, "0x00"]), ("personal_sign", ["0x00", OTHER]),
                           ("eth_signTypedData_v4", [DEV0, {"types": 1}]), ("eth_sign", [DEV0, "zz"])):
        _, reply = yield rpc(node, method, *params)
        assert reply["error"]["code"] in (-32000, -32602), (method, reply)


@pytest_twisted.inlineCallbacks
def test_raw_debug_encodings(node):
    web3 = w3(node)
    signed = sign({"to": OTHER, "value": 1, "nonce": 0})
    receipt = yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": 0})
    tx_hash = "0x" + bytes(receipt.transactionHash).hex()
    _, reply = yield rpc(node, "debug_getRawTransaction", tx_hash)
    assert reply["result"] == "0x" + bytes(signed.raw_transaction).hex()
    _, reply = yield rpc(node, "debug_getRawTransaction", "0x" + "00" * 32)
    assert reply["result"] == "0x"
    number = hex(receipt.blockNumber)
    _, reply = yield rpc(node, "debug_getRawReceipts", number)
    [raw_receipt] = reply["result"]
    assert raw_receipt[:4] == "0x02"
    status, cumulative, bloom, logs = rlp.decode(bytes.fromhex(raw_receipt[4:]))
    assert status == b"\x01" and int.from_bytes(cumulative, "big") == receipt.cumulativeGasUsed and logs == []
    _, reply = yield rpc(node, "debug_getRawHeader", number)
    header = rlp.decode(bytes.fromhex(reply["result"][2:]))
    block = yield in_thread(web3.eth.get_block, receipt.blockNumber)
    assert int.from_bytes(header[8], "big") == receipt.blockNumber and header[3] == bytes(block.stateRoot)
    _, reply = yield rpc(node, "debug_getRawBlock", {"blockHash": "0x" + bytes(block.hash).hex()})
    raw_header, body, uncles = rlp.decode(bytes.fromhex(reply["result"][2:]))
    assert raw_header == header and body == [bytes(signed.raw_transaction)] and uncles == []
    _, reply = yield rpc(node, "debug_getRawBlock", "0xffffff")
    assert reply["error"]["code"] == -32000


@pytest_twisted.inlineCallbacks
def test_create_access_list(node):
    from contracts import INIT

    web3 = w3(node)
    deployed = yield in_thread(send, web3, {"data": INIT, "nonce": 0, "gas": 200000, "to": None})
    store = deployed.contractAddress
    # Storing a word: the recipient's slot 0 is listed (the recipient itself is warm anyway).
    _, reply = yield rpc(node, "eth_createAccessList", {"from": DEV0, "to": store, "data": "0x" + "00" * 31 + "05"})
    result = reply["result"]
    assert result["accessList"] == [{"address": store.lower(), "storageKeys": ["0x" + "00" * 32]}]
    gas_with_list = int(result["gasUsed"], 16)
    assert gas_with_list > 21000 and "error" not in result
    _, reply = yield rpc(node, "eth_createAccessList", {"from": DEV0, "to": store, "data": "0x" + "00" * 32})
    assert reply["result"]["error"].startswith("execution reverted")
    _, reply = yield rpc(node, "eth_createAccessList", "nope")
    assert reply["error"]["code"] == -32602
