"""ethermint.evm.v1 and ethermint.feemarket.v1 queries over gRPC, REST and abci_query: accounts, code and
storage now and at a past height, EthCall and EstimateGas as eth_call answers them, fees and block gas."""

import base64
import hashlib
import json
import urllib.parse

import grpc
import pytest_twisted
from eth_utils import keccak

from chaind.crypto.addresses import to_bech32
from chaind.pb.ethermint.evm.v1 import query_pb2 as evm_q
from chaind.pb.ethermint.evm.v1 import query_pb2_grpc as evm_grpc
from chaind.pb.ethermint.feemarket.v1 import query_pb2 as fm_q
from chaind.pb.ethermint.feemarket.v1 import query_pb2_grpc as fm_grpc
from contracts import INIT, RUNTIME
from evm_client import DEV0, OTHER, send, w3
from helpers import call, comet, in_thread, rest

EVM, FM = evm_grpc.QueryStub, fm_grpc.QueryStub
INVALID = grpc.StatusCode.INVALID_ARGUMENT


def _word(n):
    return n.to_bytes(32, "big")


@pytest_twisted.inlineCallbacks
def test_accounts_code_and_storage_now_and_at_a_past_height(node):
    web3 = w3(node)
    deployed = yield in_thread(send, web3, {"data": INIT, "gas": 300000, "nonce": 0})
    contract = deployed.contractAddress
    stored = yield in_thread(send, web3, {"to": contract, "data": _word(5), "gas": 100000, "nonce": 1})
    account, header = yield call(node, EVM, "Account", evm_q.QueryAccountRequest(address=contract))
    assert (account.code_hash, account.nonce, account.balance) == ("0x" + keccak(RUNTIME).hex(), 1, "0")
    assert header["x-cosmos-block-height"] == str(node.app.height)
    dev, _ = yield call(node, EVM, "Account", evm_q.QueryAccountRequest(address=DEV0))
    assert dev.code_hash == "0x" + keccak(b"").hex() and dev.nonce == 2
    assert int(dev.balance) == (yield in_thread(web3.eth.get_balance, DEV0))
    balance, _ = yield call(node, EVM, "Balance", evm_q.QueryBalanceRequest(address=DEV0.lower()[2:]))
    assert balance.balance == dev.balance
    code, _ = yield call(node, EVM, "Code", evm_q.QueryCodeRequest(address=contract))
    assert code.code == RUNTIME
    slot, _ = yield call(node, EVM, "Storage", evm_q.QueryStorageRequest(address=contract, key="0x0"))
    assert slot.value == "0x" + _word(5).hex()
    # Before the store: the slot was empty; before the deploy: no code at all.
    past, header = yield call(node, EVM, "Storage", evm_q.QueryStorageRequest(address=contract, key="00" * 32),
                              stored.blockNumber - 1)
    assert past.value == "0x" + "00" * 32 and header["x-cosmos-block-height"] == str(stored.blockNumber - 1)
    empty, _ = yield call(node, EVM, "Code", evm_q.QueryCodeRequest(address=contract), deployed.blockNumber - 1)
    assert empty.code == b""
    cosmos, _ = yield call(node, EVM, "CosmosAccount", evm_q.QueryCosmosAccountRequest(address=DEV0))
    assert (cosmos.cosmos_address, cosmos.sequence, cosmos.account_number) == (
        to_bech32("chain", bytes.fromhex(DEV0[2:])), 2, 0)
    validator = node.genesis.validators[0]
    valcons = to_bech32("chainvalcons", hashlib.sha256(validator.consensus_pubkey).digest()[:20])
    operator, _ = yield call(node, EVM, "ValidatorAccount", evm_q.QueryValidatorAccountRequest(cons_address=valcons))
    assert operator.account_address == to_bech32("chain", validator.operator)
    status, _, body = yield rest(node, f"/evmos/evm/v1/account/{contract}")
    assert status == 200 and body == {"balance": "0", "code_hash": account.code_hash, "nonce": "1"}
    status, _, body = yield rest(node, f"/evmos/evm/v1/storage/{contract}/0x0", height=stored.blockNumber - 1)
    assert status == 200 and body == {"value": "0x" + "00" * 32}
    # abci_query (the path @cosmjs and the CLI use) answers the same.
    reply = yield in_thread(comet, node, "abci_query", path="/ethermint.evm.v1.Query/Code",
                            data=evm_q.QueryCodeRequest(address=contract).SerializeToString().hex())
    assert evm_q.QueryCodeResponse.FromString(base64.b64decode(reply["result"]["response"]["value"])).code == RUNTIME
    for method, request, error in (
            ("Account", evm_q.QueryAccountRequest(address="0x1234"),
             "address '0x1234' is not a valid ethereum hex address: invalid address"),
            ("Balance", evm_q.QueryBalanceRequest(address=to_bech32("chain", bytes(20))),
             f"address '{to_bech32('chain', bytes(20))}' is not a valid ethereum hex address: invalid address"),
            ("Storage", evm_q.QueryStorageRequest(address=contract, key="0xzz"),
             "invalid storage key '0xzz': want up to 32 bytes of hex"),
            ("ValidatorAccount", evm_q.QueryValidatorAccountRequest(cons_address="chain1xyz"),
             "decoding bech32 failed: invalid bech32 string 'chain1xyz'")):
        reply, got = yield call(node, EVM, method, request)
        assert (reply, got) == (None, (INVALID, error)), method
    _, got = yield call(node, EVM, "ValidatorAccount", evm_q.QueryValidatorAccountRequest(
        cons_address=to_bech32("chainvalcons", bytes(20))))
    assert got == (grpc.StatusCode.UNKNOWN, f"validator not found for {to_bech32('chainvalcons', bytes(20))}")


