"""The gRPC face on a real node, through generated stubs: balances agree with eth_getBalance and genesis,
historical reads by header, pagination, reflection, and the SDK's status for each bad input."""

import base64
import json
import urllib.request

import grpc
import pytest_twisted
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from chaind.chain import txs
from chaind.chain.modules.auth.keeper import PUBKEY_TYPE_URL
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.auth.v1beta1 import auth_pb2
from chaind.pb.cosmos.auth.v1beta1 import query_pb2 as auth_q
from chaind.pb.cosmos.auth.v1beta1 import query_pb2_grpc as auth_grpc
from chaind.pb.cosmos.bank.v1beta1 import query_pb2 as bank_q
from chaind.pb.cosmos.bank.v1beta1 import query_pb2_grpc as bank_grpc
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.node.v1beta1 import query_pb2 as node_q
from chaind.pb.cosmos.base.node.v1beta1 import query_pb2_grpc as node_grpc
from chaind.pb.cosmos.base.query.v1beta1.pagination_pb2 import PageRequest
from chaind.pb.cosmos.base.tendermint.v1beta1 import query_pb2 as cmt_q
from chaind.pb.cosmos.base.tendermint.v1beta1 import query_pb2_grpc as cmt_grpc
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.ethermint.crypto.v1.ethsecp256k1 import keys_pb2 as ethsecp256k1
from evm_client import DEV0, OTHER, send, w3
from helpers import b32, call, in_thread
from native_txs import build_native

IBC = "ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2"
GENESIS_IBC = 1000000000000000
BANK, AUTH, CMT, NODE = bank_grpc.QueryStub, auth_grpc.QueryStub, cmt_grpc.ServiceStub, node_grpc.ServiceStub
STUBS = {"bank": BANK, "auth": AUTH, "cmt": CMT, "node": NODE}


@pytest_twisted.inlineCallbacks
def test_balances_equal_eth_getBalance_and_genesis_at_latest_and_past_heights(node):
    web3 = w3(node)
    first = yield in_thread(send, web3, {"to": OTHER, "value": 7, "nonce": 0})
    yield in_thread(send, web3, {"to": OTHER, "value": 5, "nonce": 1})
    for height in (first.blockNumber, None):
        for who in (DEV0, OTHER):
            wei = yield in_thread(web3.eth.get_balance, who, height or "latest")
            reply, header = yield call(node, BANK, "Balance", bank_q.QueryBalanceRequest(
                address=b32(node, who), denom="achain"), height)
            assert reply.balance == coin_pb2.Coin(denom="achain", amount=str(wei))
            assert header["x-cosmos-block-height"] == str(height or node.app.height)
        ibc, _ = yield call(node, BANK, "Balance", bank_q.QueryBalanceRequest(address=b32(node, DEV0), denom=IBC),
                            height)
        assert ibc.balance.amount == str(GENESIS_IBC)
    assert (yield in_thread(web3.eth.get_balance, OTHER, first.blockNumber)) == 7
    wei = yield in_thread(web3.eth.get_balance, DEV0, "latest")
    reply, _ = yield call(node, BANK, "AllBalances", bank_q.QueryAllBalancesRequest(address=b32(node, DEV0)))
    assert [(c.denom, c.amount) for c in reply.balances] == [
        ("achain", str(wei)), (IBC, str(GENESIS_IBC)), ("stake", str(10**21))]
    assert (reply.pagination.next_key, reply.pagination.total) == (b"", 3)
    request = bank_q.QuerySpendableBalancesRequest(address=b32(node, DEV0))
    spendable, _ = yield call(node, BANK, "SpendableBalances", request)
    assert list(spendable.balances) == list(reply.balances)
    resolved, _ = yield call(node, BANK, "AllBalances",
                             bank_q.QueryAllBalancesRequest(address=b32(node, DEV0), resolve_denom=True))
    assert [c.denom for c in resolved.balances] == ["chain", "atom", "stk"]
    # An unknown denom and an address that never held anything both have a zero balance.
    for address, denom in ((b32(node, DEV0), "nothing"), (b32(node, "0x" + "33" * 20), "achain")):
        zero, _ = yield call(node, BANK, "Balance", bank_q.QueryBalanceRequest(address=address, denom=denom))
        assert zero.balance.amount == "0"


