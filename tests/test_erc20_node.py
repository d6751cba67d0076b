"""erc20 on a running node: balances agree across eth_call balanceOf, gRPC, REST and abci_query at latest and
past heights; transfers either way; the erc20 Query service; an external ERC-20 registered and converted by txs."""

import base64
import json
import urllib.error
import urllib.request

import grpc
import pytest_twisted
from eth_abi import decode, encode
from eth_utils import keccak, to_checksum_address

from chain_driver import contract_address
from chaind.chain import txs
from chaind.chain.modules import erc20
from chaind.pb.cosmos.bank.v1beta1 import query_pb2 as bank_q
from chaind.pb.cosmos.bank.v1beta1 import query_pb2_grpc as bank_grpc
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.query.v1beta1.pagination_pb2 import PageRequest
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.evmos.erc20.v1 import erc20_pb2, tx_pb2
from chaind.pb.evmos.erc20.v1 import query_pb2 as erc20_q
from chaind.pb.evmos.erc20.v1 import query_pb2_grpc as erc20_grpc
from contracts import token_init
from evm_client import DEV0, OTHER, post, send, w3
from helpers import b32, in_thread, rest_sync
from native_client import broadcast, grpc_query

STAKE = "0xe141e8c6980EF5aF5f7da847B7f802702239f36C"
IBC = "ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2"
IBC_TOKEN = "0xf36e4C1F926001CEaDa9cA97ea622B25f41e5eB2"
WERC20 = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE"
ERC20_ABI = [
    {"name": "balanceOf", "type": "function", "stateMutability": "view",
     "inputs": [{"name": "a", "type": "address"}], "outputs": [{"name": "", "type": "uint256"}]},
    {"name": "transfer", "type": "function", "stateMutability": "nonpayable",
     "inputs": [{"name": "to", "type": "address"}, {"name": "v", "type": "uint256"}],
     "outputs": [{"name": "", "type": "bool"}]},
    {"name": "Transfer", "type": "event", "anonymous": False,
     "inputs": [{"name": "from", "type": "address", "indexed": True},
                {"name": "to", "type": "address", "indexed": True},
                {"name": "value", "type": "uint256", "indexed": False}]},
]


def balances_everywhere(node, web3, token, denom, who, height):
    """balanceOf by eth_call, gRPC Balance, REST by_denom and abci_query, all at `height`."""
    contract = web3.eth.contract(address=token, abi=ERC20_ABI)
    by_call = contract.functions.balanceOf(who).call(block_identifier=height)
    reply, _ = grpc_query(node, bank_grpc.QueryStub, "Balance",
                          bank_q.QueryBalanceRequest(address=b32(node, who), denom=denom), height)
    status, _, body = rest_sync(node, f"/cosmos/bank/v1beta1/balances/{b32(node, who)}/by_denom?denom={denom}",
                                height=height)
    assert status == 200, body
    data = bank_q.QueryBalanceRequest(address=b32(node, who), denom=denom).SerializeToString()
    request = urllib.request.Request(
        f"http://127.0.0.1:{node.port_of('cometbft')}",
        data=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "abci_query", "params": {
            "path": "/cosmos.bank.v1beta1.Query/Balance", "data": data.hex(), "height": str(height)}}).encode(),
        headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        answer = json.loads(response.read())["result"]["response"]
    by_abci = bank_q.QueryBalanceResponse.FromString(base64.b64decode(answer["value"]))
    return by_call, int(reply.balance.amount), int(body["balance"]["amount"]), int(by_abci.balance.amount)


def _transfers_and_balances(node):
    web3 = w3(node)
    dev1 = node.dev_keys[1]
    stake = web3.eth.contract(address=STAKE, abi=ERC20_ABI)
    # An ERC-20 transfer of a native coin, seen by the bank ...
    data = stake.functions.transfer(OTHER, 12345).build_transaction({"gas": 100000, "nonce": 0})["data"]
    receipt = send(web3, {"to": STAKE, "data": data, "nonce": 0, "gas": 100000})
    assert receipt.status == 1
    first = receipt.blockNumber
    # ... and a bank send of it, seen by balanceOf.
    sent = broadcast(node, 1, txs.MSG_SEND, bank_tx.MsgSend(
        from_address=b32(node, dev1.address), to_address=b32(node, OTHER),
        amount=[coin_pb2.Coin(denom="stake", amount="1000")]))
    assert sent.code == 0
    latest = node.app.height
    for height, other in ((first - 1, 0), (first, 12345), (latest, 13345)):
        assert balances_everywhere(node, web3, STAKE, "stake", OTHER, height) == (other,) * 4, height
        dev0 = balances_everywhere(node, web3, STAKE, "stake", DEV0, height)
        assert len(set(dev0)) == 1 and dev0[0] == 10**21 - (other and 12345)
    assert balances_everywhere(node, web3, IBC_TOKEN, IBC, DEV0, latest) == (10**15,) * 4
    # The Transfer log is a log like any other: in the receipt and in eth_getLogs.
    logs = web3.eth.get_logs({"address": STAKE, "fromBlock": first, "toBlock": first})
    assert len(logs) == 1 and logs[0]["topics"][0] == keccak(b"Transfer(address,address,uint256)")
    assert logs[0]["topics"][2][12:] == bytes.fromhex(OTHER[2:])
    assert stake.events.Transfer().process_receipt(receipt)[0]["args"]["value"] == 12345


