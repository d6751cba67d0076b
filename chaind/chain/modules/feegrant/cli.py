"""feegrant's CLI table: grant, grants-by-grantee, grants-by-granter; revoke, prune, and the hand-written grant
(its allowance built from --spend-limit, --expiration, --period, --period-limit and --allowed-messages)."""

import time

import click

from chaind.chain.cli_table import Arg, Msg, Queries, Query, Txs

QUERY = Queries("chaind.pb.cosmos.feegrant.v1beta1.query_pb2", "Fee allowances granted between accounts.", (
    Query("grant", "Allowance", "The allowance a granter gave a grantee.",
          args=(Arg("granter", "acc"), Arg("grantee", "acc"))),
    Query("grants-by-grantee", "Allowances", "Every allowance a grantee holds.", args=(Arg("grantee", "acc"),)),
    Query("grants-by-granter", "AllowancesByGranter", "Every allowance a granter gave.",
          args=(Arg("granter", "acc"),)),
))


def _timestamp(text, what):
    """An RFC 3339 time (e.g. 2030-01-01T00:00:00Z) as a Timestamp."""
    from google.protobuf import timestamp_pb2

    stamp = timestamp_pb2.Timestamp()
    try:
        stamp.FromJsonString(text)
    except ValueError:
        raise click.ClickException(f"invalid {what} {text!r}: want an RFC 3339 time, e.g. 2030-01-01T00:00:00Z") \
            from None
    return stamp


def hand_written(kit):
    """grant: the allowance comes from flags, as the SDK's `tx feegrant grant` builds it."""

    @click.command("grant")
    @click.argument("granter")
    @click.argument("grantee")
    @click.option("--spend-limit", default=None, help="Most the grantee may spend on fees in all, e.g. 100achain")
    @click.option("--expiration", default=None, help="When the allowance ends (RFC 3339, e.g. 2030-01-01T00:00:00Z)")
    @click.option("--period", type=click.IntRange(min=1), default=None,
                  help="Seconds after which the period limit is available again (a periodic allowance)")
    @click.option("--period-limit", default=None, help="Most the grantee may spend each period")
    @click.option("--allowed-messages", default=None,
                  help="Comma-separated message type URLs the allowance pays for (any, when not given)")
    @kit.tx_options
    def grant(granter, grantee, spend_limit, expiration, period, period_limit, allowed_messages, **_):
        """Let GRANTEE (bech32 or 0x) pay tx fees from GRANTER's account (a key: name or address), within
        the limits given."""
        ctx = click.get_current_context()
        from google.protobuf import duration_pb2, timestamp_pb2

        from chaind.pb.cosmos.feegrant.v1beta1 import feegrant_pb2, tx_pb2

        basic = feegrant_pb2.BasicAllowance()
        if spend_limit:
            basic.spend_limit.extend(kit.coin_protos(kit.parse_coins(spend_limit, what="spend limit")))
        if expiration:
            basic.expiration.CopyFrom(_timestamp(expiration, "expiration"))
        allowance = basic
        if period is not None or period_limit:
            if period is None or not period_limit:
                raise click.UsageError("a periodic allowance needs both --period and --period-limit")
            limit = kit.coin_protos(kit.parse_coins(period_limit, what="period limit"))
            # The chain sets the first reset from its block time; the SDK's CLI fills in one from now (an amino
            # JSON signer needs the field).
            reset = timestamp_pb2.Timestamp(seconds=int(time.time()) + period)
            allowance = feegrant_pb2.PeriodicAllowance(basic=basic, period=duration_pb2.Duration(seconds=period),
                                                       period_spend_limit=limit, period_can_spend=limit,
                                                       period_reset=reset)
        if allowed_messages:
            urls = [u.strip() for u in allowed_messages.split(",") if u.strip()]
            allowance = feegrant_pb2.AllowedMsgAllowance(allowance=kit.any("/" + allowance.DESCRIPTOR.full_name,
                                                                           allowance),
                                                         allowed_messages=urls)
        msg = tx_pb2.MsgGrantAllowance(
            granter=kit.to_bech32(kit.prefix(ctx), kit.sender_address(ctx, granter)),
            grantee=kit.bech32_address(ctx, grantee),
            allowance=kit.any("/" + allowance.DESCRIPTOR.full_name, allowance))
        kit.generate_or_broadcast(ctx, granter, [("/cosmos.feegrant.v1beta1.MsgGrantAllowance", msg)])

    return [grant]


TX = Txs("chaind.pb.cosmos.feegrant.v1beta1.tx_pb2", "Grant and revoke fee allowances.", (
    Msg("revoke", "MsgRevokeAllowance", "Revoke the allowance a granter (a key: name or address) gave GRANTEE.",
        "granter", args=(Arg("grantee", "acc"),), from_arg=True),
    Msg("prune", "MsgPruneAllowances", "Remove expired allowances (up to 75).", "pruner"),
), custom=hand_written, signers={"MsgGrantAllowance": "granter"})
