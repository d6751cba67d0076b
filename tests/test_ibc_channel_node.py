"""IBC 04-channel with a running node as chain A and an in-process chain B on a connection opened with proofs: the
mock port bound on both, the relayer opens a channel with A's ends read over abci_query and A's steps sent over
gRPC BroadcastTx; A answers the channel over gRPC, REST and `chaind q ibc channel`, whose proven end verifies
against the app hash of the next block."""

import base64
import types

import pytest_twisted

import ibc_chains as ic
import ibc_client_msgs as m
from chaind.pb.ibc.core.channel.v1 import channel_pb2 as pb
from chaind.pb.ibc.core.channel.v1 import query_pb2, query_pb2_grpc
from chaind.pb.ibc.core.commitment.v1 import commitment_pb2
from chaind.store import commitment
from cli_driver import failed, js, node_flag, run
from helpers import b32, call, rest
from ibc_channel_msgs import PORT, MockApp, end, open_ack, open_confirm, open_init, open_try, path
from ibc_node import CLIENT, b_block, open_connection, proven_on_b, send


@pytest_twisted.inlineCallbacks
def test_a_node_opens_a_channel_with_another_chain_and_answers_for_it(node, tmp_path):
    b = ic.IbcChain(tmp_path / "b", "chainb_9001-1")
    a = types.SimpleNamespace(relayer=b32(node, node.dev_keys[1].address))
    try:
        yield open_connection(node, b, a)
        for app in (node.app, b.app):
            app.keepers["ibc_channel"].bind_port(PORT, MockApp())
        height = yield send(node, open_init(a, pb.ORDER_UNORDERED))
        proof, proof_height = yield proven_on_b(node, b, path("channel-0"), height)
        b_block(b, [open_try(b, "channel-0", "mock-1", proof, proof_height)])
        _, proof = b.proof(path("channel-0"), b.height)
        b_block(b)
        trusted = node.app.keepers["ibc_client"].client_state(node.app.view(), CLIENT).latest_height.revision_height
        yield send(node, m.update(a.relayer, CLIENT, b.header(b.height, trusted)))
        height = yield send(node, open_ack(a, "channel-0", "channel-0", "mock-1", proof, m.height(b.height)))
        proof, proof_height = yield proven_on_b(node, b, path("channel-0"), height)
        b_block(b, [open_confirm(b, "channel-0", proof, proof_height)])
        assert b.app.keepers["ibc_channel"].channel(b.app.view(), PORT, "channel-0").state == pb.STATE_OPEN
    finally:
        b.close()

    found, _ = yield call(node, query_pb2_grpc.QueryStub, "Channel",
                          query_pb2.QueryChannelRequest(port_id=PORT, channel_id="channel-0"))
    expected = end(pb.STATE_OPEN, pb.ORDER_UNORDERED, PORT, "channel-0", ["connection-0"], "mock-1")
    assert found.channel == expected
    status, _, body = yield rest(node, f"/ibc/core/channel/v1/channels/channel-0/ports/{PORT}")
    assert status == 200 and body["channel"]["state"] == "STATE_OPEN" and body["channel"]["ordering"] == \
        "ORDER_UNORDERED"
    status, _, body = yield rest(node, "/ibc/core/channel/v1/channels")
    assert status == 200 and [c["channel_id"] for c in body["channels"]] == ["channel-0"]
    status, _, body = yield rest(node, "/ibc/core/channel/v1/connections/connection-0/channels")
    assert status == 200 and [c["port_id"] for c in body["channels"]] == [PORT]
    status, _, body = yield rest(node, f"/ibc/core/channel/v1/channels/channel-0/ports/{PORT}/client_state")
    assert status == 200 and body["identified_client_state"]["client_state"]["chain_id"] == "chainb_9001-1"
    status, _, body = yield rest(node, f"/ibc/core/channel/v1/channels/channel-0/ports/{PORT}/next_sequence")
    assert (status, body["next_sequence_receive"]) == (200, "0")
    status, _, body = yield rest(node, f"/ibc/core/channel/v1/channels/channel-9/ports/{PORT}")
    assert status == 404 and "port-id: mock, channel-id channel-9: channel not found" in body["message"]

    n = node_flag(node)
    head = node.app.height
    shown = js((yield run("q", "ibc", "channel", "end", PORT, "channel-0", n, "--height", head, "-o", "json")))
    assert shown["channel"]["state"] == "STATE_OPEN" and shown["proof_height"]["revision_height"] == str(head)
    cli_proof = commitment_pb2.MerkleProof.FromString(base64.b64decode(shown["proof"]))
    commitment.verify_membership(commitment.SDK_SPECS, node.app.block_at(head)[0].app_hash, cli_proof.proofs,
                                 (b"ibc", path("channel-0").encode()), expected.SerializeToString())
    shown = js((yield run("q", "ibc", "channel", "channels", n, "-o", "json")))
    assert [c["channel_id"] for c in shown["channels"]] == ["channel-0"]
    shown = js((yield run("q", "ibc", "channel", "connections", "connection-0", n, "-o", "json")))
    assert [c["channel_id"] for c in shown["channels"]] == ["channel-0"]
    shown = js((yield run("q", "ibc", "channel", "client-state", PORT, "channel-0", n, "-o", "json")))
    assert shown["identified_client_state"]["client_id"] == CLIENT
    failed((yield run("q", "ibc", "channel", "end", PORT, "channel-9", n)),
           "port-id: mock, channel-id channel-9: channel not found")
