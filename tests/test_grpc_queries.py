"""auth, tendermint and tx services beyond balances, through generated stubs, REST and abci_query:
accounts paged, module accounts, validator sets, ABCIQuery, GetTxsEvent, GetBlockWithTxs and Simulate."""

import base64
import hashlib
import urllib.parse
import urllib.request

import grpc
import pytest_twisted
from twisted.internet import defer

from chaind.chain.modules.auth import FEE_COLLECTOR
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.auth.v1beta1 import auth_pb2
from chaind.pb.cosmos.auth.v1beta1 import query_pb2 as auth_q
from chaind.pb.cosmos.auth.v1beta1 import query_pb2_grpc as auth_grpc
from chaind.pb.cosmos.base.query.v1beta1.pagination_pb2 import PageRequest
from chaind.pb.cosmos.base.tendermint.v1beta1 import query_pb2 as cmt_q
from chaind.pb.cosmos.base.tendermint.v1beta1 import query_pb2_grpc as cmt_grpc
from chaind.pb.cosmos.crypto.ed25519 import keys_pb2 as ed25519
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_s
from chaind.pb.cosmos.tx.v1beta1 import service_pb2_grpc as tx_grpc
from evm_client import DEV0, OTHER, sign, w3
from helpers import b32, call, comet, in_thread, rest
from native_client import signed_send

AUTH, CMT, TX = auth_grpc.QueryStub, cmt_grpc.ServiceStub, tx_grpc.ServiceStub
INVALID, UNKNOWN, NOT_FOUND, INTERNAL = (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.UNKNOWN,
                                         grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INTERNAL)


def _address_of(any_account):
    if any_account.type_url == "/cosmos.auth.v1beta1.ModuleAccount":
        return auth_pb2.ModuleAccount.FromString(any_account.value).base_account.address
    return auth_pb2.BaseAccount.FromString(any_account.value).address


