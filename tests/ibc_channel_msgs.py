"""Channel messages for IBC tests: a mock port application (it sends packets through a test message and answers
them), the six MsgChannel* of a relayer's handshake steps and the packet messages on the `mock` port over
connection-0, and the ICS-24 path of a channel end.
"""

import ibc_chains as ic
from chaind.chain.block import event
from chaind.chain.errors import TxError
from chaind.chain.modules.ibc_channel.packets import Acknowledgement
from chaind.chain.modules.ibc_client import host
from chaind.chain.msgs import MsgHandler
from chaind.pb.ibc.core.channel.v1 import channel_pb2 as pb
from chaind.pb.ibc.core.channel.v1 import tx_pb2 as chan_tx
from chaind.pb.ibc.core.connection.v1 import connection_pb2 as conn_pb2

PORT = "mock"
CHANNEL = "/ibc.core.channel.v1."


SEND = "/chaind.test.MsgSendPacket"     # the mock app's own message: a Packet's source, data and timeout


def marker(sequence):
    """The ibc store key where the mock app notes a packet it took: mockReceived/{sequence}."""
    return host.key("ibc_channel", "mockReceived", str(sequence))


class MockApp:
    """A port's application: proposes "mock-1" when the relayer leaves the version empty, accepts any other, and
    refuses to close a channel while `keep_open`. It acknowledges a packet with "ack:" and its data, except data
    b"fail" (an error acknowledgement, its callback's writes discarded) and b"async" (no acknowledgement yet); it
    writes a marker (`marker`) for each packet it takes, and refuses acknowledgements while
    `refuse_acks`."""

    def __init__(self):
        self.calls = []
        self.keep_open = False
        self.refuse_acks = False

    def send_handler(self, keeper, sender):
        """The MsgHandler of SEND, signed by `sender` (bech32): keeper.send_packet as ICS-20's transfer calls it."""
        def execute(app, ctx, msg, signer):
            sequence, events = keeper.send_packet(ctx, msg.source_port, msg.source_channel, msg.timeout_height,
                                                  msg.timeout_timestamp, msg.data)
            self.calls.append(("send", sequence))
            return events, pb.Packet(sequence=sequence)
        return MsgHandler(SEND, pb.Packet, lambda m: sender, lambda app, m: None, execute)

    def on_recv_packet(self, ctx, packet, relayer):
        self.calls.append(("recv", packet.sequence))
        ctx.store.set(marker(packet.sequence), packet.data)
        emitted = [event("mock_recv", ("sequence", str(packet.sequence)))]
        if packet.data == b"async":
            return None, emitted
        if packet.data == b"fail":
            return Acknowledgement.from_error(TxError("mock", 2, "refused")), emitted
        return Acknowledgement(result=b"ack:" + packet.data), emitted

    def on_acknowledgement_packet(self, ctx, packet, ack, relayer):
        if self.refuse_acks:
            raise TxError("mock", 3, "acknowledgement refused")
        self.calls.append(("acked", packet.sequence, ack))
        return [event("mock_ack", ("sequence", str(packet.sequence)))]

    def on_timeout_packet(self, ctx, packet, relayer):
        self.calls.append(("timeout", packet.sequence))
        return [event("mock_timeout", ("sequence", str(packet.sequence)))]

    def on_chan_open_init(self, ctx, order, hops, port_id, channel_id, counterparty, version):
        self.calls.append(("init", channel_id))
        return version or "mock-1"

    def on_chan_open_try(self, ctx, order, hops, port_id, channel_id, counterparty, version):
        self.calls.append(("try", channel_id))
        return version

    def on_chan_open_ack(self, ctx, port_id, channel_id, their_channel_id, their_version):
        self.calls.append(("ack", channel_id))

    def on_chan_open_confirm(self, ctx, port_id, channel_id):
        self.calls.append(("confirm", channel_id))

    def on_chan_close_init(self, ctx, port_id, channel_id):
        if self.keep_open:
            raise TxError("mock", 2, "channel may not be closed")
        self.calls.append(("close_init", channel_id))

    def on_chan_close_confirm(self, ctx, port_id, channel_id):
        self.calls.append(("close_confirm", channel_id))


def end(state, ordering, port_id, channel_id, hops, version):
    found = pb.Channel(state=state, ordering=ordering, connection_hops=hops, version=version)
    found.counterparty.port_id, found.counterparty.channel_id = port_id, channel_id
    return found


def open_init(chain, ordering=pb.ORDER_UNORDERED, version="", port=PORT, hops=("connection-0",)):
    return CHANNEL + "MsgChannelOpenInit", chan_tx.MsgChannelOpenInit(
        port_id=port, channel=end(pb.STATE_INIT, ordering, PORT, "", list(hops), version), signer=chain.relayer)


def open_try(chain, their_channel, their_version, proof, height, ordering=pb.ORDER_UNORDERED):
    return CHANNEL + "MsgChannelOpenTry", chan_tx.MsgChannelOpenTry(
        port_id=PORT, channel=end(pb.STATE_TRYOPEN, ordering, PORT, their_channel, ["connection-0"], ""),
        counterparty_version=their_version, proof_init=proof, proof_height=height, signer=chain.relayer)


def open_ack(chain, channel_id, their_channel, their_version, proof, height):
    return CHANNEL + "MsgChannelOpenAck", chan_tx.MsgChannelOpenAck(
        port_id=PORT, channel_id=channel_id, counterparty_channel_id=their_channel, counterparty_version=their_version,
        proof_try=proof, proof_height=height, signer=chain.relayer)


