"""Slashing and evidence against a running node: a validator the node does not run (created from a dev account
through the CLI) is jailed for downtime, refused an early unjail and unjailed through the CLI after its jail
time, the queries agreeing over gRPC, REST and the CLI; a double sign sent to broadcast_evidence tombstones
its validator and shows in /block and the NewEvidence event; bad evidence is refused with nothing changed;
a replay reproduces every app hash."""

import base64
import hashlib
import json
import time

import pytest
import pytest_twisted
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519
from eth_utils import keccak, to_checksum_address
from web3.exceptions import ContractLogicError
from websockets.sync.client import connect

from chaind.chain import evidence as chain_evidence
from chaind.chain import valset, votes
from chaind.chain.block import BlockId
from chaind.chain.genesis import Genesis
from chaind.chain.modules import slashing
from chaind.chain.modules.slashing.params import Params, parse_params
from chaind.chain.modules.slashing.precompile import WRITE_FLAT
from chaind.chain.replay import replay_chain
from chaind.crypto.addresses import to_bech32
from chaind.home import Home
from chaind.pb.cosmos.evidence.v1beta1 import evidence_pb2
from chaind.pb.cosmos.slashing.v1beta1 import query_pb2 as sq
from chaind.pb.cosmos.slashing.v1beta1 import query_pb2_grpc as sq_grpc
from cli_driver import CHAIN, FEE, committed, js, node_flag, run, send_tx
from evm_client import DEV0, send, w3
from helpers import call, comet, in_thread, rest, until_block, until_height

WINDOW, JAIL_S = 4, 6


def slashing_node(node_factory, tmp_path):
    home = Home(tmp_path / "home")
    home.init("test", dev=True)
    doc = json.loads(home.genesis_file.read_text())
    doc["app_state"]["slashing"]["params"].update(
        signed_blocks_window=str(WINDOW), min_signed_per_window="0.5", downtime_jail_duration=f"{JAIL_S}s")
    home.genesis_file.write_text(json.dumps(doc))
    return node_factory(chain={"block_interval": 0.1, "empty_blocks": True})


def consensus_key():
    private = ed25519.Ed25519PrivateKey.generate()
    raw = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return private, raw, json.dumps({"@type": "/cosmos.crypto.ed25519.PubKey", "key": base64.b64encode(raw).decode()})