@pytest_twisted.inlineCallbacks
def test_native_coin_balances_agree_everywhere_and_move_both_ways(node):
    yield in_thread(_transfers_and_balances, node)


def _queries(node):
    stub = erc20_grpc.QueryStub
    pairs, _ = grpc_query(node, stub, "TokenPairs", erc20_q.QueryTokenPairsRequest())
    assert {p.denom for p in pairs.token_pairs} == {"achain", IBC, "stake"} and pairs.pagination.total == 3
    page, _ = grpc_query(node, stub, "TokenPairs", erc20_q.QueryTokenPairsRequest(pagination=PageRequest(limit=1)))
    rest_page, _ = grpc_query(node, stub, "TokenPairs", erc20_q.QueryTokenPairsRequest(
        pagination=PageRequest(key=page.pagination.next_key)))
    assert [p.denom for p in [*page.token_pairs, *rest_page.token_pairs]] == [p.denom for p in pairs.token_pairs]
    assert not rest_page.pagination.next_key
    for token in ("stake", STAKE, STAKE.lower(), STAKE[2:]):
        found, error = grpc_query(node, stub, "TokenPair", erc20_q.QueryTokenPairRequest(token=token))
        assert error is None and found.token_pair == erc20_pb2.TokenPair(
            erc20_address=STAKE, denom="stake", enabled=True, contract_owner=erc20_pb2.OWNER_MODULE)
    _, error = grpc_query(node, stub, "TokenPair", erc20_q.QueryTokenPairRequest(token="uosmo"))
    assert error == (grpc.StatusCode.NOT_FOUND, "token pair with token 'uosmo'")
    _, error = grpc_query(node, stub, "TokenPair", erc20_q.QueryTokenPairRequest(token="0x12"))
    assert error == (grpc.StatusCode.INVALID_ARGUMENT,
                     "invalid format for token 0x12, should be either hex ('0x...') cosmos denom")
    _, error = grpc_query(node, stub, "TokenPairs", erc20_q.QueryTokenPairsRequest(
        pagination=PageRequest(key=b"x", offset=1)))
    assert error == (grpc.StatusCode.INTERNAL, "invalid request, either offset or key is expected, got both")
    params, header = grpc_query(node, stub, "Params", erc20_q.QueryParamsRequest())
    assert params.params.enable_erc20 and list(params.params.dynamic_precompiles) == [STAKE, IBC_TOKEN]
    assert list(params.params.native_precompiles) == [WERC20]

    status, _, body = rest_sync(node, "/evmos/erc20/v1/token_pairs/stake")
    assert status == 200 and body == {"token_pair": {"erc20_address": STAKE, "denom": "stake", "enabled": True,
                                                     "contract_owner": "OWNER_MODULE"}}
    status, _, body = rest_sync(node, f"/evmos/erc20/v1/token_pairs/{IBC_TOKEN}")
    assert status == 200 and body["token_pair"]["denom"] == IBC
    status, _, body = rest_sync(node, "/evmos/erc20/v1/token_pairs?pagination.limit=1&pagination.count_total=true")
    assert status == 200 and len(body["token_pairs"]) == 1 and body["pagination"]["total"] == "3"
    status, _, body = rest_sync(node, "/evmos/erc20/v1/params")
    assert status == 200 and body["params"] == {"enable_erc20": True, "native_precompiles": [WERC20],
                                                "dynamic_precompiles": [STAKE, IBC_TOKEN]}
    status, _, body = rest_sync(node, "/evmos/erc20/v1/token_pairs/uosmo")
    assert (status, body) == (404, {"code": 5, "message": "token pair with token 'uosmo'", "details": []})
    status, _, body = rest_sync(node, "/evmos/erc20/v1/token_pairs/0x12")
    assert status == 400 and body["code"] == 3


@pytest_twisted.inlineCallbacks
def test_erc20_query_service_over_grpc_and_rest(node):
    yield in_thread(_queries, node)


