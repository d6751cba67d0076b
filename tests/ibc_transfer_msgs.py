"""ICS-20 steps for IBC tests: a relayer's channel handshake between the `transfer` ports of two chains (any
version and ordering it proposes), on the connected pair of ibc_channel_msgs; MsgTransfer signed by a user, and
its packets relayed (received, acknowledged, timed out) with proofs, as a relayer finds them in the events.
"""

from google.protobuf import any_pb2

import gov_msgs as g
import ibc_chains as ic
from chain_driver import PROPOSER
from chaind.chain.authority import GOV
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.base.abci.v1beta1 import abci_pb2
from chaind.pb.ibc.applications.transfer.v1 import tx_pb2
from chaind.pb.ibc.core.channel.v1 import channel_pb2 as pb
from chaind.pb.ibc.core.channel.v1 import tx_pb2 as chan_tx
from ibc_channel_msgs import A_CLIENT, B_CLIENT, CHANNEL, acknowledgement, end, ok, recv_packet, timeout

PORT = "transfer"
VERSION = "ics20-1"
SUCCESS = b'{"result":"AQ=="}'      # ibc-go's ICS-20 success acknowledgement


def path(channel_id, port=PORT):
    return f"channelEnds/ports/{port}/channels/{channel_id}"


def open_init(chain, ordering=pb.ORDER_UNORDERED, version="", port=PORT, their_port=PORT):
    return CHANNEL + "MsgChannelOpenInit", chan_tx.MsgChannelOpenInit(
        port_id=port, channel=end(pb.STATE_INIT, ordering, their_port, "", ["connection-0"], version),
        signer=chain.relayer)


def open_try(chain, their_channel, their_version, proof, height, ordering=pb.ORDER_UNORDERED, port=PORT,
             their_port=PORT):
    return CHANNEL + "MsgChannelOpenTry", chan_tx.MsgChannelOpenTry(
        port_id=port, channel=end(pb.STATE_TRYOPEN, ordering, their_port, their_channel, ["connection-0"], ""),
        counterparty_version=their_version, proof_init=proof, proof_height=height, signer=chain.relayer)


def open_ack(chain, channel_id, their_channel, their_version, proof, height, port=PORT):
    return CHANNEL + "MsgChannelOpenAck", chan_tx.MsgChannelOpenAck(
        port_id=port, channel_id=channel_id, counterparty_channel_id=their_channel,
        counterparty_version=their_version, proof_try=proof, proof_height=height, signer=chain.relayer)


def open_confirm(chain, channel_id, proof, height, port=PORT):
    return CHANNEL + "MsgChannelOpenConfirm", chan_tx.MsgChannelOpenConfirm(
        port_id=port, channel_id=channel_id, proof_ack=proof, proof_height=height, signer=chain.relayer)


def close_init(chain, channel_id, port=PORT):
    return CHANNEL + "MsgChannelCloseInit", chan_tx.MsgChannelCloseInit(port_id=port, channel_id=channel_id,
                                                                        signer=chain.relayer)


def close_confirm(chain, channel_id, proof, height, port=PORT):
    return CHANNEL + "MsgChannelCloseConfirm", chan_tx.MsgChannelCloseConfirm(
        port_id=port, channel_id=channel_id, proof_init=proof, proof_height=height, signer=chain.relayer)


def closed_transfer_channel(pair):
    """A's transfer channel-0 CLOSED: opened to B's mock port, which closes its end (ICS-20 never closes one
    itself), and closed on A by the relayer's MsgChannelCloseConfirm."""
    a, b = pair.a, pair.b
    ok(pair.block(a, [open_init(a, their_port="mock")]))
    _, proof, height = ic.proven(pair, b, B_CLIENT, a, path("channel-0"))
    ok(pair.block(b, [open_try(b, "channel-0", VERSION, proof, height, port="mock")]))
    _, proof, height = ic.proven(pair, a, A_CLIENT, b, path("channel-0", "mock"))
    ok(pair.block(a, [open_ack(a, "channel-0", "channel-0", VERSION, proof, height)]))
    _, proof, height = ic.proven(pair, b, B_CLIENT, a, path("channel-0"))
    ok(pair.block(b, [open_confirm(b, "channel-0", proof, height, port="mock")]))
    ok(pair.block(b, [close_init(b, "channel-0", port="mock")]))
    _, proof, height = ic.proven(pair, a, A_CLIENT, b, path("channel-0", "mock"))
    ok(pair.block(a, [close_confirm(a, "channel-0", proof, height)]))


def open_transfer_channel(pair, version=""):
    """A's and B's next transfer channels OPEN between their `transfer` ports, as a relayer opens one with
    `--version ics20-1` (or empty: the init callback's); ((A's id, B's id), the four results)."""
    a, b = pair.a, pair.b
    init = ok(pair.block(a, [open_init(a, version=version)]))
    ours = chan_tx.MsgChannelOpenInitResponse.FromString(_response(init)).channel_id
    _, proof, height = ic.proven(pair, b, B_CLIENT, a, path(ours))
    try_ = ok(pair.block(b, [open_try(b, ours, VERSION, proof, height)]))
    theirs = chan_tx.MsgChannelOpenTryResponse.FromString(_response(try_)).channel_id
    _, proof, height = ic.proven(pair, a, A_CLIENT, b, path(theirs))
    ack = ok(pair.block(a, [open_ack(a, ours, theirs, VERSION, proof, height)]))
    _, proof, height = ic.proven(pair, b, B_CLIENT, a, path(ours))
    confirm = ok(pair.block(b, [open_confirm(b, theirs, proof, height)]))
    return (ours, theirs), (init, try_, ack, confirm)


def _response(result):
    return abci_pb2.TxMsgData.FromString(result.data).msg_responses[0].value


