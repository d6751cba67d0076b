"""IBC 04-channel's packets between two chaind chains without a node: the mock app on A sends through SendPacket,
a relayer receives on B with a proof of A's commitment, B's app acknowledges, the relayer acknowledges back on A with
a proof of B's ack, or times the packet out on A with a proof that B never received it; ordered and unordered
channels, redundant relays answered NOOP, ibc-go's events and commitments, and bad input or wrong proofs refused with
ibc-go's errors and no state change."""

import hashlib

import pytest

import ibc_chains as ic
import ibc_client_msgs as m
from chain_driver import LatestQueryContext
from chaind import errors
from chaind.chain.modules.ibc_channel.query import ChannelQuery
from chaind.pb.cosmos.base.abci.v1beta1 import abci_pb2
from chaind.pb.cosmos.base.query.v1beta1 import pagination_pb2
from chaind.pb.ibc.core.channel.v1 import channel_pb2 as pb
from chaind.pb.ibc.core.channel.v1 import query_pb2
from chaind.pb.ibc.core.channel.v1 import tx_pb2 as chan_tx
from gov_driver import attrs
from ibc_channel_msgs import (
    A_CLIENT,
    B_CLIENT,
    PORT,
    SEND,
    acknowledgement,
    close_init,
    connected_pair,
    marker,
    ok,
    open_channel,
    packet,
    packet_path,
    path,
    recv_packet,
    send,
    timeout,
    timeout_on_close,
)

S = ic.S
NOOP, SUCCESS = chan_tx.RESPONSE_RESULT_TYPE_NOOP, chan_tx.RESPONSE_RESULT_TYPE_SUCCESS


@pytest.fixture
def pair(tmp_path):
    """Connected A and B, the mock app on each able to send packets through its SEND message."""
    made = connected_pair(tmp_path)
    for chain in (made.a, made.b):
        chain.app.handlers[SEND] = made.apps[chain].send_handler(chain.app.keepers["ibc_channel"], chain.relayer)
    yield made
    made.close()


def ibc_root(chain):
    return chain.app.store_version().root_of("ibc")


def refused(pair, chain, message, codespace, code, text):
    before = ibc_root(chain)
    r = pair.block(chain, [message])
    assert (r.codespace, r.code) == (codespace, code) and text in r.log, (r.codespace, r.code, r.log)
    assert ibc_root(chain) == before


def result_of(r, response_class):
    return response_class.FromString(abci_pb2.TxMsgData.FromString(r.data).msg_responses[0].value).result


def stored(chain, path_):
    return chain.proof(path_, chain.height)[0]


def commitment(found):
    """ibc-go's CommitPacket, written out."""
    h = found.timeout_height
    return hashlib.sha256(found.timeout_timestamp.to_bytes(8, "big") + h.revision_number.to_bytes(8, "big")
                          + h.revision_height.to_bytes(8, "big") + hashlib.sha256(found.data).digest()).digest()