def _register_and_convert(node):
    web3 = w3(node)
    dev0, dev1 = node.dev_keys[0].address, node.dev_keys[1].address
    token = to_checksum_address(contract_address(dev1, 0))
    receipt = send(web3, {"data": token_init(10**24), "nonce": 0, "gas": 400000}, key=node.dev_keys[1].private_key)
    assert receipt.status == 1 and receipt.contractAddress == token

    refused = broadcast(node, 1, "/evmos.erc20.v1.MsgRegisterERC20", tx_pb2.MsgRegisterERC20(
        authority=b32(node, dev1), erc20addresses=[token]))
    assert (refused.codespace, refused.code) == ("gov", 13)
    registered = broadcast(node, 0, "/evmos.erc20.v1.MsgRegisterERC20", tx_pb2.MsgRegisterERC20(
        authority=b32(node, dev0), erc20addresses=[token]))
    assert registered.code == 0, registered.raw_log
    denom = f"erc20/{token}"
    found, _ = grpc_query(node, erc20_grpc.QueryStub, "TokenPair", erc20_q.QueryTokenPairRequest(token=token))
    assert (found.token_pair.denom, found.token_pair.contract_owner) == (denom, erc20_pb2.OWNER_EXTERNAL)

    converted = broadcast(node, 1, "/evmos.erc20.v1.MsgConvertERC20", tx_pb2.MsgConvertERC20(
        contract_address=token, amount="5000", receiver=b32(node, dev1), sender=to_checksum_address(dev1)))
    assert converted.code == 0, converted.raw_log
    height = node.app.height
    reply, _ = grpc_query(node, bank_grpc.QueryStub, "Balance",
                          bank_q.QueryBalanceRequest(address=b32(node, dev1), denom=denom))
    contract = web3.eth.contract(address=token, abi=ERC20_ABI)
    assert int(reply.balance.amount) == 5000
    assert contract.functions.balanceOf(to_checksum_address(dev1)).call() == 10**24 - 5000
    assert contract.functions.balanceOf(to_checksum_address(erc20.MODULE_ADDRESS)).call() == 5000

    back = broadcast(node, 1, "/evmos.erc20.v1.MsgConvertCoin", tx_pb2.MsgConvertCoin(
        coin=coin_pb2.Coin(denom=denom, amount="2000"), receiver=OTHER, sender=b32(node, dev1)))
    assert back.code == 0, back.raw_log
    reply, _ = grpc_query(node, bank_grpc.QueryStub, "Balance",
                          bank_q.QueryBalanceRequest(address=b32(node, dev1), denom=denom))
    assert int(reply.balance.amount) == 3000
    assert contract.functions.balanceOf(OTHER).call() == 2000
    supply, _ = grpc_query(node, bank_grpc.QueryStub, "SupplyOf", bank_q.QuerySupplyOfRequest(denom=denom))
    assert int(supply.amount.amount) == 3000
    # Before the conversion back, at the height of the first one:
    reply, _ = grpc_query(node, bank_grpc.QueryStub, "Balance",
                          bank_q.QueryBalanceRequest(address=b32(node, dev1), denom=denom), height)
    assert int(reply.balance.amount) == 5000
    out = web3.eth.call({"to": token, "data": "0x70a08231" + encode(["address"], [OTHER]).hex()}, height)
    assert decode(["uint256"], out)[0] == 0


@pytest_twisted.inlineCallbacks
def test_an_external_erc20_registers_and_converts_through_the_node(node):
    yield in_thread(_register_and_convert, node)


def _trace_a_transfer(node):
    web3 = w3(node)
    data = "0xa9059cbb" + encode(["address", "uint256"], [OTHER, 77]).hex()
    receipt = send(web3, {"to": STAKE, "data": data, "nonce": 0, "gas": 100000})
    _, reply = post(node, {"jsonrpc": "2.0", "id": 1, "method": "debug_traceTransaction",
                           "params": [receipt.transactionHash.to_0x_hex(),
                                      {"tracer": "callTracer", "tracerConfig": '{"withLog": true}'}]})
    call = reply["result"]
    assert call["to"].lower() == STAKE.lower() and int(call["gasUsed"], 16) == receipt.gasUsed
    assert call["logs"][0]["topics"][0] == "0x" + keccak(b"Transfer(address,address,uint256)").hex()
    # The replay wrote nothing: the bank move happened once.
    assert web3.eth.contract(address=STAKE, abi=ERC20_ABI).functions.balanceOf(OTHER).call() == 77


@pytest_twisted.inlineCallbacks
def test_a_precompile_transfer_traces_like_a_contract_call(node_factory):
    node = node_factory(json_rpc={"api": "eth,net,web3,debug"})
    yield in_thread(_trace_a_transfer, node)