# ICS-20 transfers between two connected chains, relayed as a relayer relays them.

TRANSFER_URL = "/ibc.applications.transfer.v1.MsgTransfer"
USER = 2            # the dev key that sends transfers (the relayer, key 1, pays the relaying fees)
FAR = 4 * 10**18    # a timeout timestamp (ns) no test reaches: 2096


def address(chain, who=USER):
    return chain.chain.keys[who].address


def b32(chain, who=USER):
    return chain.chain.b32(address(chain, who))


def transfer(chain, denom, amount, receiver, channel="channel-0", timeout_height=(0, 0), timeout_timestamp=FAR,
             memo="", who=USER, port=PORT):
    msg = tx_pb2.MsgTransfer(source_port=port, source_channel=channel, sender=b32(chain, who), receiver=receiver,
                             timeout_timestamp=timeout_timestamp, memo=memo)
    msg.token.denom, msg.token.amount = denom, str(amount)
    msg.timeout_height.revision_number, msg.timeout_height.revision_height = timeout_height
    return TRANSFER_URL, msg


def signed_block(pair, chain, messages, who=USER, gas=1_000_000):
    """A block on `chain` of one tx of `messages` signed by dev key `who` (an empty block on the other); its
    result."""
    pair.clock += ic.S
    other = pair.b if chain is pair.a else pair.a
    other.block(pair.clock)
    raw = chain.chain.native(chain.chain.keys[who], list(messages), gas=gas)
    block, puts = chain.app.finalize_block([raw], pair.clock, PROPOSER)
    chain.app.commit(block, puts)
    return block.results[0]


def sent_packets(result):
    """The Packets a tx sent, read from its send_packet events as a relayer reads them."""
    found = []
    for event in result.events:
        if event.type != "send_packet":
            continue
        values = {k: v for k, v, _ in event.attributes}
        packet = pb.Packet(sequence=int(values["packet_sequence"]), source_port=values["packet_src_port"],
                           source_channel=values["packet_src_channel"], destination_port=values["packet_dst_port"],
                           destination_channel=values["packet_dst_channel"],
                           data=bytes.fromhex(values["packet_data_hex"]),
                           timeout_timestamp=int(values["packet_timeout_timestamp"]))
        revision, height = values["packet_timeout_height"].split("-")
        packet.timeout_height.revision_number, packet.timeout_height.revision_height = int(revision), int(height)
        found.append(packet)
    return found


def written_ack(result):
    """The acknowledgement bytes a MsgRecvPacket's tx wrote (its write_acknowledgement event's)."""
    for event in result.events:
        if event.type == "write_acknowledgement":
            return bytes.fromhex(dict((k, v) for k, v, _ in event.attributes)["packet_ack_hex"])
    return None


def _client_of(pair, chain):
    return B_CLIENT if chain is pair.b else A_CLIENT


def packet_path(kind, port, channel, sequence):
    return f"{kind}/ports/{port}/channels/{channel}/sequences/{sequence}"


def _relay_recv(pair, src, dst, packet):
    _, proof, height = ic.proven(pair, dst, _client_of(pair, dst), src, packet_path(
        "commitments", packet.source_port, packet.source_channel, packet.sequence))
    return pair.block(dst, [recv_packet(dst, packet, proof, height)])


def recv_on(pair, src, dst, packet):
    """MsgRecvPacket of `packet` (sent by `src`) on `dst`; the result."""
    return _relay_recv(pair, src, dst, packet)


def ack_on(pair, src, dst, packet, ack):
    """MsgAcknowledgement on `src` of the ack `dst` wrote for `packet`, proven; the result."""
    _, proof, height = ic.proven(pair, src, _client_of(pair, src), dst, packet_path(
        "acks", packet.destination_port, packet.destination_channel, packet.sequence))
    return pair.block(src, [acknowledgement(src, packet, ack, proof, height)])


def timeout_on(pair, src, dst, packet):
    """MsgTimeout on `src` of `packet`, its receipt's absence on `dst` proven (its timeout must have passed
    there); the result."""
    _, proof, height = ic.proven(pair, src, _client_of(pair, src), dst, packet_path(
        "receipts", packet.destination_port, packet.destination_channel, packet.sequence))
    return pair.block(src, [timeout(src, packet, proof, height, 1)])


def relay(pair, src, dst, result):
    """Every packet of a transfer tx on `src` received on `dst` and its ack relayed back; [(recv result, ack
    bytes, ack result)]."""
    done = []
    for packet in sent_packets(result):
        received = ok(recv_on(pair, src, dst, packet))
        ack = written_ack(received)
        done.append((received, ack, ok(ack_on(pair, src, dst, packet, ack))))
    return done


def update_params_through_gov(pair, chain, send_enabled=True, receive_enabled=True):
    """ibc-go's MsgUpdateParams of transfer passed by a proposal on `chain` (the validator, key 0, votes yes)."""
    prefix = chain.genesis.bech32_prefix
    msg = tx_pb2.MsgUpdateParams(signer=to_bech32(prefix, GOV))
    msg.params.send_enabled, msg.params.receive_enabled = send_enabled, receive_enabled
    content = any_pb2.Any(type_url="/ibc.applications.transfer.v1.MsgUpdateParams", value=msg.SerializeToString())
    ok(signed_block(pair, chain, [(g.SUBMIT, g.submit(prefix, address(chain, 1), [content]))], who=1))
    pid = chain.app.keepers["gov"].next_proposal_id(chain.app.view()) - 1
    ok(signed_block(pair, chain, [(g.VOTE, g.vote(prefix, address(chain, 0), pid, g.YES))], who=0))
    pair.clock += 20 * ic.S         # the dev genesis' voting period
    pair.block(chain)
    assert chain.app.keepers["transfer"].params(chain.app.view()) == msg.params