def test_a_packet_sent_on_a_is_received_on_b_and_acknowledged_back_on_a(pair):
    a, b = pair.a, pair.b
    open_channel(pair)
    deadline = pair.clock + 1000 * S
    sent = ok(pair.block(a, [send(timeout_timestamp=deadline)]))
    expected = {"packet_data": "hello", "packet_data_hex": b"hello".hex(), "packet_timeout_height": "0-0",
                "packet_timeout_timestamp": str(deadline), "packet_sequence": "1", "packet_src_port": PORT,
                "packet_src_channel": "channel-0", "packet_dst_port": PORT, "packet_dst_channel": "channel-0",
                "packet_channel_ordering": "ORDER_UNORDERED", "packet_connection": "connection-0",
                "connection_id": "connection-0"}
    assert attrs(sent.events, "send_packet") == [expected]
    p = packet(1, timeout_timestamp=deadline)
    assert stored(a, packet_path("commitments", 1)) == commitment(p)
    assert stored(a, f"nextSequenceSend/ports/{PORT}/channels/channel-0") == (2).to_bytes(8, "big")

    _, proof, height = ic.proven(pair, b, B_CLIENT, a, packet_path("commitments", 1))
    received = ok(pair.block(b, [recv_packet(b, p, proof, height)]))
    assert result_of(received, chan_tx.MsgRecvPacketResponse) == SUCCESS
    assert attrs(received.events, "recv_packet") == [expected]
    assert attrs(received.events, "mock_recv") == [{"sequence": "1"}]
    ack = b'{"result":"YWNrOmhlbGxv"}'      # the mock's b"ack:hello" in ibc-go's Acknowledgement JSON
    written = dict(expected, packet_ack=ack.decode(), packet_ack_hex=ack.hex())
    assert attrs(received.events, "write_acknowledgement") == [written]
    assert list(attrs(received.events, "write_acknowledgement")[0]) == [
        "packet_data", "packet_data_hex", "packet_timeout_height", "packet_timeout_timestamp", "packet_sequence",
        "packet_src_port", "packet_src_channel", "packet_dst_port", "packet_dst_channel", "packet_ack",
        "packet_ack_hex", "packet_channel_ordering", "packet_connection", "connection_id"]
    assert stored(b, packet_path("receipts", 1)) == b"\x01"
    assert stored(b, packet_path("acks", 1)) == hashlib.sha256(ack).digest()

    # The same packet relayed again: the tx succeeds with NOOP and changes nothing.
    before = ibc_root(b)
    again = ok(pair.block(b, [recv_packet(b, p, proof, height)]))
    assert result_of(again, chan_tx.MsgRecvPacketResponse) == NOOP
    assert not attrs(again.events, "recv_packet") and ibc_root(b) == before

    _, proof, height = ic.proven(pair, a, A_CLIENT, b, packet_path("acks", 1))
    refused(pair, a, acknowledgement(a, p, b'{"result":"b3RoZXI="}', proof, height), "commitment", 2,
            "acknowledge packet verification failed: failed packet acknowledgement verification for client "
            "(07-tendermint-0)")
    tampered = packet(1, data=b"other", timeout_timestamp=deadline)
    refused(pair, a, acknowledgement(a, tampered, ack, proof, height), "channel", 13,
            "acknowledge packet verification failed: commitment bytes are not equal")
    acked = ok(pair.block(a, [acknowledgement(a, p, ack, proof, height)]))
    assert result_of(acked, chan_tx.MsgAcknowledgementResponse) == SUCCESS
    assert attrs(acked.events, "acknowledge_packet") == [
        {k: v for k, v in expected.items() if k not in ("packet_data", "packet_data_hex")}]
    assert stored(a, packet_path("commitments", 1)) is None
    assert pair.apps[a].calls[-1] == ("acked", 1, ack)
    again = ok(pair.block(a, [acknowledgement(a, p, ack, proof, height)]))
    assert result_of(again, chan_tx.MsgAcknowledgementResponse) == NOOP


def test_an_ordered_channel_receives_and_acknowledges_in_sequence(pair):
    a, b = pair.a, pair.b
    open_channel(pair, pb.ORDER_ORDERED)
    ok(pair.block(a, [send(data=b"one", timeout_height=(1, 10_000)), send(data=b"two", timeout_height=(1, 10_000))]))
    first, second = (packet(n, data=d, timeout_height=(1, 10_000)) for n, d in ((1, b"one"), (2, b"two")))
    _, proof2, height2 = ic.proven(pair, b, B_CLIENT, a, packet_path("commitments", 2))
    refused(pair, b, recv_packet(b, second, proof2, height2), "channel", 21,
            "receive packet verification failed: packet sequence ≠ next receive sequence (2 ≠ 1)")
    _, proof1, height1 = ic.proven(pair, b, B_CLIENT, a, packet_path("commitments", 1))
    ok(pair.block(b, [recv_packet(b, first, proof1, height1)]))
    ok(pair.block(b, [recv_packet(b, second, proof2, height2)]))
    again = ok(pair.block(b, [recv_packet(b, first, proof1, height1)]))
    assert result_of(again, chan_tx.MsgRecvPacketResponse) == NOOP
    assert stored(b, f"nextSequenceRecv/ports/{PORT}/channels/channel-0") == (3).to_bytes(8, "big")
    assert stored(b, packet_path("receipts", 1)) is None       # ordered channels keep no receipts

    _, proof, height = ic.proven(pair, a, A_CLIENT, b, packet_path("acks", 2))
    refused(pair, a, acknowledgement(a, second, b'{"result":"YWNrOnR3bw=="}', proof, height), "channel", 21,
            "acknowledge packet verification failed: packet sequence ≠ next ack sequence (2 ≠ 1)")
    _, proof1, height1 = ic.proven(pair, a, A_CLIENT, b, packet_path("acks", 1))
    ok(pair.block(a, [acknowledgement(a, first, b'{"result":"YWNrOm9uZQ=="}', proof1, height1)]))
    ok(pair.block(a, [acknowledgement(a, second, b'{"result":"YWNrOnR3bw=="}', proof, height)]))
    assert stored(a, f"nextSequenceAck/ports/{PORT}/channels/channel-0") == (3).to_bytes(8, "big")


