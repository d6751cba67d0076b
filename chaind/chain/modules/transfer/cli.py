"""ICS-20's CLI table, ibc-go v8.5's `query ibc-transfer denom-trace|denom-traces|params|escrow-address|denom-hash|
total-escrow` and `tx ibc-transfer transfer [src-port] [src-channel] [receiver] [amount]` with its timeout flags:
relative timeouts (the default) are added to the latest height and consensus state time of the channel's client
of the counterparty, as ibc-go's CLI reads them from the node."""

import time

import click

from chaind.chain.cli_table import Arg, Queries, Query, Txs

DEFAULT_TIMEOUT_HEIGHT = "0-1000"               # DefaultRelativePacketTimeoutHeight
DEFAULT_TIMEOUT_TIMESTAMP = 10 * 60 * 10**9     # DefaultRelativePacketTimeoutTimestamp: ten minutes


def _queries(kit):
    from chaind.pb.ibc.applications.transfer.v1 import query_pb2

    @click.command("escrow-address", help="Get the escrow address for a channel")
    @click.argument("port", metavar="[port]")
    @click.argument("channel_id", metavar="[channel-id]")
    @kit.query_options
    def escrow_address(port, channel_id, **_):
        ctx = click.get_current_context()
        found = kit.rpc_client(ctx).query(query_pb2, "Query", "EscrowAddress", port_id=port, channel_id=channel_id,
                                          at_height=ctx.params.get("height", 0))
        click.echo(found.escrow_address)

    return [escrow_address]


def parse_height(text):
    """clienttypes.ParseHeight: `{revision}-{height}`."""
    parts = text.split("-")
    if len(parts) != 2 or not all(part.isdigit() for part in parts):
        raise click.BadParameter(f"expected height string format: {{revision}}-{{height}}. Got: {text}: invalid "
                                 "height", param_hint="--packet-timeout-height")
    revision, height = int(parts[0]), int(parts[1])
    if revision >= 2**64 or height >= 2**64:
        raise click.BadParameter(f"invalid revision number or height: {text}", param_hint="--packet-timeout-height")
    return revision, height


def relative_timeouts(kit, ctx, port, channel, height, timestamp, now_ns):
    """The absolute timeouts of relative ones: the height added to the latest height of the channel's client of
    the counterparty, the timestamp to the later of our clock and that client's latest consensus state's time."""
    from chaind.pb.ibc.core.channel.v1 import query_pb2 as channel_query
    from chaind.pb.ibc.core.client.v1 import query_pb2 as client_query
    from chaind.pb.ibc.lightclients.tendermint.v1 import tendermint_pb2

    client = kit.rpc_client(ctx)
    found = client.query(channel_query, "Query", "ChannelClientState", port_id=port, channel_id=channel)
    client_id = found.identified_client_state.client_id
    state = tendermint_pb2.ClientState.FromString(found.identified_client_state.client_state.value)
    latest = state.latest_height
    if height != (0, 0):
        height = (latest.revision_number + height[0], latest.revision_height + height[1])
    if timestamp:
        consensus = client.query(client_query, "Query", "ConsensusState", client_id=client_id,
                                 revision_number=latest.revision_number, revision_height=latest.revision_height)
        stamp = tendermint_pb2.ConsensusState.FromString(consensus.consensus_state.value).timestamp
        timestamp += max(now_ns, stamp.seconds * 10**9 + stamp.nanos)
    return height, timestamp


def _txs(kit):
    from chaind.chain.modules.transfer.denoms import ibc_denom, parse_trace
    from chaind.pb.ibc.applications.transfer.v1 import tx_pb2

    @click.command("transfer", help="Transfer a fungible token through IBC. Timeouts can be specified as absolute "
                   "or relative using the \"absolute-timeouts\" flag. Timeout height can be set by passing in the "
                   "height string in the form {revision}-{height} using the \"packet-timeout-height\" flag. Relative "
                   "timeout height is added to the block height queried from the latest consensus state "
                   "corresponding to the counterparty channel. Relative timeout timestamp is added to the greater "
                   "value of the local clock time and the block timestamp queried from the latest consensus state "
                   "corresponding to the counterparty channel. Any timeout set to 0 is disabled.")
    @click.argument("src_port", metavar="[src-port]")
    @click.argument("src_channel", metavar="[src-channel]")
    @click.argument("receiver", metavar="[receiver]")
    @click.argument("amount", metavar="[amount]")
    @click.option("--packet-timeout-height", default=DEFAULT_TIMEOUT_HEIGHT, show_default=True,
                  help="Packet timeout block height. The timeout is disabled when set to 0-0.")
    @click.option("--packet-timeout-timestamp", type=click.IntRange(0, 2**64 - 1), default=DEFAULT_TIMEOUT_TIMESTAMP,
                  show_default=True, help="Packet timeout timestamp in nanoseconds from now. Default is 10 minutes. "
                  "The timeout is disabled when set to 0.")
    @click.option("--absolute-timeouts", is_flag=True, help="Timeout flags are used as absolute timeouts.")
    @click.option("--memo", default="", help="Memo to be sent along with the packet.")
    @click.option("--from", "from_", required=True, help="Signing key (name or address)")
    @kit.tx_options
    def transfer(src_port, src_channel, receiver, amount, packet_timeout_height, packet_timeout_timestamp,
                 absolute_timeouts, memo, from_, **_):
        ctx = click.get_current_context()
        token = kit.coin(amount)
        if not token.denom.startswith("ibc/"):
            token.denom = ibc_denom(parse_trace(token.denom))
        height, timestamp = parse_height(packet_timeout_height), packet_timeout_timestamp
        if not absolute_timeouts:
            height, timestamp = relative_timeouts(kit, ctx, src_port, src_channel, height, timestamp, time.time_ns())
        sender = kit.to_bech32(kit.prefix(ctx, "acc"), kit.sender_address(ctx, from_))
        msg = tx_pb2.MsgTransfer(source_port=src_port, source_channel=src_channel, token=token, sender=sender,
                                 receiver=receiver, timeout_timestamp=timestamp, memo=memo)
        msg.timeout_height.revision_number, msg.timeout_height.revision_height = height
        kit.generate_or_broadcast(ctx, from_, [("/ibc.applications.transfer.v1.MsgTransfer", msg)])

    # --memo is the packet's memo here, as in ibc-go's command; the tx's own is --note alone (SDK v0.50's flag).
    for param in transfer.params:
        if param.name == "note":
            param.opts = [opt for opt in param.opts if opt != "--memo"]
    return [transfer]


QUERY = Queries("chaind.pb.ibc.applications.transfer.v1.query_pb2", "IBC fungible token transfer query subcommands", (
    Query("denom-trace", "DenomTrace", "Query the denom trace info from a given trace hash or ibc denom",
          args=(Arg("hash", name="hash/denom"),)),
    Query("denom-traces", "DenomTraces", "Query the trace info for all token denominations"),
    Query("params", "Params", "Query the current ibc-transfer parameters"),
    Query("denom-hash", "DenomHash", "Query the denom hash info from a given denom trace", args=(Arg("trace"),)),
    Query("total-escrow", "TotalEscrowForDenom", "Query the total amount of tokens in escrow for a denom",
          args=(Arg("denom"),)),
), path=("ibc-transfer",), custom=_queries)

TX = Txs("chaind.pb.ibc.applications.transfer.v1.tx_pb2", "IBC fungible token transfer transaction subcommands",
         custom=_txs, signers={"MsgTransfer": "sender"}, path=("ibc-transfer",))