@pytest_twisted.inlineCallbacks
def test_pagination_follows_the_sdk(node):
    def page(**fields):
        return call(node, BANK, "AllBalances", bank_q.QueryAllBalancesRequest(
            address=b32(node, DEV0), pagination=PageRequest(**fields)))

    def denoms(reply):
        return [c.denom for c in reply.balances]

    first, _ = yield page(limit=1, count_total=True)
    assert (denoms(first), first.pagination.next_key, first.pagination.total) == (["achain"], IBC.encode(), 3)
    second, _ = yield page(key=first.pagination.next_key, limit=1, count_total=True)
    # With a key, count_total is ignored.
    assert (denoms(second), second.pagination.next_key, second.pagination.total) == ([IBC], b"stake", 0)
    last, _ = yield page(offset=2, limit=5)
    assert (denoms(last), last.pagination.next_key, last.pagination.total) == (["stake"], b"", 0)
    backwards, _ = yield page(reverse=True, limit=2)
    assert (denoms(backwards), backwards.pagination.next_key) == (["stake", IBC], b"achain")
    from_key, _ = yield page(reverse=True, key=IBC.encode(), limit=5)
    assert denoms(from_key) == [IBC, "achain"]
    _, error = yield page(key=b"achain", offset=1)
    assert error == (grpc.StatusCode.INVALID_ARGUMENT,
                     "paginate: invalid request, either offset or key is expected, got both")


@pytest_twisted.inlineCallbacks
def test_supply_params_and_metadata(node):
    supply, _ = yield call(node, BANK, "TotalSupply", bank_q.QueryTotalSupplyRequest())
    amounts = {c.denom: int(c.amount) for c in supply.supply}
    assert [c.denom for c in supply.supply] == ["achain", IBC, "stake"]
    assert amounts[IBC] == 10 * GENESIS_IBC and supply.pagination.total == 3
    one, _ = yield call(node, BANK, "SupplyOf", bank_q.QuerySupplyOfRequest(denom=IBC))
    assert one.amount.amount == str(10 * GENESIS_IBC)
    params, _ = yield call(node, BANK, "Params", bank_q.QueryParamsRequest())
    assert params.params.default_send_enabled and not params.params.send_enabled
    meta, _ = yield call(node, BANK, "DenomMetadata", bank_q.QueryDenomMetadataRequest(denom="achain"))
    assert (meta.metadata.display, [(u.denom, u.exponent) for u in meta.metadata.denom_units]) == (
        "chain", [("achain", 0), ("chain", 18)])
    metas, _ = yield call(node, BANK, "DenomsMetadata", bank_q.QueryDenomsMetadataRequest())
    assert [m.base for m in metas.metadatas] == ["achain", IBC, "stake"] and metas.pagination.total == 3


def _broadcast(node, raw):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "broadcast_tx_commit",
                       "params": {"tx": base64.b64encode(raw).decode()}}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{node.port_of('cometbft')}/", data=body,
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read())["result"]


@pytest_twisted.inlineCallbacks
def test_accounts_are_base_accounts_with_the_cosmjs_pubkey_type(node):
    key = node.dev_keys[1]
    sender = to_bech32("chain", key.address)
    reply, _ = yield call(node, AUTH, "Account", auth_q.QueryAccountRequest(address=sender))
    assert reply.account.type_url == "/cosmos.auth.v1beta1.BaseAccount"
    before = auth_pb2.BaseAccount.FromString(reply.account.value)
    assert (before.address, before.account_number, before.sequence, before.HasField("pub_key")) == (
        sender, 1, 0, False)
    msg = bank_tx.MsgSend(from_address=sender, to_address=b32(node, OTHER),
                          amount=[coin_pb2.Coin(denom=IBC, amount="3")])
    gas = 200000
    raw = build_native([(txs.MSG_SEND, msg)], key, node.genesis.chain_id, 1, 0,
                       [("achain", node.app.next_base_fee() * 2 * gas)], gas)
    result = yield in_thread(_broadcast, node, raw)
    assert result["tx_result"]["code"] == 0
    reply, _ = yield call(node, AUTH, "Account", auth_q.QueryAccountRequest(address=sender))
    after = auth_pb2.BaseAccount.FromString(reply.account.value)
    assert (after.sequence, after.pub_key.type_url) == (1, PUBKEY_TYPE_URL)
    assert ethsecp256k1.PubKey.FromString(after.pub_key.value).key == key.compressed_public_key
    # The past height still shows the account as it was.
    old, header = yield call(node, AUTH, "Account", auth_q.QueryAccountRequest(address=sender),
                             int(result["height"]) - 1)
    assert auth_pb2.BaseAccount.FromString(old.account.value) == before
    assert header["x-cosmos-block-height"] == str(int(result["height"]) - 1)
    other, _ = yield call(node, BANK, "Balance", bank_q.QueryBalanceRequest(address=b32(node, OTHER), denom=IBC))
    assert other.balance.amount == "3"


