"""ICS-20 with a running node as chain A beside an in-process chain B (ibc_node's): a transfer channel opened
between the two `transfer` ports with proofs, and packets relayed each way as a relayer relays them (the node's
commitment proven over abci_query, B's from its store).
"""

import pytest_twisted

import ibc_client_msgs as m
from ibc_channel_msgs import recv_packet
from ibc_node import b_block, proven_on_b, update_on_a
from ibc_node import send as send_on_a
from ibc_transfer_msgs import VERSION, open_ack, open_confirm, open_init, open_try, packet_path, path


@pytest_twisted.inlineCallbacks
def open_transfer_channel(node, b, a):
    """channel-0 between the transfer ports of the node (A) and B, OPEN on both."""
    height = yield send_on_a(node, open_init(a, version=VERSION))
    proof, proof_height = yield proven_on_b(node, b, path("channel-0"), height)
    b_block(b, [open_try(b, "channel-0", VERSION, proof, proof_height)])
    _, proof = b.proof(path("channel-0"), b.height)
    b_block(b)
    yield update_on_a(node, b, a)
    height = yield send_on_a(node, open_ack(a, "channel-0", "channel-0", VERSION, proof, m.height(b.height)))
    proof, proof_height = yield proven_on_b(node, b, path("channel-0"), height)
    b_block(b, [open_confirm(b, "channel-0", proof, proof_height)])


@pytest_twisted.inlineCallbacks
def recv_on_b(node, b, packet, height):
    """The node's packet (committed in block `height`) received on B; B's result."""
    proof, proof_height = yield proven_on_b(node, b, packet_path(
        "commitments", packet.source_port, packet.source_channel, packet.sequence), height)
    return b_block(b, [recv_packet(b, packet, proof, proof_height)])


@pytest_twisted.inlineCallbacks
def recv_on_a(node, b, a, packet):
    """B's packet (committed in B's last block) received on the node; the height of the node's block."""
    _, proof = b.proof(packet_path("commitments", packet.source_port, packet.source_channel, packet.sequence),
                       b.height)
    b_block(b)
    yield update_on_a(node, b, a)
    height = yield send_on_a(node, recv_packet(a, packet, proof, m.height(b.height)))
    return height
