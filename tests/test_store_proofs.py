"""abci_query with prove=true on /store/<name>/key, checked by the real light-client libraries: @cosmjs/stargate's
QueryClient.queryStoreVerified and @confio/ics23's verifyMembership/verifyNonMembership (npm, run by node in a
subprocess), for present and absent keys at several heights; and the refusals of what cannot be proven.

The npm packages are installed once under ~/.cache (conftest's ics23_client), never in the repo.
"""

import base64
import json
import subprocess

import pytest
import pytest_twisted
from google.protobuf import any_pb2

from chaind.chain import txs
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.auth.v1beta1 import auth_pb2
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.crypto.ed25519 import keys_pb2 as ed25519_pb2
from chaind.pb.cosmos.staking.v1beta1 import staking_pb2
from cometbft_client import abci_query, balance_key, post
from helpers import in_thread
from native_txs import build_native


def run_verifier(client, rpc, checks):
    run = subprocess.run(["node", str(client / "verify.js")], input=json.dumps({"rpc": rpc, "checks": checks}),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest_twisted.inlineCallbacks
def send_ibc(node, sender, to, amount):
    app = node.app
    g = app.genesis
    ibc = next(d for d, _ in g.balances[0][1] if d.startswith("ibc/"))
    view = app.view()
    number, _ = app.keepers["auth"].account(view, sender.address)
    msg = bank_tx.MsgSend(from_address=to_bech32(g.bech32_prefix, sender.address),
                          to_address=to_bech32(g.bech32_prefix, to),
                          amount=[coin_pb2.Coin(denom=ibc, amount=str(amount))])
    raw = build_native([(txs.MSG_SEND, msg)], sender, g.chain_id, number,
                       view.accounts.get_nonce(sender.address),
                       [(g.base_denom, app.next_base_fee() * 200000)], 200000)
    _, reply = yield post(node, "broadcast_tx_commit", {"tx": base64.b64encode(raw).decode()})
    assert reply["result"]["tx_result"]["code"] == 0, reply
    return ibc, int(reply["result"]["height"])


@pytest.mark.external
@pytest_twisted.inlineCallbacks
def test_cosmjs_and_ics23_verify_present_and_absent_keys_at_several_heights(node, ics23_client):
    keys = node.home.dev_keys()
    stranger = b"\x42" * 20
    _, before = yield send_ibc(node, keys[3], keys[4].address, 1)
    ibc, first = yield send_ibc(node, keys[2], stranger, 7)
    _, second = yield send_ibc(node, keys[2], stranger, 5)
    yield send_ibc(node, keys[3], keys[4].address, 1)      # one more block: `second` gets its next header
    rpc = f"http://127.0.0.1:{node.port_of('cometbft')}"
    checks = [{"store": "bank", "key": balance_key(stranger, ibc), "height": first},
              {"store": "bank", "key": balance_key(stranger, ibc), "height": second},
              {"store": "bank", "key": balance_key(keys[2].address, ibc), "height": second},
              {"store": "bank", "key": balance_key(b"\x77" * 20, ibc), "height": second},       # absent
              {"store": "bank", "key": balance_key(stranger, ibc), "height": before},            # absent then
              {"store": "acc", "key": "ff", "height": second},                                   # past the end
              {"store": "bank", "key": balance_key(keys[2].address, node.app.genesis.base_denom), "height": second},
              {"store": "bank", "key": balance_key(keys[5].address, node.app.genesis.base_denom), "height": before},
              {"store": "acc", "key": "01" + keys[2].address.hex(), "height": second}]              # x/auth's
    results = yield in_thread(run_verifier, ics23_client, rpc, checks)
    for result in results:
        assert result["cosmjs"]["ok"], result
        assert result["ics23"]["ok"], result
    values = [bytes.fromhex(r["cosmjs"]["value"]) for r in results]
    assert values[:2] == [b"7", b"12"]
    assert values[3] == values[4] == values[5] == b""
    assert [r["ics23"]["member"] for r in results] == [True, True, True, False, False, False, True, True, True]
    account = auth_pb2.BaseAccount.FromString(any_pb2.Any.FromString(values[8]).value)
    assert account.sequence == node.app.view(second).accounts.get_nonce(keys[2].address) == 2
    # The base denom's balance, kept in the EVM state, is mirrored into the bank store at each height.
    for value, (who, height) in zip(values[6:], ((keys[2], second), (keys[5], before)), strict=False):
        assert int(value) == node.app.view(height).accounts.get_balance(who.address) > 0


@pytest_twisted.inlineCallbacks
def test_what_cannot_be_proven_is_refused_with_the_supported_paths(node):
    yield send_ibc(node, node.home.dev_keys()[2], b"\x42" * 20, 1)
    grpc_path = yield abci_query(node, "/cosmos.bank.v1beta1.Query/TotalSupply")
    assert grpc_path["code"] == 18 and "/store/<name>/key" in grpc_path["log"] and grpc_path["proofOps"] is None
    evm = yield abci_query(node, "/store/evm/key", b"\x01")
    assert evm["code"] == 18 and "eth_getProof" in evm["log"] and "/store/<name>/key" in evm["log"]
    unknown = yield abci_query(node, "/store/nosuch/key", b"\x01")
    assert unknown["code"] == 6 and "no such store: nosuch" in unknown["log"]
    low = yield abci_query(node, "/store/bank/key", b"\x01", height=1)
    assert low["code"] == 18 and "height <= 1" in low["log"]


@pytest_twisted.inlineCallbacks
def test_subspace_lists_a_prefix_without_proof(node):
    keys = node.home.dev_keys()
    ibc, height = yield send_ibc(node, keys[2], b"\x42" * 20, 3)
    prefix = b"\x02\x14" + b"\x42" * 20
    answer = yield abci_query(node, "/store/bank/subspace", prefix, height=height)
    assert answer["code"] == 0 and answer["proofOps"] is None
    assert base64.b64decode(answer["key"]) == prefix
    key = prefix + ibc.encode()
    pair = b"\x0a" + bytes([len(key)]) + key + b"\x12\x01" + b"3"
    assert base64.b64decode(answer["value"]) == b"\x0a" + bytes([len(pair)]) + pair


@pytest_twisted.inlineCallbacks
def test_a_proof_below_the_pruning_horizon_answers_the_pruned_error(node_factory):
    node = node_factory(storage={"pruning": 2, "prune_interval": 1})
    keys = node.home.dev_keys()
    heights = []
    for amount in range(1, 6):
        ibc, height = yield send_ibc(node, keys[2], b"\x42" * 20, amount)
        heights.append(height)
    key = bytes.fromhex(balance_key(b"\x42" * 20, ibc))
    pruned = yield abci_query(node, "/store/bank/key", key, height=heights[0])
    assert pruned["code"] == 18 and "is pruned" in pruned["log"] and pruned["proofOps"] is None
    kept = yield abci_query(node, "/store/bank/key", key, height=node.app.height)
    assert kept["code"] == 0 and len(kept["proofOps"]["ops"]) == 2


@pytest_twisted.inlineCallbacks
def test_a_subspace_larger_than_the_limit_is_refused(node_factory):
    node = node_factory(storage={"subspace_max_keys": 2})
    yield send_ibc(node, node.home.dev_keys()[2], b"\x42" * 20, 1)
    answer = yield abci_query(node, "/store/bank/subspace", b"\x02", prove=False)
    assert answer["code"] == 18 and "more than 2 keys under prefix 0x02" in answer["log"]
    one = yield abci_query(node, "/store/bank/subspace", b"\x02\x14" + b"\x42" * 20, prove=False)
    assert one["code"] == 0 and one["value"]


@pytest.mark.external
@pytest_twisted.inlineCallbacks
def test_cosmjs_and_ics23_verify_staking_and_auth_index_entries_in_the_sdks_layout(node, ics23_client):
    keys = node.home.dev_keys()
    _, height = yield send_ibc(node, keys[2], b"\x42" * 20, 1)
    yield send_ibc(node, keys[3], keys[4].address, 1)      # one more block: `height` gets its next header
    app, g = node.app, node.app.genesis
    view = app.view(height)
    v = app.keepers["staking"].validators(view)[0]
    shares = app.keepers["staking"].delegation(view, v.operator, v.operator)
    number, _ = app.keepers["auth"].account(view, keys[2].address)
    lp = lambda part: bytes([len(part)]) + part  # noqa: E731
    checks = [{"store": "staking", "key": (b"\x21" + lp(v.operator)).hex(), "height": height},
              {"store": "staking", "key": (b"\x31" + lp(v.operator) + lp(v.operator)).hex(), "height": height},
              {"store": "acc", "key": (b"accountNumber" + number.to_bytes(8, "big")).hex(), "height": height},
              {"store": "staking", "key": (b"\x22" + lp(v.cons_address)).hex(), "height": height},
              {"store": "staking", "key": (b"\x21" + lp(b"\x77" * 20)).hex(), "height": height}]       # absent
    results = yield in_thread(run_verifier, ics23_client, rpc_of(node), checks)
    for result in results:
        assert result["cosmjs"]["ok"], result
        assert result["ics23"]["ok"], result
    assert [r["ics23"]["member"] for r in results] == [True, True, True, True, False]
    values = [bytes.fromhex(r["cosmjs"]["value"]) for r in results]
    # The values are x/staking's protos, as the SDK marshals them (LegacyDec fields in atomics).
    found = staking_pb2.Validator.FromString(values[0])
    assert found.operator_address == to_bech32(g.bech32_prefix + "valoper", v.operator)
    assert (found.tokens, found.delegator_shares, found.status) == (str(v.tokens), str(v.shares), 3)
    assert ed25519_pb2.PubKey.FromString(found.consensus_pubkey.value).key == v.pubkey
    assert found.consensus_pubkey.type_url == "/cosmos.crypto.ed25519.PubKey"
    assert found.commission.commission_rates.rate == str(v.rate)
    assert found.SerializeToString() == values[0]
    delegation = staking_pb2.Delegation.FromString(values[1])
    assert delegation == staking_pb2.Delegation(delegator_address=to_bech32(g.bech32_prefix, v.operator),
                                                validator_address=found.operator_address, shares=str(shares))
    assert values[2] == keys[2].address and values[3] == v.operator and values[4] == b""


def rpc_of(node):
    return f"http://127.0.0.1:{node.port_of('cometbft')}"
