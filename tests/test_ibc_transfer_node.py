"""ICS-20 with a running node as chain A and an in-process chain B: `chaind tx ibc-transfer transfer` sends stake
to B with relative timeouts (the channel's client's latest height + 1000 and its consensus time + 10 minutes, as
ibc-go's CLI sets them), B's stake arrives on A as a voucher, and A answers ibc.applications.transfer.v1.Query
over gRPC, REST (ibc-go's gateway paths), abci_query and `chaind q ibc-transfer`."""

import base64
import json
import os
import subprocess
import time
import types

import pytest
import pytest_twisted
from eth_account import Account

import ibc_chains as ic
from chaind.chain.modules.transfer.denoms import escrow_address, ibc_denom, parse_trace
from chaind.crypto import keys
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.tx.signing.v1beta1 import signing_pb2
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_service
from chaind.pb.cosmos.tx.v1beta1 import service_pb2_grpc as tx_grpc
from chaind.pb.ibc.applications.transfer.v1 import query_pb2, query_pb2_grpc
from chaind.pb.ibc.core.channel.v1 import channel_pb2 as pb
from cli_driver import failed, js, node_flag, ok, run, send_tx
from cosmjs_driver import CLIENT_DIR
from gov_driver import attrs
from helpers import b32, call, comet, in_thread, rest
from ibc_node import b_block, open_connection
from ibc_transfer_msgs import address, sent_packets, transfer, written_ack
from ibc_transfer_node import open_transfer_channel, recv_on_a, recv_on_b
from native_client import fund

VOUCHER = ibc_denom(parse_trace("transfer/channel-0/stake"))
HASH = VOUCHER.removeprefix("ibc/")
TRACES = [{"path": "transfer/channel-0", "base_denom": "stake"}, {"path": "transfer/channel-0", "base_denom": "uatom"}]


def packet_of(found):
    """The Packet of a committed TxResponse's send_packet event (JSON), as a relayer reads it."""
    [event] = [e for e in found["events"] if e["type"] == "send_packet"]
    values = {a["key"]: a["value"] for a in event["attributes"]}
    packet = pb.Packet(sequence=int(values["packet_sequence"]), source_port=values["packet_src_port"],
                       source_channel=values["packet_src_channel"], destination_port=values["packet_dst_port"],
                       destination_channel=values["packet_dst_channel"], data=bytes.fromhex(values["packet_data_hex"]),
                       timeout_timestamp=int(values["packet_timeout_timestamp"]))
    revision, height = values["packet_timeout_height"].split("-")
    packet.timeout_height.revision_number, packet.timeout_height.revision_height = int(revision), int(height)
    return packet


