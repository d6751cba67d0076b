"""Bank denom metadata over gRPC and REST includes what x/erc20 stores when an ERC-20 is registered at runtime,
read at the height asked: absent before the registration, present after, in DenomsMetadata's order."""

import grpc
import pytest_twisted
from eth_utils import to_checksum_address

from chain_driver import contract_address
from chaind.pb.cosmos.bank.v1beta1 import query_pb2 as bank_q
from chaind.pb.cosmos.bank.v1beta1 import query_pb2_grpc as bank_grpc
from chaind.pb.evmos.erc20.v1 import tx_pb2
from contracts import token_init
from evm_client import send, w3
from helpers import b32, in_thread, rest_sync
from native_client import broadcast, grpc_query


def _register(node):
    web3 = w3(node)
    dev0, dev1 = node.dev_keys[0].address, node.dev_keys[1].address
    token = to_checksum_address(contract_address(dev1, 0))
    receipt = send(web3, {"data": token_init(10**24), "nonce": 0, "gas": 400000}, key=node.dev_keys[1].private_key)
    assert receipt.status == 1
    before = node.app.height
    registered = broadcast(node, 0, "/evmos.erc20.v1.MsgRegisterERC20", tx_pb2.MsgRegisterERC20(
        authority=b32(node, dev0), erc20addresses=[token]))
    assert registered.code == 0, registered.raw_log
    converted = broadcast(node, 1, "/evmos.erc20.v1.MsgConvertERC20", tx_pb2.MsgConvertERC20(
        contract_address=token, amount="5000", receiver=b32(node, dev1), sender=to_checksum_address(dev1)))
    assert converted.code == 0, converted.raw_log
    return token, before


def _queries(node, denom, before, holder):
    stub = bank_grpc.QueryStub
    out = {"one": grpc_query(node, stub, "DenomMetadata", bank_q.QueryDenomMetadataRequest(denom=denom)),
           "all": grpc_query(node, stub, "DenomsMetadata", bank_q.QueryDenomsMetadataRequest()),
           "all_before": grpc_query(node, stub, "DenomsMetadata", bank_q.QueryDenomsMetadataRequest(), before),
           "resolved": grpc_query(node, stub, "AllBalances",
                                  bank_q.QueryAllBalancesRequest(address=holder, resolve_denom=True))}
    _, out["one_before"] = grpc_query(node, stub, "DenomMetadata", bank_q.QueryDenomMetadataRequest(denom=denom),
                                      before)
    out["rest"] = rest_sync(node, f"/cosmos/bank/v1beta1/denoms_metadata/{denom}")
    out["rest_all"] = rest_sync(node, "/cosmos/bank/v1beta1/denoms_metadata")
    return out


@pytest_twisted.inlineCallbacks
def test_registered_erc20_metadata_is_served_by_height(node):
    token, before = yield in_thread(_register, node)
    denom = f"erc20/{token}"
    holder = b32(node, node.dev_keys[1].address)
    out = yield in_thread(_queries, node, denom, before, holder)
    one = out["one"][0].metadata
    assert (one.base, one.display, one.symbol, one.name) == (denom, "TestToken", "TT", denom)
    assert [(u.denom, u.exponent) for u in one.denom_units] == [(denom, 0), ("TestToken", 18)]
    assert out["one_before"] == (grpc.StatusCode.NOT_FOUND, f"client metadata for denom {denom}")
    bases = [m.base for m in out["all"][0].metadatas]
    genesis_bases = sorted(m["base"] for m in node.genesis.denom_metadata)
    assert bases == sorted(genesis_bases + [denom]) and out["all"][0].pagination.total == len(bases)
    assert [m.base for m in out["all_before"][0].metadatas] == genesis_bases
    # resolve_denom shows the registered coin by its display unit.
    assert "TestToken" in [c.denom for c in out["resolved"][0].balances]
    status, _, body = out["rest"]
    assert status == 200 and body["metadata"]["base"] == denom and body["metadata"]["uri_hash"] == ""
    status, _, body = out["rest_all"]
    assert status == 200 and [m["base"] for m in body["metadatas"]] == bases
