"""ICS-20 steps for IBC tests: a relayer's channel handshake between the `transfer` ports of two chains (any
version and ordering it proposes), on the connected pair of ibc_channel_msgs.
"""

import ibc_chains as ic
from chaind.pb.cosmos.base.abci.v1beta1 import abci_pb2
from chaind.pb.ibc.core.channel.v1 import channel_pb2 as pb
from chaind.pb.ibc.core.channel.v1 import tx_pb2 as chan_tx
from ibc_channel_msgs import A_CLIENT, B_CLIENT, CHANNEL, end, ok

PORT = "transfer"
VERSION = "ics20-1"


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