def _args(**call):
    return json.dumps(call).encode()


@pytest_twisted.inlineCallbacks
def test_eth_call_and_estimate_gas_agree_with_json_rpc(node):
    web3 = w3(node)
    deployed = yield in_thread(send, web3, {"data": INIT, "gas": 300000, "nonce": 0})
    contract = deployed.contractAddress
    yield in_thread(send, web3, {"to": contract, "data": _word(9), "gas": 100000, "nonce": 1})
    read, _ = yield call(node, EVM, "EthCall", evm_q.EthCallRequest(args=_args(to=contract)))
    assert read.ret == _word(9) and not read.vm_error and read.gas_used > 21000
    assert read.ret == bytes((yield in_thread(web3.eth.call, {"to": contract})))
    # At the deploy height the slot was still empty.
    old, _ = yield call(node, EVM, "EthCall", evm_q.EthCallRequest(args=_args(to=contract)), deployed.blockNumber)
    assert old.ret == _word(0)
    reverted, _ = yield call(node, EVM, "EthCall", evm_q.EthCallRequest(args=_args(to=contract, data="0x" + "00" * 32)))
    assert (reverted.vm_error, reverted.ret) == ("execution reverted", _word(42))
    store = {"from": DEV0, "to": contract, "data": "0x" + _word(7).hex()}
    estimate, _ = yield call(node, EVM, "EstimateGas", evm_q.EthCallRequest(args=_args(**store)))
    assert estimate.gas == (yield in_thread(web3.eth.estimate_gas, store)) and not estimate.vm_error
    capped, _ = yield call(node, EVM, "EthCall", evm_q.EthCallRequest(args=_args(**store), gas_cap=21500))
    assert capped.vm_error == "out of gas"
    revert_estimate, _ = yield call(node, EVM, "EstimateGas", evm_q.EthCallRequest(
        args=_args(to=contract, data="0x" + "00" * 32)))
    assert (revert_estimate.vm_error, revert_estimate.ret, revert_estimate.gas) == ("execution reverted", _word(42), 0)
    _, got = yield call(node, EVM, "EstimateGas", evm_q.EthCallRequest(args=_args(**store), gas_cap=21500))
    assert got == (grpc.StatusCode.UNKNOWN, "gas required exceeds allowance (21500)")
    _, got = yield call(node, EVM, "EthCall", evm_q.EthCallRequest(args=b"{nope"))
    assert got[0] == INVALID
    _, got = yield call(node, EVM, "EthCall", evm_q.EthCallRequest(args=_args(to="0x12")))
    assert got[0] == INVALID
    query = urllib.parse.urlencode({"args": base64.b64encode(_args(to=contract)).decode()})
    status, _, body = yield rest(node, f"/evmos/evm/v1/eth_call?{query}")
    assert status == 200 and base64.b64decode(body["ret"]) == _word(9) and body["vm_error"] == ""
    query = urllib.parse.urlencode({"args": base64.b64encode(_args(**store)).decode()})
    status, _, body = yield rest(node, f"/evmos/evm/v1/estimate_gas?{query}")
    assert status == 200 and body["gas"] == str(estimate.gas)


@pytest_twisted.inlineCallbacks
def test_params_base_fee_and_block_gas(node):
    web3 = w3(node)
    receipt = yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": 0, "gas": 100000})
    height = receipt.blockNumber
    block = yield in_thread(web3.eth.get_block, height)
    fee, _ = yield call(node, EVM, "BaseFee", evm_q.QueryBaseFeeRequest(), height)
    assert int(fee.base_fee) == block.baseFeePerGas
    market_fee, _ = yield call(node, FM, "BaseFee", fm_q.QueryBaseFeeRequest(), height)
    assert market_fee.base_fee == fee.base_fee
    params, _ = yield call(node, FM, "Params", fm_q.QueryParamsRequest(), height)
    p = params.params
    assert (p.base_fee, p.base_fee_change_denominator, p.elasticity_multiplier, p.min_gas_multiplier) == (
        fee.base_fee, 8, 2, "500000000000000000")      # LegacyDec: its atomics on the wire
    # x/feemarket: gas wanted (100000) times min_gas_multiplier (0.5), being more than the 21000 used.
    gas, _ = yield call(node, FM, "BlockGas", fm_q.QueryBlockGasRequest(), height)
    assert gas.gas == 50000
    evm_params, _ = yield call(node, EVM, "Params", evm_q.QueryParamsRequest())
    assert evm_params.params.evm_denom == "achain" and evm_params.params.chain_config.cancun_block == "0"
    assert evm_params.params.allow_unprotected_txs is False
    status, _, body = yield rest(node, "/evmos/feemarket/v1/block_gas", height=height)
    assert status == 200 and body == {"gas": "50000"}
    status, _, body = yield rest(node, "/evmos/evm/v1/params")
    assert status == 200 and body["params"]["chain_config"]["london_block"] == "0"
    assert body["params"]["access_control"]["create"]["access_type"] == "ACCESS_TYPE_PERMISSIONLESS"