@pytest_twisted.inlineCallbacks
def test_a_node_sends_with_the_cli_receives_a_voucher_and_answers_on_every_face(node, tmp_path):
    b = ic.IbcChain(tmp_path / "b", "chainb_9001-1")
    a = types.SimpleNamespace(relayer=b32(node, node.dev_keys[1].address))
    n = node_flag(node)
    ring = ("--home", tmp_path / "cli", "--keyring-backend", "test")
    ok((yield run("keys", "import-hex", "dev2", node.dev_keys[2].private_key.hex(), *ring)))
    sender = b32(node, node.dev_keys[2].address)
    try:
        yield open_connection(node, b, a)
        yield open_transfer_channel(node, b, a)
        receiver = b.chain.b32(address(b))
        client = node.app.keepers["ibc_client"].client_state(node.app.view(), "07-tendermint-0")
        before = time.time_ns()
        found = yield send_tx(n, ring, "ibc-transfer", "transfer", "transfer", "channel-0", receiver, "1000stake",
                              "--memo", "by the cli", "--from", "dev2", "--sign-mode", "amino-json")
        packet = packet_of(found)
        assert json.loads(packet.data) == {"amount": "1000", "denom": "stake", "memo": "by the cli",
                                           "receiver": receiver, "sender": sender}
        assert (packet.timeout_height.revision_number, packet.timeout_height.revision_height) == (
            client.latest_height.revision_number, client.latest_height.revision_height + 1000)
        assert before + 600 * 10**9 <= packet.timeout_timestamp <= time.time_ns() + 600 * 10**9
        received = yield recv_on_b(node, b, packet, int(found["height"]))
        assert written_ack(received) == b'{"result":"AQ=="}'
        assert b.app.keepers["bank"].balance(b.app.view(), address(b), VOUCHER) == 1000

        # B's own stake to A, which mints A's voucher of it.
        sent = b_block(b, [transfer(b, "stake", 25, sender, who=1)])
        [home] = sent_packets(sent)
        height = yield recv_on_a(node, b, a, home)
    finally:
        b.close()
    result = node.app.result_at(height, 0)
    assert attrs(result.events, "denomination_trace") == [{"trace_hash": HASH, "denom": VOUCHER}]
    assert node.app.keepers["bank"].balance(node.app.view(), node.dev_keys[2].address, VOUCHER) == 25

    escrow = to_bech32(node.genesis.bech32_prefix, escrow_address("transfer", "channel-0"))
    reply, _ = yield call(node, query_pb2_grpc.QueryStub, "DenomTraces", query_pb2.QueryDenomTracesRequest())
    assert [(t.path, t.base_denom) for t in reply.denom_traces] == [(t["path"], t["base_denom"]) for t in TRACES]
    reply, _ = yield call(node, query_pb2_grpc.QueryStub, "TotalEscrowForDenom",
                          query_pb2.QueryTotalEscrowForDenomRequest(denom="stake"))
    assert (reply.amount.denom, reply.amount.amount) == ("stake", "1000")
    status, _, body = yield rest(node, "/ibc/apps/transfer/v1/denom_traces")
    assert status == 200 and body["denom_traces"] == TRACES and body["pagination"]["total"] == "2"
    for key in (HASH, VOUCHER):
        status, _, body = yield rest(node, f"/ibc/apps/transfer/v1/denom_traces/{key}")
        assert status == 200 and body == {"denom_trace": TRACES[0]}
    status, _, body = yield rest(node, f"/ibc/apps/transfer/v1/denom_traces/{'00' * 32}")
    assert status == 404 and body["message"] == f"{'00' * 32}: denomination trace not found"
    status, _, body = yield rest(node, "/ibc/apps/transfer/v1/denom_traces/xyz")
    assert status == 400 and "encoding/hex: invalid byte: U+0078 'x'" in body["message"]
    status, _, body = yield rest(node, "/ibc/apps/transfer/v1/denom_hashes/transfer/channel-0/stake")
    assert status == 200 and body == {"hash": HASH}
    status, _, body = yield rest(node, "/ibc/apps/transfer/v1/channels/channel-0/ports/transfer/escrow_address")
    assert status == 200 and body == {"escrow_address": escrow}
    status, _, body = yield rest(node, "/ibc/apps/transfer/v1/denoms/stake/total_escrow")
    assert status == 200 and body == {"amount": {"denom": "stake", "amount": "1000"}}
    status, _, body = yield rest(node, f"/ibc/apps/transfer/v1/denoms/{VOUCHER}/total_escrow")
    assert status == 200 and body == {"amount": {"denom": VOUCHER, "amount": "0"}}
    status, _, body = yield rest(node, "/ibc/apps/transfer/v1/params")
    assert status == 200 and body == {"params": {"send_enabled": True, "receive_enabled": True}}
    request = query_pb2.QueryDenomHashRequest(trace="transfer/channel-0/stake").SerializeToString()
    answer = yield in_thread(comet, node, "abci_query", path="/ibc.applications.transfer.v1.Query/DenomHash",
                             data=request.hex())
    value = base64.b64decode(answer["result"]["response"]["value"])
    assert query_pb2.QueryDenomHashResponse.FromString(value).hash == HASH

    shown = js((yield run("q", "ibc-transfer", "denom-traces", n, "-o", "json")))
    assert shown["denom_traces"] == TRACES
    shown = js((yield run("q", "ibc-transfer", "denom-trace", VOUCHER, n, "-o", "json")))
    assert shown == {"denom_trace": TRACES[0]}
    shown = js((yield run("q", "ibc-transfer", "denom-hash", "transfer/channel-0/stake", n, "-o", "json")))
    assert shown == {"hash": HASH}
    shown = js((yield run("q", "ibc-transfer", "total-escrow", "stake", n, "-o", "json")))
    assert shown == {"amount": {"denom": "stake", "amount": "1000"}}
    shown = js((yield run("q", "ibc-transfer", "params", n, "-o", "json")))
    assert shown == {"params": {"send_enabled": True, "receive_enabled": True}}
    shown = ok((yield run("q", "ibc-transfer", "escrow-address", "transfer", "channel-0", n)))
    assert shown.stdout == escrow + "\n"
    failed((yield run("q", "ibc-transfer", "denom-hash", "transfer/channel-9/stake", n)),
           "transfer/channel-9/stake: denomination trace not found")
    failed((yield run("tx", "ibc-transfer", "transfer", "transfer", "channel-0", receiver, "1stake", "--from", "dev2",
                      "--packet-timeout-height", "5", n, *ring, "-y")), "expected height string format")
    # Absolute timeouts as given; a denom given by its full path is sent as its ibc/ hash.
    unsigned = js((yield run("tx", "ibc-transfer", "transfer", "transfer", "channel-0", receiver,
                             "7transfer/channel-0/uatom", "--from", sender, "--absolute-timeouts",
                             "--packet-timeout-height", "1-500", "--packet-timeout-timestamp", "0", "--memo", "m",
                             "--note", "the tx's", "--generate-only", n, *ring)))
    [msg] = unsigned["body"]["messages"]
    assert msg == {"@type": "/ibc.applications.transfer.v1.MsgTransfer", "source_port": "transfer",
                   "source_channel": "channel-0", "token": {"denom": ibc_denom(parse_trace("transfer/channel-0/uatom")),
                                                            "amount": "7"},
                   "sender": sender, "receiver": receiver, "timeout_height": {"revision_number": "1",
                                                                              "revision_height": "500"},
                   "timeout_timestamp": "0", "memo": "m"}
    assert unsigned["body"]["memo"] == "the tx's"