@pytest_twisted.inlineCallbacks
def test_auth_params_prefix_and_address_conversions(node):
    prefix, _ = yield call(node, AUTH, "Bech32Prefix", auth_q.Bech32PrefixRequest())
    assert prefix.bech32_prefix == "chain"
    raw = bytes.fromhex(DEV0[2:])
    text, _ = yield call(node, AUTH, "AddressBytesToString", auth_q.AddressBytesToStringRequest(address_bytes=raw))
    assert text.address_string == b32(node, DEV0)
    back, _ = yield call(node, AUTH, "AddressStringToBytes",
                         auth_q.AddressStringToBytesRequest(address_string=text.address_string))
    assert back.address_bytes == raw
    params, _ = yield call(node, AUTH, "Params", auth_q.QueryParamsRequest())
    assert (params.params.tx_size_cost_per_byte, params.params.max_memo_characters) == (10, 256)


def _bad_cases():
    good = to_bech32("chain", bytes.fromhex(DEV0[2:]))
    nobody = to_bech32("chain", bytes([0x44]) * 20)
    bad_checksum = good[:-1] + ("q" if good[-1] != "q" else "p")
    cosmos = to_bech32("cosmos", bytes.fromhex(DEV0[2:]))
    bal = bank_q.QueryBalanceRequest
    invalid, unknown, not_found = grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.UNKNOWN, grpc.StatusCode.NOT_FOUND
    return [
        ("bank", "Balance", bal(address=good, denom="x"), invalid, "invalid denom: x"),
        ("bank", "Balance", bal(address=good, denom="1abc"), invalid, "invalid denom: 1abc"),
        ("bank", "Balance", bal(address="", denom="achain"), invalid,
         "invalid address: empty address string is not allowed"),
        ("bank", "Balance", bal(address=bad_checksum, denom="achain"), invalid,
         f"invalid address: decoding bech32 failed: invalid bech32 string '{bad_checksum}'"),
        ("bank", "AllBalances", bank_q.QueryAllBalancesRequest(address=cosmos), invalid,
         "invalid address: hrp does not match bech32 prefix: expected 'chain' got 'cosmos'"),
        ("bank", "SupplyOf", bank_q.QuerySupplyOfRequest(denom="a"), invalid, "invalid denom: a"),
        ("bank", "DenomMetadata", bank_q.QueryDenomMetadataRequest(denom="uosmo"), not_found,
         "client metadata for denom uosmo"),
        ("auth", "Account", auth_q.QueryAccountRequest(address=""), invalid, "Address cannot be empty"),
        ("auth", "Account", auth_q.QueryAccountRequest(address=cosmos), unknown,
         "hrp does not match bech32 prefix: expected 'chain' got 'cosmos'"),
        ("auth", "Account", auth_q.QueryAccountRequest(address=nobody), not_found, f"account {nobody} not found"),
        ("auth", "AddressStringToBytes", auth_q.AddressStringToBytesRequest(address_string=" "), invalid,
         "empty address string is not allowed"),
        ("auth", "AddressBytesToString", auth_q.AddressBytesToStringRequest(), invalid,
         "empty address bytes is not allowed"),
        ("cmt", "GetBlockByHeight", cmt_q.GetBlockByHeightRequest(height=10**9), invalid,
         "requested block height is bigger then the chain length"),
        ("cmt", "GetBlockByHeight", cmt_q.GetBlockByHeightRequest(height=0), unknown,
         "height must be greater than 0, but got 0"),
    ]


@pytest_twisted.inlineCallbacks
def test_each_bad_input_gets_the_sdk_status(node):
    for service, method, request, code, message in _bad_cases():
        reply, error = yield call(node, STUBS[service], method, request)
        assert (reply, error) == (None, (code, message)), method


@pytest_twisted.inlineCallbacks
def test_bad_and_pruned_height_headers(node_factory):
    node = node_factory(storage={"pruning": 3, "prune_interval": 2})
    web3 = w3(node)
    for nonce in range(6):
        yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": nonce})
    request = bank_q.QueryBalanceRequest(address=b32(node, OTHER), denom="achain")
    head = node.app.height
    oldest = node.app.oldest_state_height()
    _, error = yield call(node, BANK, "Balance", request, oldest - 1)
    assert error == (grpc.StatusCode.INVALID_ARGUMENT,
                     f"invalid request: failed to load state at height {oldest - 1}; state at height {oldest - 1} "
                     f"is pruned: this node keeps the last 3 heights, oldest available {oldest} "
                     f"(latest height: {head})")
    kept, header = yield call(node, BANK, "Balance", request, oldest)
    assert header["x-cosmos-block-height"] == str(oldest)
    assert kept.balance.amount == str((yield in_thread(web3.eth.get_balance, OTHER, oldest)))
    _, error = yield call(node, BANK, "Balance", request, head + 1000)
    assert error == (grpc.StatusCode.UNKNOWN,
                     "invalid height: cannot query with height in the future; please provide a valid height")
    _, error = yield call(node, BANK, "Balance", request, -1)
    assert error == (grpc.StatusCode.INVALID_ARGUMENT, "cannot query with height < 0; please provide a valid height")
    _, error = yield call(node, BANK, "Balance", request, "ten")
    assert error[0] == grpc.StatusCode.INVALID_ARGUMENT and 'invalid height header "x-cosmos-block-height"' in error[1]


