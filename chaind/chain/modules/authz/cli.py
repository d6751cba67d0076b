"""authz's CLI table: grants, grants-by-granter, grants-by-grantee; the hand-written grant (an authorization
built from flags, as the SDK's), revoke and exec (the messages of a tx file, as --generate-only writes it)."""

import json

import click

from chaind.chain.cli_table import Arg, Queries, Query, Txs

QUERY = Queries("chaind.pb.cosmos.authz.v1beta1.query_pb2", "Authorization grants.", (
    Query("grants", "Grants", "The grants of a granter to a grantee, or the one for MSG_TYPE_URL.",
          args=(Arg("granter", "acc"), Arg("grantee", "acc"), Arg("msg_type_url", required=False))),
    Query("grants-by-granter", "GranterGrants", "Every grant a granter gave.", args=(Arg("granter", "acc"),)),
    Query("grants-by-grantee", "GranteeGrants", "Every grant a grantee holds.", args=(Arg("grantee", "acc"),)),
))

_STAKE_TYPES = {"delegate": 1, "unbond": 2, "redelegate": 3}


def _addresses(kit, ctx, text, kind, what):
    out = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        try:
            out.append(kit.bech32_address(ctx, part, kind))
        except Exception:  # noqa: BLE001 (any parse failure is the user's typo)
            raise click.ClickException(f"invalid {what} address {part!r}") from None
    return out


def _transfer_authorization(kit, spend_limit, allow_list, source_port, source_channel, allowed_packet_data):
    """ibc-go's TransferAuthorization of one allocation: its source port and channel, spend limit, receivers
    (addresses on the counterparty chain, taken as written) and allowed memos."""
    if not source_channel:
        raise click.UsageError("transfer authorization needs --source-channel")
    if not spend_limit:
        raise click.UsageError("transfer authorization needs --spend-limit")
    from chaind.pb.ibc.applications.transfer.v1 import authz_pb2

    allocation = authz_pb2.Allocation(
        source_port=source_port, source_channel=source_channel,
        spend_limit=kit.coin_protos(kit.parse_coins(spend_limit, what="spend limit")),
        allow_list=[p.strip() for p in allow_list.split(",") if p.strip()],
        allowed_packet_data=[p for p in allowed_packet_data.split(",") if p])
    return kit.any("/ibc.applications.transfer.v1.TransferAuthorization",
                   authz_pb2.TransferAuthorization(allocations=[allocation]))


def _authorization(kit, ctx, kind, msg_type, spend_limit, allow_list, allowed_validators, deny_validators):
    """The SDK's NewCmdGrantAuthorization: one of generic, send, delegate, unbond, redelegate."""
    if kind == "generic":
        if not msg_type:
            raise click.UsageError("generic authorization needs --msg-type")
        from chaind.pb.cosmos.authz.v1beta1 import authz_pb2

        return kit.any("/cosmos.authz.v1beta1.GenericAuthorization", authz_pb2.GenericAuthorization(msg=msg_type))
    if kind == "send":
        if not spend_limit:
            raise click.UsageError("send authorization needs --spend-limit")
        from chaind.pb.cosmos.bank.v1beta1 import authz_pb2

        allowed = _addresses(kit, ctx, allow_list or "", "acc", "allow-list")
        if len(set(allowed)) != len(allowed):
            raise click.ClickException("duplicate address in --allow-list")
        return kit.any("/cosmos.bank.v1beta1.SendAuthorization", authz_pb2.SendAuthorization(
            spend_limit=kit.coin_protos(kit.parse_coins(spend_limit, what="spend limit")), allow_list=allowed))
    if kind in _STAKE_TYPES:
        allowed = _addresses(kit, ctx, allowed_validators or "", "val", "validator")
        denied = _addresses(kit, ctx, deny_validators or "", "val", "validator")
        if allowed and denied:
            raise click.UsageError("cannot set both allowed & deny list")
        if not allowed and not denied:
            raise click.UsageError("both allowed & deny list cannot be empty")
        from chaind.pb.cosmos.staking.v1beta1 import authz_pb2

        a = authz_pb2.StakeAuthorization(authorization_type=_STAKE_TYPES[kind])
        if spend_limit:
            a.max_tokens.CopyFrom(kit.coin(spend_limit))
        if allowed:
            a.allow_list.address.extend(allowed)
        else:
            a.deny_list.address.extend(denied)
        return kit.any("/cosmos.staking.v1beta1.StakeAuthorization", a)
    raise click.UsageError(f"invalid authorization type {kind!r}: want send, generic, delegate, unbond or redelegate")


