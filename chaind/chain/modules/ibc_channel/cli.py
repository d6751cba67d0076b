"""04-channel's CLI table, ibc-go's `query ibc channel ...`: channels, connections, client-state, end, the packet
commitments, receipts, acks and next send sequence, and the unreceived packets and acks of --sequences; end and
the single packet states prove their answer (--prove, on by default) as ibc-go's CLI does, through
chain/ibc_store_proof.py's abci_query reader. ibc-go v8 has no channel tx commands (a relayer sends them), nor
has this."""

import click

from chaind.chain.cli_table import Arg, Queries, Query
from chaind.chain.ibc_store_proof import PROVE_HELP, proven


def _queries(kit):
    from chaind.pb.ibc.core.channel.v1 import channel_pb2, query_pb2

    @click.command("end", help="Query a channel end")
    @click.argument("port_id", metavar="[port-id]")
    @click.argument("channel_id", metavar="[channel-id]")
    @click.option("--prove", type=bool, default=True, show_default=True, help=PROVE_HELP)
    @kit.query_options
    def end(port_id, channel_id, prove, **_):
        ctx = click.get_current_context()
        if not prove:
            kit.emit_proto(ctx, kit.rpc_client(ctx).query(query_pb2, "Query", "Channel", port_id=port_id,
                                                          channel_id=channel_id,
                                                          at_height=ctx.params.get("height", 0)))
            return
        value, proof, height = proven(
            kit, ctx, f"channelEnds/ports/{port_id}/channels/{channel_id}", ctx.params["height"])
        if not value:
            raise click.ClickException(f"port-id: {port_id}, channel-id {channel_id}: channel not found")
        kit.emit_proto(ctx, query_pb2.QueryChannelResponse(channel=channel_pb2.Channel.FromString(value), proof=proof,
                                                           proof_height=height))

    return [end]


def _proven_command(kit, name, help_, rpc, path, with_sequence, answer):
    """A `name [port-id] [channel-id] [sequence]` query: over gRPC with --prove=false, else the store's value
    at `path` proven and handed to answer(value, proof, height, where) (a response, or a ClickException)."""
    from chaind.pb.ibc.core.channel.v1 import query_pb2

    @click.command(name, help=help_)
    @click.argument("port_id", metavar="[port-id]")
    @click.argument("channel_id", metavar="[channel-id]")
    @click.option("--prove", type=bool, default=True, show_default=True, help=PROVE_HELP)
    @kit.query_options
    def command(port_id, channel_id, prove, sequence=None, **_):
        ctx = click.get_current_context()
        fields = {"port_id": port_id, "channel_id": channel_id}
        if with_sequence:
            fields["sequence"] = sequence
        if not prove:
            kit.emit_proto(ctx, kit.rpc_client(ctx).query(query_pb2, "Query", rpc, **fields,
                                                          at_height=ctx.params.get("height", 0)))
            return
        value, proof, height = proven(kit, ctx, path(**fields), ctx.params["height"])
        where = f"portID ({port_id}), channelID ({channel_id})" + (
            f", sequence ({sequence})" if with_sequence else "")
        kit.emit_proto(ctx, answer(value, proof, height, where))

    if with_sequence:
        command = click.argument("sequence", metavar="[sequence]", type=click.IntRange(0, 2**64 - 1))(command)
        command.params.insert(2, command.params.pop())      # after the channel id, as ibc-go's usage has it
    return command


def _unreceived_command(kit, name, help_, rpc, field):
    from chaind.pb.ibc.core.channel.v1 import query_pb2

    @click.command(name, help=help_)
    @click.argument("port_id", metavar="[port-id]")
    @click.argument("channel_id", metavar="[channel-id]")
    @click.option("--sequences", default="", help="comma separated list of packet sequence numbers")
    @kit.query_options
    def command(port_id, channel_id, sequences, **_):
        ctx = click.get_current_context()
        try:
            numbers = [int(text) for text in sequences.split(",") if text.strip()]
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="--sequences") from None
        if any(n < 0 or n >= 2**64 for n in numbers):
            raise click.BadParameter("sequences are uint64s", param_hint="--sequences")
        kit.emit_proto(ctx, kit.rpc_client(ctx).query(query_pb2, "Query", rpc, port_id=port_id,
                                                      channel_id=channel_id, **{field: numbers},
                                                      at_height=ctx.params.get("height", 0)))

    return command


def _packet_queries(kit):
    """The packet commands: single states proven as ibc-go's CLI proves them, and the unreceived ones."""
    from chaind.pb.ibc.core.channel.v1 import query_pb2

    def packet(kind):
        return lambda port_id, channel_id, sequence: (f"{kind}/ports/{port_id}/channels/{channel_id}/sequences/"
                                                      f"{sequence}")

    def commitment(value, proof, height, where):
        if not value:
            raise click.ClickException(f"{where}: packet commitment not found")
        return query_pb2.QueryPacketCommitmentResponse(commitment=value, proof=proof, proof_height=height)

    def receipt(value, proof, height, where):
        return query_pb2.QueryPacketReceiptResponse(received=bool(value), proof=proof, proof_height=height)

    def acknowledgement(value, proof, height, where):
        if not value:
            raise click.ClickException(f"{where}: invalid acknowledgement")
        return query_pb2.QueryPacketAcknowledgementResponse(acknowledgement=value, proof=proof, proof_height=height)

    def next_send(value, proof, height, where):
        if not value:
            raise click.ClickException(f"{where}: channel not found")
        return query_pb2.QueryNextSequenceSendResponse(next_sequence_send=int.from_bytes(value, "big"), proof=proof,
                                                       proof_height=height)

    return [
        _proven_command(kit, "packet-commitment", "Query a packet commitment", "PacketCommitment",
                        packet("commitments"), True, commitment),
        _proven_command(kit, "packet-receipt", "Query a packet receipt", "PacketReceipt", packet("receipts"), True,
                        receipt),
        _proven_command(kit, "packet-ack", "Query a packet acknowledgement", "PacketAcknowledgement",
                        packet("acks"), True, acknowledgement),
        _proven_command(kit, "next-sequence-send", "Query a next send sequence", "NextSequenceSend",
                        lambda port_id, channel_id: f"nextSequenceSend/ports/{port_id}/channels/{channel_id}", False,
                        next_send),
        _unreceived_command(kit, "unreceived-packets", "Query all the unreceived packets associated with a channel",
                            "UnreceivedPackets", "packet_commitment_sequences"),
        _unreceived_command(kit, "unreceived-acks", "Query all the unreceived acks associated with a channel",
                            "UnreceivedAcks", "packet_ack_sequences"),
    ]


QUERY = Queries("chaind.pb.ibc.core.channel.v1.query_pb2", "IBC channel query subcommands", (
    Query("channels", "Channels", "Query all channels"),
    Query("connections", "ConnectionChannels", "Query all channels associated with a connection",
          args=(Arg("connection", name="connection-id"),)),
    Query("client-state", "ChannelClientState", "Query the client state associated with a channel",
          args=(Arg("port_id", name="port-id"), Arg("channel_id", name="channel-id")), paginate=False),
    Query("packet-commitments", "PacketCommitments", "Query all packet commitments associated with a channel",
          args=(Arg("port_id", name="port-id"), Arg("channel_id", name="channel-id"))),
), path=("ibc", "channel"), path_help=("Querying commands for the IBC module",),
    custom=lambda kit: _queries(kit) + _packet_queries(kit))