def _list_services(port):
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        replies = stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
        return sorted(s.name for s in next(replies).list_services_response.service)


@pytest_twisted.inlineCallbacks
def test_reflection_lists_the_services(node):
    names = yield in_thread(_list_services, node.port_of("grpc"))
    assert f"\ngrpc: grpc+http://127.0.0.1:{node.port_of('grpc')}\n" in node.out.getvalue()
    assert names == ["cosmos.auth.v1beta1.Query", "cosmos.authz.v1beta1.Query", "cosmos.bank.v1beta1.Query",
                     "cosmos.base.node.v1beta1.Service",
                     "cosmos.base.tendermint.v1beta1.Service", "cosmos.consensus.v1.Query",
                     "cosmos.distribution.v1beta1.Query", "cosmos.evidence.v1beta1.Query",
                     "cosmos.feegrant.v1beta1.Query", "cosmos.gov.v1.Query",
                     "cosmos.gov.v1beta1.Query", "cosmos.nft.v1beta1.Query", "cosmos.params.v1beta1.Query",
                     "cosmos.slashing.v1beta1.Query", "cosmos.staking.v1beta1.Query", "cosmos.tx.v1beta1.Service",
                     "cosmos.upgrade.v1beta1.Query", "ethermint.evm.v1.Query", "ethermint.feemarket.v1.Query",
                     "evmos.epochs.v1.Query", "evmos.erc20.v1.Query", "evmos.inflation.v1.Query",
                     "evmos.vesting.v2.Query", "grpc.reflection.v1alpha.ServerReflection",
                     "ibc.applications.transfer.v1.Query", "ibc.core.channel.v1.Query", "ibc.core.client.v1.Query",
                     "ibc.core.connection.v1.Query"]


@pytest_twisted.inlineCallbacks
def test_tendermint_and_node_services(node):
    web3 = w3(node)
    receipt = yield in_thread(send, web3, {"to": OTHER, "value": 1, "nonce": 0})
    latest, _ = yield call(node, CMT, "GetLatestBlock", cmt_q.GetLatestBlockRequest())
    header, meta = node.app.head
    assert (latest.block.header.height, latest.block_id.hash) == (header.height, meta.hash)
    assert latest.sdk_block.header.proposer_address.startswith("chainvalcons1")
    by_height, _ = yield call(node, CMT, "GetBlockByHeight", cmt_q.GetBlockByHeightRequest(
        height=receipt.blockNumber))
    assert len(by_height.block.data.txs) == 1
    assert by_height.block_id.hash == bytes(receipt.blockHash)
    info, _ = yield call(node, CMT, "GetNodeInfo", cmt_q.GetNodeInfoRequest())
    assert (info.default_node_info.network, info.application_version.app_name) == (node.genesis.chain_id, "chaind")
    syncing, _ = yield call(node, CMT, "GetSyncing", cmt_q.GetSyncingRequest())
    assert syncing.syncing is False
    cfg, _ = yield call(node, NODE, "Config", node_q.ConfigRequest())
    assert (cfg.pruning_keep_recent, cfg.pruning_interval) == ("0", "100")
    status, _ = yield call(node, NODE, "Status", node_q.StatusRequest(), receipt.blockNumber)
    header, _ = node.app.block_at(receipt.blockNumber)
    assert (status.height, status.app_hash) == (receipt.blockNumber, header.app_hash)


def test_disabled_grpc_has_no_listener(node_factory):
    node = node_factory(grpc={"enable": False})
    assert "grpc" not in node.listeners
    assert "\ngrpc: " not in node.out.getvalue() and "\ncometbft: http://" in node.out.getvalue()


@pytest_twisted.inlineCallbacks
def test_a_request_over_max_recv_msg_size_is_refused(node_factory):
    node = node_factory(grpc={"max_recv_msg_size": 200})
    _, error = yield call(node, BANK, "Balance", bank_q.QueryBalanceRequest(address="c" * 300, denom="achain"))
    assert error[0] == grpc.StatusCode.RESOURCE_EXHAUSTED
    reply, _ = yield call(node, BANK, "Balance", bank_q.QueryBalanceRequest(address=b32(node, DEV0), denom=IBC))
    assert reply.balance.amount == str(GENESIS_IBC)