def cosmjs_transfer(cosmjs, node, steps):
    """tests/cosmjs_client/sign.js run with @cosmjs' Secp256k1HdWallet of MNEMONIC on `steps`; its answer."""
    runner, modules = cosmjs
    g = node.genesis
    job = {"url": f"http://127.0.0.1:{node.port_of('cometbft')}", "mnemonic": MNEMONIC, "prefix": g.bech32_prefix,
           "gasPrice": f"{2 * node.app.next_base_fee()}{g.base_denom}", "signer": "hd", "steps": steps}
    done = subprocess.run([runner, str(CLIENT_DIR / "sign.js")], input=json.dumps(job), capture_output=True,
                          text=True, timeout=180, env={**os.environ, "NODE_PATH": str(modules)})
    assert done.returncode == 0, f"cosmjs signer failed:\n{done.stderr}"
    return json.loads(done.stdout)


MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"


@pytest.mark.external
@pytest_twisted.inlineCallbacks
def test_cosmjs_send_ibc_tokens_amino_signed_is_relayed_to_b(node, cosmjs, tmp_path):
    """@cosmjs/stargate's sendIbcTokens (npm, unmodified) signs MsgTransfer as cosmos-sdk/MsgTransfer in amino JSON
    with a Secp256k1HdWallet, fee "auto"; the node takes it and B receives the packet."""
    b = ic.IbcChain(tmp_path / "b", "chainb_9001-1")
    a = types.SimpleNamespace(relayer=b32(node, node.dev_keys[1].address))
    key = keys.AccountKey(bytes(Account.from_mnemonic(MNEMONIC, account_path="m/44'/118'/0'/0/0").key))
    sender = key.address_as(keys.SECP256K1)
    yield in_thread(fund, node, sender, [(node.genesis.base_denom, 5 * 10**18), ("stake", 100)])
    try:
        yield open_connection(node, b, a)
        yield open_transfer_channel(node, b, a)
        receiver = b.chain.b32(address(b))
        step = {"op": "sendIbcTokens", "to": receiver, "amount": {"denom": "stake", "amount": "40"},
                "port": "transfer", "channel": "channel-0", "timeoutSeconds": 0, "memo": "amino by cosmjs",
                "timeoutHeight": {"revisionNumber": "1", "revisionHeight": str(b.height + 1000)}}
        answer = yield in_thread(cosmjs_transfer, cosmjs, node, [step])
        [result] = answer["results"]
        assert result["code"] == 0, result
        found, _ = yield call(node, tx_grpc.ServiceStub, "GetTx",
                              tx_service.GetTxRequest(hash=result["transactionHash"]))
        mode = found.tx.auth_info.signer_infos[0].mode_info.single.mode
        assert mode == signing_pb2.SIGN_MODE_LEGACY_AMINO_JSON
        assert found.tx.body.messages[0].type_url == "/ibc.applications.transfer.v1.MsgTransfer"
        height = int(result["height"])
        events = [{"type": e.type, "attributes": [{"key": at.key, "value": at.value} for at in e.attributes]}
                  for e in found.tx_response.events]
        packet = packet_of({"events": events})
        assert json.loads(packet.data)["sender"] == answer["address"]
        received = yield recv_on_b(node, b, packet, height)
        assert written_ack(received) == b'{"result":"AQ=="}'
        assert b.app.keepers["bank"].balance(b.app.view(), address(b), VOUCHER) == 40
    finally:
        b.close()
