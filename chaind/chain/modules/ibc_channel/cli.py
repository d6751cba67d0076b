"""04-channel's CLI table, ibc-go's `query ibc channel ...` of the handshake slice: channels, connections,
client-state and end; end proves its answer (--prove, on by default) as ibc-go's CLI does, through 02-client's
table's abci_query reader. ibc-go v8 has no channel tx commands (a relayer sends the handshake), nor has this."""

import click

from chaind.chain.cli_table import Arg, Queries, Query

_PROVE = "show proofs for the query results"


def _client_table():
    """02-client's table (its abci_query proof reader), loaded as the CLI loads tables: the file alone, without
    its package's __init__ (the keeper)."""
    import importlib.util
    import pathlib
    import sys

    name = "chaind.chain.modules.ibc_client.cli"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, pathlib.Path(__file__).parent.parent / "ibc_client" /
                                                      "cli.py")
        table = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(table)
        sys.modules[name] = table
    return sys.modules[name]


def _queries(kit):
    from chaind.pb.ibc.core.channel.v1 import channel_pb2, query_pb2

    @click.command("end", help="Query a channel end")
    @click.argument("port_id", metavar="[port-id]")
    @click.argument("channel_id", metavar="[channel-id]")
    @click.option("--prove", type=bool, default=True, show_default=True, help=_PROVE)
    @kit.query_options
    def end(port_id, channel_id, prove, **_):
        ctx = click.get_current_context()
        if not prove:
            kit.emit_proto(ctx, kit.rpc_client(ctx).query(query_pb2, "Query", "Channel", port_id=port_id,
                                                          channel_id=channel_id,
                                                          at_height=ctx.params.get("height", 0)))
            return
        value, proof, height = _client_table()._proven(
            kit, ctx, f"channelEnds/ports/{port_id}/channels/{channel_id}", ctx.params["height"])
        if not value:
            raise click.ClickException(f"port-id: {port_id}, channel-id {channel_id}: channel not found")
        kit.emit_proto(ctx, query_pb2.QueryChannelResponse(channel=channel_pb2.Channel.FromString(value), proof=proof,
                                                           proof_height=height))

    return [end]


QUERY = Queries("chaind.pb.ibc.core.channel.v1.query_pb2", "IBC channel query subcommands", (
    Query("channels", "Channels", "Query all channels"),
    Query("connections", "ConnectionChannels", "Query all channels associated with a connection",
          args=(Arg("connection", name="connection-id"),)),
    Query("client-state", "ChannelClientState", "Query the client state associated with a channel",
          args=(Arg("port_id", name="port-id"), Arg("channel_id", name="channel-id")), paginate=False),
), path=("ibc", "channel"), path_help=("Querying commands for the IBC module",), custom=_queries)