def test_a_packet_times_out_on_a_once_b_passed_its_timeout_height_without_receiving_it(pair):
    a, b = pair.a, pair.b
    open_channel(pair)
    timeout_height = (1, b.height + 4)
    ok(pair.block(a, [send(timeout_height=timeout_height)]))
    p = packet(1, timeout_height=timeout_height)

    # Not yet: B's proven height is below the timeout.
    _, proof, height = ic.proven(pair, a, A_CLIENT, b, packet_path("receipts", 1))
    assert height.revision_height < timeout_height[1]
    refused(pair, a, timeout(a, p, proof, height, 1), "channel", 39,
            f"timeout packet verification failed: packet timeout not reached: current height: 1-"
            f"{height.revision_height}, timeout height 1-{timeout_height[1]}: timeout not reached")
    while b.height < timeout_height[1]:
        pair.block(b)
    _, commitment_proof, commitment_height = ic.proven(pair, b, B_CLIENT, a, packet_path("commitments", 1))
    refused(pair, b, recv_packet(b, p, commitment_proof, commitment_height), "channel", 40,
            "receive packet verification failed: packet timeout elapsed: current height: 1-")
    value, proof, height = ic.proven(pair, a, A_CLIENT, b, packet_path("receipts", 1))
    assert value is None
    refused(pair, a, timeout(a, p, b"\x0a\x00", height, 1), "commitment", 4,
            "timeout packet verification failed: failed packet receipt absence verification")
    timed_out = ok(pair.block(a, [timeout(a, p, proof, height, 1)]))
    assert result_of(timed_out, chan_tx.MsgTimeoutResponse) == SUCCESS
    assert attrs(timed_out.events, "timeout_packet") == [
        {"packet_timeout_height": f"1-{timeout_height[1]}", "packet_timeout_timestamp": "0", "packet_sequence": "1",
         "packet_src_port": PORT, "packet_src_channel": "channel-0", "packet_dst_port": PORT,
         "packet_dst_channel": "channel-0", "connection_id": "connection-0",
         "packet_channel_ordering": "ORDER_UNORDERED"}]
    assert stored(a, packet_path("commitments", 1)) is None
    assert pair.apps[a].calls[-1] == ("timeout", 1)
    again = ok(pair.block(a, [timeout(a, p, proof, height, 1)]))
    assert result_of(again, chan_tx.MsgTimeoutResponse) == NOOP
    assert pb.Channel.FromString(stored(a, path("channel-0"))).state == pb.STATE_OPEN     # only ORDERED closes


def test_a_timeout_on_an_ordered_channel_closes_it(pair):
    a, b = pair.a, pair.b
    open_channel(pair, pb.ORDER_ORDERED)
    deadline = pair.clock + 3 * S
    ok(pair.block(a, [send(timeout_timestamp=deadline)]))
    for _ in range(4):
        pair.block(b)
    value, proof, height = ic.proven(pair, a, A_CLIENT, b, f"nextSequenceRecv/ports/{PORT}/channels/channel-0")
    assert value == (1).to_bytes(8, "big")
    p = packet(1, timeout_timestamp=deadline)
    refused(pair, a, timeout(a, p, proof, height, 2), "channel", 19,
            "packet already received, next sequence receive > packet sequence (2 > 1)")
    timed_out = ok(pair.block(a, [timeout(a, p, proof, height, 1)]))
    assert attrs(timed_out.events, "channel_close") == [
        {"port_id": PORT, "channel_id": "channel-0", "counterparty_port_id": PORT,
         "counterparty_channel_id": "channel-0", "connection_id": "connection-0",
         "packet_channel_ordering": "ORDER_ORDERED"}]
    assert pb.Channel.FromString(stored(a, path("channel-0"))).state == pb.STATE_CLOSED