@pytest_twisted.inlineCallbacks
def create_validator(node, n, keys, who=1):
    """dev account `who` creates a validator with a consensus key only the test holds; (key, pubkey, valoper)."""
    ok = yield run("keys", "import-hex", f"dev{who}", node.dev_keys[who].private_key.hex(), *keys)
    assert ok.exit_code == 0, ok.output
    valoper = js((yield run("keys", "show", f"dev{who}", "--bech", "val", *keys, "-o", "json")))["address"]
    private, raw, pubkey = consensus_key()
    yield send_tx(n, keys, "staking", "create-validator", "--from", f"dev{who}", "--pubkey", pubkey,
                  "--amount", f"{100 * CHAIN}achain", "--moniker", "absent", "--commission-rate", "0.05")
    return private, raw, valoper


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_downtime_jail_unjail_through_the_cli_and_the_queries_agree(node_factory, tmp_path):
    node = slashing_node(node_factory, tmp_path)
    yield until_height(node, 1)
    n = node_flag(node)
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    _, raw, valoper = yield create_validator(node, n, keys)
    operator = node.dev_keys[1].address
    cons = valset.address_of(raw)
    valcons = to_bech32(node.genesis.bech32_prefix + "valcons", cons)
    yield until_block(node, lambda: node.app.keepers["staking"].validator(node.app.view(), operator).jailed,
                      "the validator jailed")
    height = node.app.height
    # Too early: refused in the block with slashing's code 4 (first, well within the jail time).
    sent = js((yield run("tx", "slashing", "unjail", "--from", "dev1", FEE, "--gas", "400000", "-y", "-o", "json",
                         n, *keys)))
    refused = yield committed(n, sent["txhash"])
    assert (refused["codespace"], refused["code"]) == ("slashing", 4), refused["raw_log"]
    assert refused["raw_log"].endswith("validator still jailed; cannot be unjailed")
    info = node.app.keepers["slashing"].signing_info(node.app.view(height), cons)
    # gRPC, REST and the CLI agree on its signing info at that height.
    by_grpc, _ = yield call(node, sq_grpc.QueryStub, "SigningInfo", sq.QuerySigningInfoRequest(cons_address=valcons),
                            height=height)
    assert by_grpc.val_signing_info == info
    status, _, by_rest = yield rest(node, f"/cosmos/slashing/v1beta1/signing_infos/{valcons}", height=height)
    assert status == 200
    by_cli = js((yield run("q", "slashing", "signing-info", valcons, n, "--height", height, "-o", "json")))
    # The SDK's CLI also takes the consensus public key as `comet show-validator` prints it, or 0x.
    conspub = json.dumps({"@type": "/cosmos.crypto.ed25519.PubKey", "key": base64.b64encode(raw).decode()})
    for other in (conspub, "0x" + cons.hex()):
        by_key = js((yield run("q", "slashing", "signing-info", other, n, "--height", height, "-o", "json")))
        assert by_key == by_cli
    bad = yield run("q", "slashing", "signing-info", '{"@type": "/cosmos.crypto.ed25519.PubKey", "key": "AA=="}', n)
    assert bad.exit_code != 0 and "want an ed25519 consensus public key" in bad.output
    jailed_until = info.jailed_until.ToJsonString()
    for answer in (by_rest["val_signing_info"], by_cli["val_signing_info"]):
        assert answer["address"] == valcons and answer["jailed_until"] == jailed_until
        assert answer["tombstoned"] is False and answer["missed_blocks_counter"] == "0"
        assert answer["start_height"] == str(info.start_height)
    everyone = js((yield run("q", "slashing", "signing-infos", n, "--height", height, "-o", "json")))
    status, _, everyone_rest = yield rest(node, "/cosmos/slashing/v1beta1/signing_infos", height=height)
    assert everyone["info"] == everyone_rest["info"] and len(everyone["info"]) == 2
    params = js((yield run("q", "slashing", "params", n, "-o", "json")))["params"]
    status, _, params_rest = yield rest(node, "/cosmos/slashing/v1beta1/params")
    assert params == params_rest["params"] == {
        "signed_blocks_window": str(WINDOW), "min_signed_per_window": "0.500000000000000000",
        "downtime_jail_duration": f"{JAIL_S}s", "slash_fraction_double_sign": "0.050000000000000000",
        "slash_fraction_downtime": "0.010000000000000000"}
    v = node.app.keepers["staking"].validator(node.app.view(height), operator)
    assert v.tokens == 100 * CHAIN - CHAIN      # 1% for downtime
    # After the jail time it unjails.
    until_ns = info.jailed_until.seconds * 10**9 + info.jailed_until.nanos
    yield until_block(node, lambda: node.app.head[0].time_ns > until_ns, "a block after the jail time")
    unjailed = yield send_tx(n, keys, "slashing", "unjail", "--from", "dev1")
    msg = unjailed["tx"]["body"]["messages"][0]
    assert msg == {"@type": "/cosmos.slashing.v1beta1.MsgUnjail", "validator_addr": valoper}
    after = js((yield run("q", "staking", "validator", valoper, n, "--height", unjailed["height"], "-o", "json")))
    assert after["validator"]["jailed"] is False
    # The bank and staking books balance across it.
    view = node.app.view()
    for module in node.app.modules:
        for name, check in module.invariants:
            assert check(node.app, view) is None, name


def rfc3339_nano(ns):
    """Go's time.RFC3339Nano, as cmtjson writes times: trailing zeros of the fraction dropped."""
    seconds, nanos = divmod(ns, 10**9)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{nanos:09d}".rstrip("0").rstrip(".") + "Z"


def vote_json(key, chain_id, height, block_hash, time_ns, address, index):
    bid = BlockId(block_hash, 1, hashlib.sha256(block_hash).digest())
    signature = key.sign(votes.sign_bytes(chain_id, height, 0, bid, time_ns))
    return {"type": 2, "height": str(height), "round": 0,
            "block_id": {"hash": block_hash.hex().upper(),
                         "parts": {"total": 1, "hash": bid.parts_hash.hex().upper()}},
            "timestamp": rfc3339_nano(time_ns), "validator_address": address.hex().upper(), "validator_index": index,
            "signature": base64.b64encode(signature).decode(), "extension": None, "extension_signature": None}