@pytest_twisted.inlineCallbacks
def test_accounts_paged_by_address_and_module_accounts(node):
    modules = {name: address for name, (address, _) in node.app.module_accounts.items()}
    assert set(modules) == {"fee_collector", "distribution", "erc20", "inflation", "bonded_tokens_pool",
                            "not_bonded_tokens_pool", "gov", "transfer"}
    # The dev genesis' native token pairs put an ERC-20 precompile, with an account, at these addresses (the
    # EVM coin's WERC20 among them).
    precompiles = [bytes.fromhex(p.erc20_address[2:]) for p in node.genesis.erc20.token_pairs]
    assert len(precompiles) == 3
    # ICS-20's module account is made when it first mints or burns, as the SDK's GetModuleAccount makes it.
    everyone = sorted([k.address for k in node.dev_keys] + [a for n, a in modules.items() if n != "transfer"]
                      + precompiles)
    expected = [to_bech32("chain", a) for a in everyone]
    first, _ = yield call(node, AUTH, "Accounts", auth_q.QueryAccountsRequest(
        pagination=PageRequest(limit=4, count_total=True)))
    assert [_address_of(a) for a in first.accounts] == expected[:4]
    assert (first.pagination.next_key, first.pagination.total) == (everyone[4], len(everyone))
    rest_of, _ = yield call(node, AUTH, "Accounts", auth_q.QueryAccountsRequest(
        pagination=PageRequest(key=first.pagination.next_key)))
    assert [_address_of(a) for a in rest_of.accounts] == expected[4:] and rest_of.pagination.next_key == b""
    backwards, _ = yield call(node, AUTH, "Accounts", auth_q.QueryAccountsRequest(
        pagination=PageRequest(reverse=True, limit=2)))
    assert [_address_of(a) for a in backwards.accounts] == expected[::-1][:2]
    # The fee collector is a module account, wherever it is listed.
    module, _ = yield call(node, AUTH, "ModuleAccountByName", auth_q.QueryModuleAccountByNameRequest(
        name="fee_collector"))
    assert module.account.type_url == "/cosmos.auth.v1beta1.ModuleAccount"
    decoded = auth_pb2.ModuleAccount.FromString(module.account.value)
    assert (decoded.name, decoded.base_account.address) == ("fee_collector", to_bech32("chain", FEE_COLLECTOR))
    listed, _ = yield call(node, AUTH, "ModuleAccounts", auth_q.QueryModuleAccountsRequest())
    # Sorted by name: bonded_tokens_pool, distribution, erc20, fee_collector, gov, inflation, not_bonded_tokens_pool,
    # transfer.
    decoded = [auth_pb2.ModuleAccount.FromString(a.value) for a in listed.accounts]
    assert [(d.name, list(d.permissions)) for d in decoded] == [
        ("bonded_tokens_pool", ["burner", "staking"]), ("distribution", []), ("erc20", ["minter", "burner"]),
        ("fee_collector", []), ("gov", ["burner"]), ("inflation", ["minter"]),
        ("not_bonded_tokens_pool", ["burner", "staking"]), ("transfer", ["minter", "burner"])]
    assert listed.accounts[3] == module.account
    by_address, _ = yield call(node, AUTH, "Account", auth_q.QueryAccountRequest(
        address=to_bech32("chain", FEE_COLLECTOR)))
    assert by_address.account == module.account
    info, _ = yield call(node, AUTH, "AccountInfo", auth_q.QueryAccountInfoRequest(address=b32(node, DEV0)))
    assert (info.info.address, info.info.account_number) == (b32(node, DEV0), 0)
    status, _, body = yield rest(node, "/cosmos/auth/v1beta1/accounts?pagination.limit=1&pagination.count_total=true")
    assert status == 200 and body["accounts"][0]["@type"] == "/cosmos.auth.v1beta1.BaseAccount"
    assert body["pagination"]["total"] == str(len(everyone))
    nobody = b32(node, "0x" + "44" * 20)
    for method, request, error in (
            ("AccountInfo", auth_q.QueryAccountInfoRequest(address=nobody), (NOT_FOUND, f"account {nobody} not found")),
            ("AccountInfo", auth_q.QueryAccountInfoRequest(), (INVALID, "address cannot be empty")),
            ("ModuleAccountByName", auth_q.QueryModuleAccountByNameRequest(name="no_such_module"),
             (NOT_FOUND, "account no_such_module not found")),
            ("ModuleAccountByName", auth_q.QueryModuleAccountByNameRequest(), (INVALID, "module name is empty")),
            ("Accounts", auth_q.QueryAccountsRequest(pagination=PageRequest(key=b"x", offset=1)),
             (INVALID, "paginate: invalid request, either offset or key is expected, got both"))):
        reply, got = yield call(node, AUTH, method, request)
        assert (reply, got) == (None, error), method