def test_timeout_on_close_with_a_proof_of_the_closed_counterparty_end(pair):
    a, b = pair.a, pair.b
    open_channel(pair)
    ok(pair.block(a, [send(timeout_height=(1, 10_000))]))
    ok(pair.block(b, [close_init(b, "channel-0")]))
    p = packet(1, timeout_height=(1, 10_000))
    _, proof_close, height = ic.proven(pair, a, A_CLIENT, b, path("channel-0"))
    proof = b.proof(packet_path("receipts", 1), height.revision_height - 1)[1]    # the same state's
    closed = ok(pair.block(a, [timeout_on_close(a, p, proof, proof_close, height, 1)]))
    assert result_of(closed, chan_tx.MsgTimeoutOnCloseResponse) == SUCCESS
    assert stored(a, packet_path("commitments", 1)) is None


def test_a_failed_acknowledgement_discards_the_apps_writes_and_an_async_one_writes_none(pair):
    a, b = pair.a, pair.b
    open_channel(pair)
    ok(pair.block(a, [send(data=b"fail", timeout_height=(1, 10_000)), send(data=b"async", timeout_height=(1, 10_000))]))
    _, proof, height = ic.proven(pair, b, B_CLIENT, a, packet_path("commitments", 1))
    failed = ok(pair.block(b, [recv_packet(b, packet(1, data=b"fail", timeout_height=(1, 10_000)), proof, height)]))
    assert attrs(failed.events, "ibccallbackerror-mock_recv") == [{"ibccallbackerror-sequence": "1"}]
    assert not attrs(failed.events, "mock_recv")
    assert b.app.view().store.get(marker(1)) is None
    ack = b'{"error":"ABCI code: 2: error handling packet: see events for details"}'
    assert stored(b, packet_path("acks", 1)) == hashlib.sha256(ack).digest()

    _, proof, height = ic.proven(pair, b, B_CLIENT, a, packet_path("commitments", 2))
    later = ok(pair.block(b, [recv_packet(b, packet(2, data=b"async", timeout_height=(1, 10_000)), proof, height)]))
    assert not attrs(later.events, "write_acknowledgement")
    assert stored(b, packet_path("acks", 2)) is None and stored(b, packet_path("receipts", 2)) == b"\x01"
    assert b.app.view().store.get(marker(2)) == b"async"


def test_bad_packets_and_proofs_fail_with_ibc_gos_errors_and_change_nothing(pair):
    a, b = pair.a, pair.b
    refused(pair, a, send(), "channel", 3, "channel-0: channel not found")
    open_channel(pair)
    refused(pair, a, send(), "channel", 13, "constructed packet failed basic validation: packet timeout height and "
            "packet timeout timestamp cannot both be 0: invalid packet")
    refused(pair, a, send(data=b"", timeout_height=(1, 10_000)), "channel", 13, "packet data bytes cannot be empty")
    refused(pair, a, send(timeout_height=(1, 2)), "channel", 40,
            "invalid packet timeout: current height: 1-")
    ok(pair.block(a, [send(timeout_height=(1, 10_000))]))
    p = packet(1, timeout_height=(1, 10_000))
    _, proof, height = ic.proven(pair, b, B_CLIENT, a, packet_path("commitments", 1))
    refused(pair, b, recv_packet(b, p, b"", height), "commitment", 2,
            "cannot submit an empty commitment proof: invalid proof")
    refused(pair, b, recv_packet(b, packet(0, timeout_height=(1, 10_000)), proof, height), "channel", 13,
            "packet sequence cannot be 0: invalid packet")
    refused(pair, b, recv_packet(b, packet(1, data=b"other", timeout_height=(1, 10_000)), proof, height),
            "commitment", 2, "receive packet verification failed: couldn't verify counterparty packet commitment: "
            "failed packet commitment verification for client (07-tendermint-0)")
    refused(pair, b, recv_packet(b, packet(1, timeout_height=(1, 10_000), channel="channel-7"), proof, height),
            "channel", 13, "packet source channel doesn't match the counterparty's channel (channel-7 ≠ channel-0)")
    refused(pair, b, recv_packet(b, packet(1, timeout_height=(1, 10_000), their_channel="channel-9"), proof, height),
            "capability", 7, "could not retrieve module from port-id")
    refused(pair, a, timeout(a, p, b"x", height, 0), "ibc", 1, "next sequence receive cannot be 0: invalid sequence")
    ok(pair.block(b, [recv_packet(b, p, proof, height)]))