def evidence_json(node, key, raw, height):
    """A DuplicateVoteEvidence in CometBFT's JSON, as a client (cometbft's own tooling) writes it."""
    address = valset.address_of(raw)
    validators = node.app.validator_set(height)
    index = next(i for i, v in enumerate(validators) if v.address == address)
    block_time = node.app.block_at(height)[0].time_ns
    first, second = sorted([b"\x0a" * 32, b"\x0b" * 32])
    return {"type": "tendermint/DuplicateVoteEvidence", "value": {
        "vote_a": vote_json(key, node.genesis.chain_id, height, first, block_time + 7, address, index),
        "vote_b": vote_json(key, node.genesis.chain_id, height, second, block_time + 9, address, index),
        "TotalVotingPower": str(sum(v.power for v in validators)),
        "ValidatorPower": str(validators[index].power), "Timestamp": rfc3339_nano(block_time)}}


@pytest_twisted.inlineCallbacks
def test_double_sign_through_broadcast_evidence_tombstones_and_shows_in_block_and_websocket(node_factory, tmp_path):
    node = slashing_node(node_factory, tmp_path)
    yield until_height(node, 1)
    n = node_flag(node)
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    key, raw, valoper = yield create_validator(node, n, keys)
    address = valset.address_of(raw)
    yield until_block(node, lambda: any(v.address == address for v in node.app.validator_set(node.app.height)),
                      "the new validator in the set")
    height = node.app.height
    good = evidence_json(node, key, raw, height)
    evidence_before = js((yield run("q", "evidence", "list", n, "-o", "json")))

    # Refused: a bad signature, votes out of order, no evidence; nothing changes.
    bad = json.loads(json.dumps(good))
    bad["value"]["vote_b"]["signature"] = base64.b64encode(bytes(64)).decode()
    answer = yield in_thread(comet, node, "broadcast_evidence", evidence=bad)
    assert answer["error"]["code"] == -32603
    assert answer["error"]["data"] == "failed to add evidence: verifying VoteB: invalid signature"
    swapped = json.loads(json.dumps(good))
    swapped["value"]["vote_a"], swapped["value"]["vote_b"] = good["value"]["vote_b"], good["value"]["vote_a"]
    answer = yield in_thread(comet, node, "broadcast_evidence", evidence=swapped)
    assert answer["error"]["data"] == "evidence.ValidateBasic failed: duplicate votes in invalid order"
    answer = yield in_thread(comet, node, "broadcast_evidence")
    assert answer["error"]["data"] == "no evidence was provided"
    answer = yield in_thread(comet, node, "broadcast_evidence", evidence={"type": "tendermint/Nope", "value": {}})
    assert answer["error"]["code"] == -32602
    late = json.loads(json.dumps(good))
    late["value"]["TotalVotingPower"] = "1"
    answer = yield in_thread(comet, node, "broadcast_evidence", evidence=late)
    assert answer["error"]["data"].startswith("failed to add evidence: total voting power from the evidence")
    assert len(node.producer.evidence) == 0
    assert not node.app.keepers["slashing"].signing_info(node.app.view(), address).tombstoned

    def scenario():
        with connect(f"ws://127.0.0.1:{node.port_of('cometbft')}/websocket") as ws:
            ws.send(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "subscribe",
                                "params": {"query": "tm.event='NewEvidence'"}}))
            assert json.loads(ws.recv(timeout=5))["result"] == {}
            answer = comet(node, "broadcast_evidence", evidence=good)
            return answer, json.loads(ws.recv(timeout=10))

    answer, event = yield in_thread(scenario)
    assert "error" not in answer, answer
    included = int(event["result"]["data"]["value"]["height"])
    assert event["result"]["data"] == {"type": "tendermint/event/NewEvidence",
                                       "value": {"evidence": good, "height": str(included)}}
    assert event["result"]["events"]["tm.event"] == ["NewEvidence"]
    block = (yield in_thread(comet, node, "block", height=str(included)))["result"]["block"]
    assert block["evidence"]["evidence"] == [good]
    [carried] = node.app.consensus_info(included)[2]
    assert base64.b64decode(answer["result"]["hash"]) == chain_evidence.hash_of(carried)
    assert block["header"]["evidence_hash"] == chain_evidence.list_hash([carried]).hex().upper()
    # Sent again: already committed, accepted without a second inclusion.
    again = yield in_thread(comet, node, "broadcast_evidence", evidence=good)
    assert again["result"] == answer["result"] and len(node.producer.evidence) == 0
    # Tombstoned, jailed, slashed 5%; the evidence module keeps the equivocation, seen by the CLI and REST.
    view = node.app.view()
    info = node.app.keepers["slashing"].signing_info(view, address)
    assert info.tombstoned and info.jailed_until.seconds == slashing.DOUBLE_SIGN_JAIL_END_SECONDS
    v = node.app.keepers["staking"].validator(view, node.dev_keys[1].address)
    assert v.jailed and v.tokens <= 100 * CHAIN * 95 // 100
    listed = js((yield run("q", "evidence", "list", n, "-o", "json")))
    assert evidence_before["evidence"] == [] and len(listed["evidence"]) == 1
    found = listed["evidence"][0]
    assert found["@type"] == "/cosmos.evidence.v1beta1.Equivocation" and found["height"] == str(height)
    assert found["consensus_address"] == to_bech32(node.genesis.bech32_prefix + "valcons", address)
    equivocation_hash = hashlib.sha256(evidence_pb2.Equivocation(
        height=height, time=carried.timestamp, power=int(good["value"]["ValidatorPower"]),
        consensus_address=found["consensus_address"]).SerializeToString()).hexdigest()
    one = js((yield run("q", "evidence", "evidence", equivocation_hash, n, "-o", "json")))
    assert one["evidence"] == found
    status, _, by_rest = yield rest(node, f"/cosmos/evidence/v1beta1/evidence/{equivocation_hash}")
    assert status == 200 and by_rest["evidence"] == found
    # A replay reproduces every block hash and app hash across it.
    upto = node.app.height
    report = yield in_thread(replay_chain, node.app, tmp_path / "replayed", node.app.options.vote_key,
                             node.app.options.validator_address, upto)
    assert report.ok, str(report.mismatch)