@pytest_twisted.inlineCallbacks
def test_validator_sets_and_abci_query(node):
    validator = node.genesis.validators[0]
    latest, _ = yield call(node, CMT, "GetLatestValidatorSet", cmt_q.GetLatestValidatorSetRequest())
    # As CometBFT's validators route without a height: the next block's set, the latest one known.
    assert latest.block_height == node.app.height + 1 and latest.pagination.total == 1
    (one,) = latest.validators
    assert one.address == to_bech32("chainvalcons", hashlib.sha256(validator.consensus_pubkey).digest()[:20])
    assert one.pub_key.type_url == "/cosmos.crypto.ed25519.PubKey"
    assert ed25519.PubKey.FromString(one.pub_key.value).key == validator.consensus_pubkey
    assert one.voting_power == validator.power
    at, _ = yield call(node, CMT, "GetValidatorSetByHeight", cmt_q.GetValidatorSetByHeightRequest(height=1))
    assert at.block_height == 1 and list(at.validators) == [one]
    _, error = yield call(node, CMT, "GetValidatorSetByHeight", cmt_q.GetValidatorSetByHeightRequest(height=10**6))
    assert error == (INVALID, "requested block height is bigger then the chain length")
    _, error = yield call(node, CMT, "GetLatestValidatorSet", cmt_q.GetLatestValidatorSetRequest(
        pagination=PageRequest(offset=5, limit=1)))
    assert error == (UNKNOWN, "page should be within [1, 1] range, given 6")
    status, _, body = yield rest(node, "/cosmos/base/tendermint/v1beta1/validatorsets/latest")
    assert status == 200 and body["validators"][0]["pub_key"]["@type"] == "/cosmos.crypto.ed25519.PubKey"

    version, _ = yield call(node, CMT, "ABCIQuery", cmt_q.ABCIQueryRequest(path="/app/version"))
    assert version.code == 0 and version.value.decode() == __import__("chaind").__version__
    # A raw store read: the key is absent from the bank store (its keys start 0x00 or 0x02).
    store, _ = yield call(node, CMT, "ABCIQuery", cmt_q.ABCIQueryRequest(path="/store/bank/key", data=b"k"))
    assert (store.code, store.key, store.value, store.height) == (0, b"k", b"", node.app.height)
    nosuch, _ = yield call(node, CMT, "ABCIQuery", cmt_q.ABCIQueryRequest(path="/store/nosuch/key", data=b"k"))
    assert (nosuch.code, nosuch.codespace, nosuch.log) == (6, "sdk", "no such store: nosuch: unknown request")
    _, error = yield call(node, CMT, "ABCIQuery", cmt_q.ABCIQueryRequest(path="/cosmos.bank.v1beta1.Query/Params"))
    assert error == (INVALID, "unsupported ABCI query path: /cosmos.bank.v1beta1.Query/Params")
    _, error = yield call(node, CMT, "ABCIQuery", cmt_q.ABCIQueryRequest())
    assert error == (INVALID, "empty query path")
    # CometBFT's abci_query answers the same app paths.
    reply = yield in_thread(comet, node, "abci_query", path="/app/version")
    assert base64.b64decode(reply["result"]["response"]["value"]) == version.value


def _native_send(node, who, to, amount):
    return _native_send_raw(node, signed_send(node, who, to, amount))