def open_confirm(chain, channel_id, proof, height):
    return CHANNEL + "MsgChannelOpenConfirm", chan_tx.MsgChannelOpenConfirm(
        port_id=PORT, channel_id=channel_id, proof_ack=proof, proof_height=height, signer=chain.relayer)


def close_init(chain, channel_id):
    return CHANNEL + "MsgChannelCloseInit", chan_tx.MsgChannelCloseInit(port_id=PORT, channel_id=channel_id,
                                                                        signer=chain.relayer)


def close_confirm(chain, channel_id, proof, height):
    return CHANNEL + "MsgChannelCloseConfirm", chan_tx.MsgChannelCloseConfirm(
        port_id=PORT, channel_id=channel_id, proof_init=proof, proof_height=height, signer=chain.relayer)


def path(channel_id):
    return f"channelEnds/ports/{PORT}/channels/{channel_id}"


def send(port=PORT, channel="channel-0", data=b"hello", timeout_height=(0, 0), timeout_timestamp=0):
    """The mock app's SEND message."""
    msg = pb.Packet(source_port=port, source_channel=channel, data=data, timeout_timestamp=timeout_timestamp)
    msg.timeout_height.revision_number, msg.timeout_height.revision_height = timeout_height
    return SEND, msg


def packet(sequence, data=b"hello", timeout_height=(0, 0), timeout_timestamp=0, channel="channel-0",
           their_channel="channel-0"):
    found = pb.Packet(sequence=sequence, source_port=PORT, source_channel=channel, destination_port=PORT,
                      destination_channel=their_channel, data=data, timeout_timestamp=timeout_timestamp)
    found.timeout_height.revision_number, found.timeout_height.revision_height = timeout_height
    return found


def recv_packet(chain, found, proof, height):
    return CHANNEL + "MsgRecvPacket", chan_tx.MsgRecvPacket(packet=found, proof_commitment=proof,
                                                            proof_height=height, signer=chain.relayer)


def acknowledgement(chain, found, ack, proof, height):
    return CHANNEL + "MsgAcknowledgement", chan_tx.MsgAcknowledgement(
        packet=found, acknowledgement=ack, proof_acked=proof, proof_height=height, signer=chain.relayer)


def timeout(chain, found, proof, height, next_sequence_recv):
    return CHANNEL + "MsgTimeout", chan_tx.MsgTimeout(packet=found, proof_unreceived=proof, proof_height=height,
                                                      next_sequence_recv=next_sequence_recv, signer=chain.relayer)


def timeout_on_close(chain, found, proof, proof_close, height, next_sequence_recv):
    return CHANNEL + "MsgTimeoutOnClose", chan_tx.MsgTimeoutOnClose(
        packet=found, proof_unreceived=proof, proof_close=proof_close, proof_height=height,
        next_sequence_recv=next_sequence_recv, signer=chain.relayer)


def packet_path(kind, sequence, channel="channel-0"):
    return f"{kind}/ports/{PORT}/channels/{channel}/sequences/{sequence}"


# Two chains with an open connection-0 and the mock port bound on each, as a relayer makes them.

A_CLIENT = B_CLIENT = "07-tendermint-0"
VERSION = conn_pb2.Version(identifier="1", features=["ORDER_ORDERED", "ORDER_UNORDERED"])


def ok(result):
    assert result.code == 0, result.log
    return result


def connected_pair(tmp_path):
    """An ibc_chains.Pair with clients of each other and an open connection-0 on each; the mock port bound on both
    to a MockApp (pair.apps[chain])."""
    made = ic.Pair(tmp_path)
    a, b = made.a, made.b
    made.block(a)
    made.block(b)
    for host_chain, of in ((a, b), (b, a)):
        ok(ic.create_client(made, host_chain, of))
    ok(made.block(a, [ic.open_init(a, A_CLIENT, B_CLIENT)]))
    _, proof, height = ic.proven(made, b, B_CLIENT, a, "connections/connection-0")
    ok(made.block(b, [ic.open_try(b, B_CLIENT, ic.counterparty(A_CLIENT, "connection-0"), [VERSION], proof,
                                  height)]))
    _, proof, height = ic.proven(made, a, A_CLIENT, b, "connections/connection-0")
    ok(made.block(a, [ic.open_ack(a, "connection-0", "connection-0", VERSION, proof, height)]))
    _, proof, height = ic.proven(made, b, B_CLIENT, a, "connections/connection-0")
    ok(made.block(b, [ic.open_confirm(b, "connection-0", proof, height)]))
    made.apps = {}
    for chain in (a, b):
        made.apps[chain] = MockApp()
        chain.app.keepers["ibc_channel"].bind_port(PORT, made.apps[chain])
    return made


def open_channel(pair, ordering=pb.ORDER_UNORDERED):
    """A's channel-0 and B's channel-0 OPEN; the four steps' results."""
    a, b = pair.a, pair.b
    init = ok(pair.block(a, [open_init(a, ordering)]))
    _, proof, height = ic.proven(pair, b, B_CLIENT, a, path("channel-0"))
    try_ = ok(pair.block(b, [open_try(b, "channel-0", "mock-1", proof, height, ordering)]))
    _, proof, height = ic.proven(pair, a, A_CLIENT, b, path("channel-0"))
    ack = ok(pair.block(a, [open_ack(a, "channel-0", "channel-0", "mock-1", proof, height)]))
    _, proof, height = ic.proven(pair, b, B_CLIENT, a, path("channel-0"))
    confirm = ok(pair.block(b, [open_confirm(b, "channel-0", proof, height)]))
    return init, try_, ack, confirm