def test_the_banner_says_when_the_dev_chain_jails_and_init_homes_use_the_sdks_params(node, tmp_path):
    assert ("slashing: a validator that signs fewer than 10 of the last 20 blocks loses 1% and is jailed for 30s "
            "(then `tx slashing unjail`); a double sign (broadcast_evidence) loses 5% and tombstones it\n") \
        in node.out.getvalue()
    home = Home(tmp_path / "plain")
    home.init("plain")
    assert json.loads(home.genesis_file.read_text())["app_state"]["slashing"] == \
        {"params": {}, "signing_infos": [], "missed_blocks": []}
    assert parse_params(Genesis.load(home.genesis_file).document["app_state"]["slashing"]["params"]) == Params()


SLASHING_ABI = json.loads("""[
 {"anonymous": false, "inputs": [{"indexed": true, "name": "validator", "type": "address"}],
  "name": "ValidatorUnjailed", "type": "event"},
 {"inputs": [], "name": "getParams", "stateMutability": "view", "type": "function", "outputs": [
  {"name": "params", "type": "tuple", "components": [
   {"name": "signedBlocksWindow", "type": "int64"},
   {"name": "minSignedPerWindow", "type": "tuple", "components": [{"name": "value", "type": "uint256"},
                                                                  {"name": "precision", "type": "uint8"}]},
   {"name": "downtimeJailDuration", "type": "int64"},
   {"name": "slashFractionDoubleSign", "type": "tuple", "components": [{"name": "value", "type": "uint256"},
                                                                       {"name": "precision", "type": "uint8"}]},
   {"name": "slashFractionDowntime", "type": "tuple", "components": [{"name": "value", "type": "uint256"},
                                                                     {"name": "precision", "type": "uint8"}]}]}]},
 {"inputs": [{"name": "consAddress", "type": "address"}], "name": "getSigningInfo", "stateMutability": "view",
  "type": "function", "outputs": [{"name": "signingInfo", "type": "tuple", "components": [
   {"name": "validatorAddress", "type": "address"}, {"name": "startHeight", "type": "int64"},
   {"name": "indexOffset", "type": "int64"}, {"name": "jailedUntil", "type": "int64"},
   {"name": "tombstoned", "type": "bool"}, {"name": "missedBlocksCounter", "type": "int64"}]}]},
 {"inputs": [{"name": "pagination", "type": "tuple", "components": [
   {"name": "key", "type": "bytes"}, {"name": "offset", "type": "uint64"}, {"name": "limit", "type": "uint64"},
   {"name": "countTotal", "type": "bool"}, {"name": "reverse", "type": "bool"}]}],
  "name": "getSigningInfos", "stateMutability": "view", "type": "function", "outputs": [
  {"name": "signingInfos", "type": "tuple[]", "components": [
   {"name": "validatorAddress", "type": "address"}, {"name": "startHeight", "type": "int64"},
   {"name": "indexOffset", "type": "int64"}, {"name": "jailedUntil", "type": "int64"},
   {"name": "tombstoned", "type": "bool"}, {"name": "missedBlocksCounter", "type": "int64"}]},
  {"name": "pageResponse", "type": "tuple", "components": [{"name": "nextKey", "type": "bytes"},
                                                           {"name": "total", "type": "uint64"}]}]},
 {"inputs": [{"name": "validatorAddress", "type": "address"}], "name": "unjail", "stateMutability": "nonpayable",
  "type": "function", "outputs": [{"name": "success", "type": "bool"}]}
]""")
PRECOMPILE = "0x0000000000000000000000000000000000000806"


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_the_slashing_precompile_reads_and_unjails_for_the_callers_own_validator_only(node_factory, tmp_path):
    node = slashing_node(node_factory, tmp_path)
    yield until_height(node, 1)
    n = node_flag(node)
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    _, raw, _ = yield create_validator(node, n, keys)
    operator = node.dev_keys[1].address
    cons = valset.address_of(raw)
    yield until_block(node, lambda: node.app.keepers["staking"].validator(node.app.view(), operator).jailed,
                      "the validator jailed")
    web3 = w3(node)
    contract = web3.eth.contract(address=PRECOMPILE, abi=SLASHING_ABI)
    dev1 = to_checksum_address(operator)

    def reads():
        code = web3.eth.get_code(PRECOMPILE)
        params = contract.functions.getParams().call()
        info = contract.functions.getSigningInfo(to_checksum_address(cons)).call()
        page = contract.functions.getSigningInfos((b"", 0, 1, True, False)).call()
        rest_page = contract.functions.getSigningInfos((page[1][0], 0, 1, False, False)).call()
        return code, params, info, page, rest_page

    code, params, info, page, rest_page = yield in_thread(reads)
    assert code == b""      # no code at a module's precompile, as cosmos/evm's
    assert params == (WINDOW, (5 * 10**17, 18), JAIL_S, (5 * 10**16, 18), (10**16, 18))
    stored = node.app.keepers["slashing"].signing_info(node.app.view(), cons)
    assert info == (to_checksum_address(cons), stored.start_height, info[2], stored.jailed_until.seconds, False, 0)
    assert len(page[0]) == 1 and page[1][1] == 2 and page[1][0]
    assert len(rest_page[0]) == 1 and rest_page[1][0] == b"" and rest_page[0][0] != page[0][0]

    def refusals():
        found = []
        for sender in (dev1, DEV0):
            try:
                contract.functions.unjail(dev1).call({"from": sender})
            except ContractLogicError as e:
                found.append(str(e))
        return found

    early, stranger = yield in_thread(refusals)
    assert "validator still jailed; cannot be unjailed" in early
    assert f"msg.sender address {DEV0} does not match the requester address {dev1}" in stranger
    until_ns = stored.jailed_until.seconds * 10**9 + stored.jailed_until.nanos
    yield until_block(node, lambda: node.app.head[0].time_ns > until_ns + 10**9, "a block 1 s after the jail time")

    def unjail(gas):
        nonce = web3.eth.get_transaction_count(dev1)
        data = contract.encode_abi("unjail", [dev1])
        return send(web3, {"to": PRECOMPILE, "data": data, "gas": gas, "nonce": nonce},
                    key=node.dev_keys[1].private_key)

    # Out of gas once its store writes are counted: the frame reverts, and the unjail with it.
    starved = yield in_thread(unjail, 25000)
    assert starved["status"] == 0 and starved["gasUsed"] == 25000
    assert node.app.keepers["staking"].validator(node.app.view(starved["blockNumber"]), operator).jailed
    receipt = yield in_thread(unjail, 200000)
    assert receipt["status"] == 1
    # RequiredGas (2,000 + 30 per argument byte) and the store's KV gas on top of the intrinsic gas.
    assert 21000 + 2000 + 30 * 32 + 2 * WRITE_FLAT < receipt["gasUsed"] < 200000
    [log] = receipt["logs"]
    assert log["address"] == PRECOMPILE
    assert log["topics"] == [keccak(b"ValidatorUnjailed(address)"), bytes(12) + operator]
    assert not node.app.keepers["staking"].validator(node.app.view(receipt["blockNumber"]), operator).jailed
    # The module's events ride with the tx, as the native MsgUnjail's do.
    results = (yield in_thread(comet, node, "block_results", height=str(receipt["blockNumber"])))["result"]
    events = [{a["key"]: a["value"] for a in e["attributes"]} for r in results["txs_results"] for e in r["events"]
              if e["type"] == "message"]
    assert any(e.get("module") == "slashing" for e in events)