@pytest_twisted.inlineCallbacks
def test_get_txs_event_by_query_and_by_legacy_events(node):
    recipient = bytes([0x77]) * 20
    sent = []
    for who in (3, 4, 3):
        sent.append((yield in_thread(_native_send, node, who, recipient, 10 + who)))
    hashes = [hashlib.sha256(raw).hexdigest().upper() for raw, _ in sent]
    receiver = to_bech32("chain", recipient)
    query = f"transfer.recipient='{receiver}'"
    found, _ = yield call(node, TX, "GetTxsEvent", tx_s.GetTxsEventRequest(query=query))
    assert [r.txhash for r in found.tx_responses] == hashes and found.total == 3
    assert [r.height for r in found.tx_responses] == [h for _, h in sent]
    assert found.txs[0].body.messages[0].type_url == "/cosmos.bank.v1beta1.MsgSend"
    assert not found.HasField("pagination")
    desc, _ = yield call(node, TX, "GetTxsEvent", tx_s.GetTxsEventRequest(
        query=query, order_by=tx_s.ORDER_BY_DESC, page=1, limit=2))
    assert [r.txhash for r in desc.tx_responses] == hashes[::-1][:2] and desc.total == 3
    second, _ = yield call(node, TX, "GetTxsEvent", tx_s.GetTxsEventRequest(query=query, page=2, limit=2))
    assert [r.txhash for r in second.tx_responses] == hashes[2:]
    sender = to_bech32("chain", node.dev_keys[3].address)
    both, _ = yield call(node, TX, "GetTxsEvent", tx_s.GetTxsEventRequest(
        query=f"{query} AND message.sender='{sender}'"))
    assert [r.txhash for r in both.tx_responses] == [hashes[0], hashes[2]]
    # v0.47 clients send `events` (each a condition) with the old pagination.
    legacy, _ = yield call(node, TX, "GetTxsEvent", tx_s.GetTxsEventRequest(
        events=[query, f"tx.height>={sent[1][1]}"], pagination=PageRequest(offset=1, limit=1)))
    assert [r.txhash for r in legacy.tx_responses] == [hashes[2]]
    assert (legacy.total, legacy.pagination.total) == (2, 2)
    status, _, body = yield rest(node, "/cosmos/tx/v1beta1/txs?" + urllib.parse.urlencode(
        {"query": query, "order_by": "ORDER_BY_DESC", "limit": "1"}))
    assert status == 200 and body["total"] == "3" and body["tx_responses"][0]["txhash"] == hashes[2]
    assert body["pagination"] is None
    status, _, body = yield rest(node, "/cosmos/tx/v1beta1/txs?" + urllib.parse.urlencode(
        [("events", query), ("events", f"message.sender='{sender}'")]))
    assert status == 200 and [r["txhash"] for r in body["tx_responses"]] == [hashes[0], hashes[2]]
    for request, error in (
            (tx_s.GetTxsEventRequest(), (INTERNAL, "query cannot be empty")),
            (tx_s.GetTxsEventRequest(query=query, page=3, limit=2), (INTERNAL, "page should be within [1, 2] range, "
                                                                               "given 3")),
            (tx_s.GetTxsEventRequest(query="transfer.recipient="), (INTERNAL, None)),
            (tx_s.GetTxsEventRequest(events=["transfer.recipient"]), (
                INVALID, "invalid event; event transfer.recipient should be of the format: "
                         "{eventType}.{eventAttribute}={value}"))):
        reply, got = yield call(node, TX, "GetTxsEvent", request)
        assert reply is None and got[0] == error[0] and (error[1] is None or got[1] == error[1]), request
    status, _, body = yield rest(node, "/cosmos/tx/v1beta1/txs")
    assert (status, body["code"], body["message"]) == (500, 13, "query cannot be empty")


@pytest_twisted.inlineCallbacks
def test_get_block_with_txs_pages_the_block(node_factory):
    # Blocks every half second: the three txs sent at once share one.
    node = node_factory(chain={"block_interval": 0.5, "empty_blocks": False})
    web3 = w3(node)
    raws = [sign({"to": OTHER, "value": 1 + n, "nonce": n}).raw_transaction for n in range(3)]
    hashes = yield in_thread(lambda: [web3.eth.send_raw_transaction(raw) for raw in raws])
    receipts = yield defer.gatherResults([in_thread(web3.eth.wait_for_transaction_receipt, h, 10, 0.05)
                                          for h in hashes])
    height = receipts[0].blockNumber
    assert {r.blockNumber for r in receipts} == {height}

    whole, header = yield call(node, TX, "GetBlockWithTxs", tx_s.GetBlockWithTxsRequest(height=height))
    assert len(whole.txs) == 3 and whole.pagination.total == 3 and whole.block.header.height == height
    assert whole.block_id.hash == bytes(receipts[0].blockHash)
    assert [t.SerializeToString() for t in whole.txs] == [_tx_of(raw).SerializeToString()
                                                          for raw in whole.block.data.txs]
    page, _ = yield call(node, TX, "GetBlockWithTxs", tx_s.GetBlockWithTxsRequest(
        height=height, pagination=PageRequest(offset=1, limit=1)))
    assert [t.SerializeToString() for t in page.txs] == [whole.txs[1].SerializeToString()]
    backwards, _ = yield call(node, TX, "GetBlockWithTxs", tx_s.GetBlockWithTxsRequest(
        height=height, pagination=PageRequest(reverse=True, limit=2)))
    assert [t.SerializeToString() for t in backwards.txs] == [t.SerializeToString() for t in whole.txs[::-1][:2]]
    _, error = yield call(node, TX, "GetBlockWithTxs", tx_s.GetBlockWithTxsRequest(
        height=height, pagination=PageRequest(offset=3)))
    assert error == (UNKNOWN, "invalid request: out of range: cannot paginate 3 txs with offset 3 and limit 100")
    _, error = yield call(node, TX, "GetBlockWithTxs", tx_s.GetBlockWithTxsRequest(height=height + 50))
    assert error == (UNKNOWN, f"invalid height: requested height {height + 50} but height must not be less than 1 "
                              f"or greater than the current height {node.app.height}")
    # The height header bounds it too: a block after the requested state is "in the future".
    _, error = yield call(node, TX, "GetBlockWithTxs", tx_s.GetBlockWithTxsRequest(height=height), height - 1)
    assert error[0] == UNKNOWN and f"current height {height - 1}" in error[1]
    status, _, body = yield rest(node, f"/cosmos/tx/v1beta1/txs/block/{height}?pagination.limit=1")
    assert status == 200 and len(body["txs"]) == 1 and body["pagination"]["total"] == "3"
    assert body["block"]["header"]["height"] == str(height)


