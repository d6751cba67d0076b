"""The REST gateway on 9091: the SDK's paths and JSON, over the same servicers as gRPC."""

import pytest_twisted

from evm_client import DEV0, OTHER, send, w3
from helpers import b32, in_thread, rest


@pytest_twisted.inlineCallbacks
def test_balances_agree_with_eth_get_balance_now_and_at_a_past_height(node):
    web3 = w3(node)
    receipt = yield in_thread(send, web3, {"to": OTHER, "value": 77, "nonce": 0})
    base = node.genesis.base_denom
    status, headers, body = yield rest(node, f"/cosmos/bank/v1beta1/balances/{b32(node, OTHER)}")
    assert status == 200 and body == {"balances": [{"denom": base, "amount": "77"}],
                                      "pagination": {"next_key": None, "total": "1"}}
    assert headers["Grpc-Metadata-X-Cosmos-Block-Height"] == str(node.app.height)
    status, headers, body = yield rest(node, f"/cosmos/bank/v1beta1/balances/{b32(node, OTHER)}",
                                       height=receipt.blockNumber - 1)
    assert body["balances"] == [] and headers["Grpc-Metadata-X-Cosmos-Block-Height"] == str(receipt.blockNumber - 1)
    dev = b32(node, DEV0)
    _, _, body = yield rest(node, f"/cosmos/bank/v1beta1/balances/{dev}/by_denom?denom={base}")
    assert int(body["balance"]["amount"]) == (yield in_thread(web3.eth.get_balance, DEV0))
    _, _, page = yield rest(node, f"/cosmos/bank/v1beta1/balances/{dev}?pagination.limit=1"
                                  "&pagination.count_total=true")
    assert len(page["balances"]) == 1 and page["pagination"]["next_key"] and int(page["pagination"]["total"]) >= 3
    ibc = next(d for d, _ in node.genesis.balances[0][1] if d.startswith("ibc/"))
    _, _, body = yield rest(node, f"/cosmos/bank/v1beta1/denoms_metadata/{ibc}")
    assert body["metadata"]["base"] == ibc


@pytest_twisted.inlineCallbacks
def test_other_services_and_errors(node):
    _, _, body = yield rest(node, "/cosmos/auth/v1beta1/bech32")
    assert body == {"bech32_prefix": node.genesis.bech32_prefix}
    _, _, body = yield rest(node, "/cosmos/base/tendermint/v1beta1/blocks/latest")
    assert int(body["block"]["header"]["height"]) == node.app.height
    _, _, body = yield rest(node, "/cosmos/base/node/v1beta1/status")
    assert int(body["height"]) == node.app.height
    status, _, body = yield rest(node, "/cosmos/bank/v1beta1/balances/chain1nope")
    assert status == 400 and body["code"] == 3 and body["details"] == []
    status, _, body = yield rest(node, "/cosmos/bank/v1beta1/balances/x?pagination.limit=ten")
    assert status == 400 and body["code"] == 3
    status, _, body = yield rest(node, "/cosmos/nope/v1/things")
    assert status == 501 and body == {"code": 12, "message": "Not Implemented", "details": []}
    status, _, body = yield rest(node, "/cosmos/bank/v1beta1/params", height=-1)
    assert status == 400 and "height < 0" in body["message"]