def hand_written(kit):
    @click.command("grant")
    @click.argument("grantee")
    @click.argument("authorization_type", type=click.Choice(["send", "generic", "delegate", "unbond", "redelegate",
                                                             "transfer"]))
    @click.option("--from", "from_", required=True, help="Granter key (name or address)")
    @click.option("--msg-type", default="", help="The message type URL a generic authorization allows")
    @click.option("--spend-limit", default="", help="Spend limit of a send authorization (coins), or the most "
                  "tokens of a delegate/unbond/redelegate one (one coin)")
    @click.option("--allow-list", default="", help="Addresses a send or transfer authorization may send to "
                  "(comma-separated)")
    @click.option("--source-port", default="transfer", help="The source port a transfer authorization allows")
    @click.option("--source-channel", default="", help="The source channel a transfer authorization allows")
    @click.option("--allowed-packet-data", default="", help="Memos a transfer authorization allows "
                  "(comma-separated; * allows any)")
    @click.option("--allowed-validators", default="", help="Validators a stake authorization allows")
    @click.option("--deny-validators", default="", help="Validators a stake authorization denies")
    @click.option("--expiration", type=int, default=None, help="Expiration as a unix timestamp (seconds)")
    @kit.tx_options
    def grant(grantee, authorization_type, from_, msg_type, spend_limit, allow_list, source_port, source_channel,
              allowed_packet_data, allowed_validators, deny_validators, expiration, **_):
        """Grant GRANTEE an authorization to act for the --from key: send, generic, delegate, unbond, redelegate
        or transfer (ICS-20, one source channel)."""
        ctx = click.get_current_context()
        from chaind.pb.cosmos.authz.v1beta1 import authz_pb2, tx_pb2

        try:
            grantee_b32 = kit.bech32_address(ctx, grantee)
        except Exception:  # noqa: BLE001 (any parse failure is the user's typo)
            raise click.ClickException(f"invalid grantee address {grantee!r}") from None
        if authorization_type == "transfer":
            authorization = _transfer_authorization(kit, spend_limit, allow_list, source_port, source_channel,
                                                    allowed_packet_data)
        else:
            authorization = _authorization(kit, ctx, authorization_type, msg_type, spend_limit, allow_list,
                                           allowed_validators, deny_validators)
        g = authz_pb2.Grant(authorization=authorization)
        if expiration is not None:
            g.expiration.FromSeconds(expiration)
        msg = tx_pb2.MsgGrant(granter=kit.to_bech32(kit.prefix(ctx), kit.sender_address(ctx, from_)),
                              grantee=grantee_b32, grant=g)
        kit.generate_or_broadcast(ctx, from_, [("/cosmos.authz.v1beta1.MsgGrant", msg)])

    @click.command("revoke")
    @click.argument("grantee")
    @click.argument("msg_type_url")
    @click.option("--from", "from_", required=True, help="Granter key (name or address)")
    @kit.tx_options
    def revoke(grantee, msg_type_url, from_, **_):
        """Revoke GRANTEE's authorization for MSG_TYPE_URL given by the --from key."""
        ctx = click.get_current_context()
        from chaind.pb.cosmos.authz.v1beta1 import tx_pb2

        try:
            grantee_b32 = kit.bech32_address(ctx, grantee)
        except Exception:  # noqa: BLE001 (any parse failure is the user's typo)
            raise click.ClickException(f"invalid grantee address {grantee!r}") from None
        msg = tx_pb2.MsgRevoke(granter=kit.to_bech32(kit.prefix(ctx), kit.sender_address(ctx, from_)),
                               grantee=grantee_b32, msg_type_url=msg_type_url)
        kit.generate_or_broadcast(ctx, from_, [("/cosmos.authz.v1beta1.MsgRevoke", msg)])

    @click.command("exec")
    @click.argument("tx_file", type=click.Path(dir_okay=False))
    @click.option("--from", "from_", required=True, help="Grantee key (name or address)")
    @kit.tx_options
    def exec_(tx_file, from_, **_):
        """Execute, as the --from grantee, the messages of TX_FILE (a tx as --generate-only prints it, its
        messages signed by the granters)."""
        ctx = click.get_current_context()
        try:
            with open(tx_file) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            raise click.ClickException(f"cannot read {tx_file}: {e}") from None
        messages = (doc.get("body") or {}).get("messages") if isinstance(doc, dict) else None
        if not isinstance(messages, list) or not messages:
            raise click.ClickException(f"{tx_file}: want a tx whose body has messages")
        from chaind.pb.cosmos.authz.v1beta1 import tx_pb2

        msg = tx_pb2.MsgExec(grantee=kit.to_bech32(kit.prefix(ctx), kit.sender_address(ctx, from_)),
                             msgs=[kit.any_from_json(m) for m in messages])
        kit.generate_or_broadcast(ctx, from_, [("/cosmos.authz.v1beta1.MsgExec", msg)])

    return [grant, revoke, exec_]


TX = Txs("chaind.pb.cosmos.authz.v1beta1.tx_pb2", "Grant, revoke and use authorizations.", custom=hand_written,
         signers={"MsgGrant": "granter", "MsgRevoke": "granter", "MsgExec": "grantee"})
