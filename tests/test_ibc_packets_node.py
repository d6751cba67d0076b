"""IBC packets with a running node as chain A and an in-process chain B: B's mock app sends a packet, the relayer
receives it on A over gRPC BroadcastTx with a proof of B's commitment, and A answers for its receipt and
acknowledgement over gRPC, REST (ibc-go's gateway paths) and `chaind q ibc channel`, whose proven ack verifies
against the app hash of the next block."""

import base64
import hashlib
import types

import pytest_twisted

import ibc_chains as ic
import ibc_client_msgs as m
from chaind.chain.modules.ibc_client.host import revision_of
from chaind.pb.cosmos.base.abci.v1beta1 import abci_pb2
from chaind.pb.ibc.core.channel.v1 import channel_pb2 as pb
from chaind.pb.ibc.core.channel.v1 import query_pb2, query_pb2_grpc
from chaind.pb.ibc.core.channel.v1 import tx_pb2 as chan_tx
from chaind.pb.ibc.core.commitment.v1 import commitment_pb2
from chaind.store import commitment
from cli_driver import failed, js, node_flag, run
from helpers import b32, call, in_thread, rest, until_height
from ibc_channel_msgs import PORT, SEND, packet, packet_path, recv_packet, send
from ibc_node import b_block, open_channel, open_connection, update_on_a
from ibc_node import send as send_on_a

ACK = b'{"result":"YWNrOmhlbGxv"}'      # the mock app's acknowledgement of b"hello"


@pytest_twisted.inlineCallbacks
def test_a_node_receives_a_packet_and_answers_for_its_receipt_and_acknowledgement(node, tmp_path):
    b = ic.IbcChain(tmp_path / "b", "chainb_9001-1")
    a = types.SimpleNamespace(relayer=b32(node, node.dev_keys[1].address))
    timeout_height = (revision_of(node.app.genesis.chain_id), 100_000)
    try:
        yield open_connection(node, b, a)
        yield open_channel(node, b, a, pb.ORDER_UNORDERED)
        keeper = b.app.keepers["ibc_channel"]
        b.app.handlers[SEND] = keeper.ports[PORT].send_handler(keeper, b.relayer)
        b_block(b, [send(timeout_height=timeout_height)])
        _, proof = b.proof(packet_path("commitments", 1), b.height)
        b_block(b)
        yield update_on_a(node, b, a)
        height = yield send_on_a(node, recv_packet(a, packet(1, timeout_height=timeout_height), proof,
                                                   m.height(b.height)))
    finally:
        b.close()
    result = node.app.result_at(height, 0)
    response = abci_pb2.TxMsgData.FromString(result.data).msg_responses[0]
    assert chan_tx.MsgRecvPacketResponse.FromString(response.value).result == chan_tx.RESPONSE_RESULT_TYPE_SUCCESS
    assert [e.type for e in result.events if e.type in ("recv_packet", "write_acknowledgement")] == [
        "recv_packet", "write_acknowledgement"]

    ack_hash = hashlib.sha256(ACK).digest()
    found, _ = yield call(node, query_pb2_grpc.QueryStub, "PacketAcknowledgement",
                          query_pb2.QueryPacketAcknowledgementRequest(port_id=PORT, channel_id="channel-0", sequence=1))
    assert found.acknowledgement == ack_hash
    found, _ = yield call(node, query_pb2_grpc.QueryStub, "PacketReceipt",
                          query_pb2.QueryPacketReceiptRequest(port_id=PORT, channel_id="channel-0", sequence=1))
    assert found.received
    base = f"/ibc/core/channel/v1/channels/channel-0/ports/{PORT}"
    status, _, body = yield rest(node, f"{base}/packet_acks/1")
    assert status == 200 and body["acknowledgement"] == base64.b64encode(ack_hash).decode()
    status, _, body = yield rest(node, f"{base}/packet_receipts/2")
    assert status == 200 and body["received"] is False
    status, _, body = yield rest(node, f"{base}/packet_commitments/1,2,3/unreceived_packets")
    assert status == 200 and body["sequences"] == ["2", "3"]
    status, _, body = yield rest(node, f"{base}/packet_acknowledgements")
    assert status == 200 and [s["sequence"] for s in body["acknowledgements"]] == ["1"]
    status, _, body = yield rest(node, f"{base}/next_sequence_send")
    assert status == 200 and body["next_sequence_send"] == "1"
    status, _, body = yield rest(node, f"{base}/packet_commitments/9")
    assert status == 404 and "packet commitment hash not found" in body["message"]

    n = node_flag(node)
    yield in_thread(ic.mine, node)       # a block whose header commits to the state after the recv
    head = height + 1
    yield until_height(node, head)
    shown = js((yield run("q", "ibc", "channel", "packet-ack", PORT, "channel-0", "1", n, "--height", head,
                          "-o", "json")))
    assert base64.b64decode(shown["acknowledgement"]) == ack_hash
    cli_proof = commitment_pb2.MerkleProof.FromString(base64.b64decode(shown["proof"]))
    commitment.verify_membership(commitment.SDK_SPECS, node.app.block_at(head)[0].app_hash, cli_proof.proofs,
                                 (b"ibc", packet_path("acks", 1).encode()), ack_hash)
    shown = js((yield run("q", "ibc", "channel", "packet-receipt", PORT, "channel-0", "2", n, "-o", "json")))
    assert shown["received"] is False and shown["proof"]
    shown = js((yield run("q", "ibc", "channel", "unreceived-packets", PORT, "channel-0", "--sequences", "1,2", n,
                          "-o", "json")))
    assert shown["sequences"] == ["2"]
    shown = js((yield run("q", "ibc", "channel", "next-sequence-send", PORT, "channel-0", n, "-o", "json")))
    assert shown["next_sequence_send"] == "1"
    failed((yield run("q", "ibc", "channel", "packet-commitment", PORT, "channel-0", "1", n)),
           "portID (mock), channelID (channel-0), sequence (1): packet commitment not found")