def _tx_of(raw):
    from chaind.pb.cosmos.tx.v1beta1 import tx_pb2

    tx_raw = tx_pb2.TxRaw.FromString(raw)
    return tx_pb2.Tx(body=tx_pb2.TxBody.FromString(tx_raw.body_bytes),
                     auth_info=tx_pb2.AuthInfo.FromString(tx_raw.auth_info_bytes), signatures=tx_raw.signatures)


@pytest_twisted.inlineCallbacks
def test_simulate_runs_on_the_head_and_changes_nothing(node):
    key = node.dev_keys[6]
    recipient = bytes([0x78]) * 20
    raw = signed_send(node, 6, recipient, 500)
    view = node.app.view()
    before = (view.accounts.get_balance(key.address), view.accounts.get_nonce(key.address))
    simulated, _ = yield call(node, TX, "Simulate", tx_s.SimulateRequest(tx_bytes=raw))
    assert simulated.gas_info.gas_wanted == 200000 and 0 < simulated.gas_info.gas_used < 200000
    events = {e.type for e in simulated.result.events}
    assert {"transfer", "coin_spent", "message", "tx"} <= events
    assert [r.type_url for r in simulated.result.msg_responses] == ["/cosmos.bank.v1beta1.MsgSendResponse"]
    view = node.app.view()
    assert (view.accounts.get_balance(key.address), view.accounts.get_nonce(key.address)) == before
    assert view.accounts.get_balance(recipient) == 0
    # The same tx delivered uses the gas the simulation said.
    _, height = yield in_thread(_native_send_raw, node, raw)
    delivered = node.app.result_at(height, 0)
    assert delivered.gas_used == simulated.gas_info.gas_used
    status, _, body = yield rest(node, "/cosmos/tx/v1beta1/simulate", {"tx_bytes": base64.b64encode(
        signed_send(node, 6, recipient, 1)).decode()})
    assert status == 200 and body["gas_info"]["gas_used"] == str(simulated.gas_info.gas_used)
    # Re-sent (its sequence is used now), too rich, empty, garbage: the SDK's errors.
    for request, code, text in (
            (tx_s.SimulateRequest(tx_bytes=raw), UNKNOWN, "account sequence mismatch"),
            (tx_s.SimulateRequest(tx_bytes=signed_send(node, 6, recipient, 10**40)), UNKNOWN, "insufficient funds"),
            (tx_s.SimulateRequest(), INVALID, "empty txBytes is not allowed"),
            (tx_s.SimulateRequest(tx_bytes=b"\x01\x02"), UNKNOWN, "with gas used: '0'")):
        reply, error = yield call(node, TX, "Simulate", request)
        assert reply is None and error[0] == code and text in error[1], error


def _native_send_raw(node, raw):
    result = comet(node, "broadcast_tx_commit", tx=base64.b64encode(raw).decode())["result"]
    assert result["tx_result"]["code"] == 0
    return raw, int(result["height"])