def test_packet_queries_answer_what_a_relayer_asks_as_ibc_go_does(pair):
    a, b = pair.a, pair.b
    open_channel(pair)
    timeout_height = (1, 10_000)
    ok(pair.block(a, [send(data=d, timeout_height=timeout_height) for d in (b"one", b"two", b"three")]))
    one = packet(1, data=b"one", timeout_height=timeout_height)
    _, proof, height = ic.proven(pair, b, B_CLIENT, a, packet_path("commitments", 1))
    ok(pair.block(b, [recv_packet(b, one, proof, height)]))
    context, ask = LatestQueryContext(), {"port_id": PORT, "channel_id": "channel-0"}
    on_a, on_b = ChannelQuery(a.app), ChannelQuery(b.app)

    found = on_a.PacketCommitment(query_pb2.QueryPacketCommitmentRequest(sequence=2, **ask), context)
    assert found.commitment == commitment(packet(2, data=b"two", timeout_height=timeout_height))
    assert found.proof_height == m.height(a.height)
    listed = on_a.PacketCommitments(query_pb2.QueryPacketCommitmentsRequest(
        pagination=pagination_pb2.PageRequest(limit=2, count_total=True), **ask), context)
    assert [(c.sequence, c.data) for c in listed.commitments] == [(1, commitment(one)), (2, found.commitment)]
    assert listed.pagination.next_key == b"/3" and listed.pagination.total == 3
    assert on_a.NextSequenceSend(query_pb2.QueryNextSequenceSendRequest(**ask), context).next_sequence_send == 4
    assert on_b.UnreceivedPackets(query_pb2.QueryUnreceivedPacketsRequest(
        packet_commitment_sequences=[1, 2, 3], **ask), context).sequences == [2, 3]
    assert on_b.PacketReceipt(query_pb2.QueryPacketReceiptRequest(sequence=1, **ask), context).received
    assert not on_b.PacketReceipt(query_pb2.QueryPacketReceiptRequest(sequence=2, **ask), context).received
    ack = hashlib.sha256(b'{"result":"YWNrOm9uZQ=="}').digest()
    assert on_b.PacketAcknowledgement(query_pb2.QueryPacketAcknowledgementRequest(sequence=1, **ask),
                                      context).acknowledgement == ack
    acks = on_b.PacketAcknowledgements(query_pb2.QueryPacketAcknowledgementsRequest(**ask), context)
    assert [(s.sequence, s.data) for s in acks.acknowledgements] == [(1, ack)] and acks.pagination.total == 1
    chosen = on_b.PacketAcknowledgements(query_pb2.QueryPacketAcknowledgementsRequest(
        packet_commitment_sequences=[2, 1], **ask), context)
    assert [s.sequence for s in chosen.acknowledgements] == [1] and not chosen.HasField("pagination")
    assert on_a.UnreceivedAcks(query_pb2.QueryUnreceivedAcksRequest(packet_ack_sequences=[1, 5], **ask),
                               context).sequences == [1]

    for call, text in (
            (lambda: on_a.PacketCommitment(query_pb2.QueryPacketCommitmentRequest(sequence=9, **ask), context),
             "packet commitment hash not found"),
            (lambda: on_b.PacketAcknowledgement(query_pb2.QueryPacketAcknowledgementRequest(sequence=2, **ask),
                                                context), "packet acknowledgement hash not found"),
            (lambda: on_a.PacketReceipt(query_pb2.QueryPacketReceiptRequest(sequence=0, **ask), context),
             "packet sequence cannot be 0"),
            (lambda: on_b.UnreceivedPackets(query_pb2.QueryUnreceivedPacketsRequest(
                packet_commitment_sequences=[1, 0], **ask), context), "packet sequence 1 cannot be 0"),
            (lambda: on_b.UnreceivedPackets(query_pb2.QueryUnreceivedPacketsRequest(
                port_id=PORT, channel_id="channel-4"), context),
             "port-id: mock, channel-id channel-4: channel not found"),
            (lambda: on_a.NextSequenceSend(query_pb2.QueryNextSequenceSendRequest(
                port_id=PORT, channel_id="channel-4"), context),
             "port-id: mock, channel-id channel-4: sequence send not found")):
        with pytest.raises(errors.ChainError) as failed:
            call()
        assert text in str(failed.value)
