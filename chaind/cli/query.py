"""`chaind query`: module state through abci_query (the modules' CLI tables), txs and blocks through the CometBFT RPC.

Outputs are the SDK's: the response proto as PrintProto writes it (YAML text, or JSON with -o json).
"""

import base64

import click

from chaind.cli.common import bech32_address, emit_proto, pb, prefix, query_options, rpc_client, to_bech32
from chaind.gocompat import rfc3339_seconds


def make_query(modules):
    """`query`: the commands below, and one group per module of `modules` (autocli.Modules) with a QUERY table."""
    from chaind.cli import autocli

    group = autocli.ModuleGroup("query", help="Query the state of a node (its CometBFT RPC at --node).",
                                modules=modules, part="QUERY", build=autocli.query_group)
    for name, command in COMMANDS.items():
        group.add_command(command, name)
    return group


# -- validator set -----------------------------------------------------------------------------

@click.command("tendermint-validator-set")
@click.argument("height", type=click.IntRange(min=1), required=False)
@click.option("--page", type=click.IntRange(min=1), default=1, help="Page of validators")
@click.option("--limit", type=click.IntRange(min=1), default=100, help="Validators per page")
@click.option("--node", default=None, envvar="CHAIND_NODE", help="<host>:<port> of the node's CometBFT RPC")
@click.option("--home", default=None, envvar="CHAIND_HOME", help="Directory of config/client.toml")
@click.option("-o", "--output", type=click.Choice(["text", "json"]), default=None, help="Output format")
def validator_set(height, page, limit, **_):
    """The validator set at HEIGHT (default latest), from the node's `validators` route as the SDK builds it."""
    ctx = click.get_current_context()
    params = {"page": str(page), "per_page": str(limit)}
    if height:
        params["height"] = str(height)
    result = rpc_client(ctx).call("validators", **params)
    cmt = pb("cosmos.base.tendermint.v1beta1.query_pb2")
    ed25519 = pb("cosmos.crypto.ed25519.keys_pb2")
    any_pb2 = _pb_any()
    response = cmt.GetLatestValidatorSetResponse(block_height=int(result["block_height"]))
    response.pagination.total = int(result["total"])
    cons = prefix(ctx, "cons")
    for v in result["validators"]:
        if v["pub_key"]["type"] != "tendermint/PubKeyEd25519":
            raise click.ClickException(f"unsupported validator key type {v['pub_key']['type']}")
        key = ed25519.PubKey(key=base64.b64decode(v["pub_key"]["value"]))
        response.validators.add(
            address=to_bech32(cons, bytes.fromhex(v["address"])),
            pub_key=any_pb2.Any(type_url="/cosmos.crypto.ed25519.PubKey", value=key.SerializeToString()),
            voting_power=int(v["voting_power"]), proposer_priority=int(v["proposer_priority"]))
    emit_proto(ctx, response)




def _pb_any():
    from google.protobuf import any_pb2

    return any_pb2


# -- txs and blocks ----------------------------------------------------------------------------

def tx_response(rpc, result, times=None):
    """A CometBFT ResultTx as the SDK's TxResponse (x/auth/tx QueryTx: the block's time as timestamp)."""
    abci = pb("cosmos.base.abci.v1beta1.abci_pb2")
    tx_pb2 = pb("cosmos.tx.v1beta1.tx_pb2")
    types = pb("tendermint.abci.types_pb2")
    any_pb2 = _pb_any()
    raw = base64.b64decode(result["tx"])
    height = int(result["height"])
    times = {} if times is None else times
    if height not in times:
        times[height] = rpc.call("block", height=str(height))["block"]["header"]["time"]
    r = result["tx_result"]
    try:
        tx_raw = tx_pb2.TxRaw.FromString(raw)
        tx = tx_pb2.Tx(body=tx_pb2.TxBody.FromString(tx_raw.body_bytes),
                       auth_info=tx_pb2.AuthInfo.FromString(tx_raw.auth_info_bytes), signatures=tx_raw.signatures)
    except Exception as e:  # noqa: BLE001 (the node's bytes: any decode failure is reported)
        raise click.ClickException(f"the node returned a tx that does not decode: {e}") from None
    return abci.TxResponse(
        height=height, txhash=result["hash"], codespace=r.get("codespace", ""), code=r.get("code", 0),
        data=base64.b64decode(r.get("data") or "").hex().upper(), raw_log=r.get("log", ""), info=r.get("info", ""),
        gas_wanted=int(r.get("gas_wanted", 0)), gas_used=int(r.get("gas_used", 0)),
        tx=any_pb2.Any(type_url="/cosmos.tx.v1beta1.Tx", value=tx.SerializeToString()),
        timestamp=rfc3339_seconds(times[height]),
        events=[types.Event(type=e["type"], attributes=[
            types.EventAttribute(key=a["key"], value=a["value"], index=a.get("index", False))
            for a in e.get("attributes") or ()]) for e in r.get("events") or ()])



_TX_QUERIES = {"acc_seq": "tx.acc_seq", "signature": "tx.signature"}


@click.command()
@click.argument("value")
@click.option("--type", "kind", type=click.Choice(["hash", "acc_seq", "signature"]), default="hash",
              help="hash (native or EVM 0x hash), acc_seq (ADDRESS/SEQUENCE) or signature (base64, comma-separated)")
@query_options
def tx(value, kind, **_):
    """A committed tx by hash, by ADDRESS/SEQUENCE or by signatures."""
    ctx = click.get_current_context()
    rpc = rpc_client(ctx)
    if kind == "hash":
        if value.startswith(("0x", "0X")):
            found = rpc.call("tx_search", query=f"ethereum_tx.ethereumTxHash='{value.lower()}'", page="1",
                             per_page="1")["txs"]
            if not found:
                raise click.ClickException(f"no tx with EVM hash {value}")
            result = found[0]
        else:
            try:
                digest = bytes.fromhex(value)
            except ValueError:
                digest = b""
            if len(digest) != 32:
                raise click.BadParameter(f"{value!r} is not a 64-digit hex tx hash", param_hint="HASH")
            result = rpc.call("tx", hash=base64.b64encode(digest).decode(), prove=False)
    else:
        if kind == "acc_seq":
            address, _, sequence = value.partition("/")
            if not sequence.isdigit():
                raise click.BadParameter(f"{value!r}: want ADDRESS/SEQUENCE", param_hint="VALUE")
            terms = [f"tx.acc_seq='{bech32_address(ctx, address)}/{int(sequence)}'"]
            what = "address and sequence combination"
        else:
            terms = [f"tx.signature='{s}'" for s in value.split(",") if s]
            what = "signatures"
        found = rpc.call("tx_search", query=" AND ".join(terms), page="1", per_page="2")
        count = int(found["total_count"])
        if count == 0:
            raise click.ClickException(f"found no txs matching given {what}")
        if count > 1:
            raise click.ClickException(f"found {count} txs matching given {what}")
        result = found["txs"][0]
    emit_proto(ctx, tx_response(rpc, result))


_EVENT_FORMAT = "{eventType}.{eventAttribute}={value}"


def events_query(text):
    """The SDK's older --events ("a.b=x&c.d=y") as an event query: string values quoted, tx.height not."""
    terms = []
    for event in text.strip("'").split("&"):
        if event.count("=") != 1:
            raise click.BadParameter(f"invalid event; event {event} should be of the format: {_EVENT_FORMAT}",
                                     param_hint="--events")
        key, value = event.split("=")
        terms.append(f"{key}={value}" if key == "tx.height" else f"{key}='{value}'")
    return " AND ".join(terms)


@click.command()
@click.option("--query", "query_text", default=None,
              help="CometBFT event query, e.g. \"message.sender='chain1...'\" (string values in single quotes)")
@click.option("--events", default=None,
              help="Events as the older SDK CLI takes them: type.attribute=value, joined by &")
@click.option("--page", type=click.IntRange(min=1), default=1, help="Page of results")
@click.option("--limit", type=click.IntRange(min=1), default=100, help="Results per page")
@click.option("--order_by", "order_by", type=click.Choice(["asc", "desc"]), default="asc", help="Order of heights")
@query_options
def txs(query_text, events, page, limit, order_by, **_):
    """Committed txs matching an event query (SearchTxsResult)."""
    ctx = click.get_current_context()
    if (query_text is None) == (events is None):
        raise click.UsageError("give one of --query and --events")
    if events is not None:
        query_text = events_query(events)
    rpc = rpc_client(ctx)
    try:
        found = rpc.call("tx_search", query=query_text, page=str(page), per_page=str(limit), order_by=order_by)
    except click.ClickException as e:
        if "offset" not in e.message:
            raise
        # The query language's own error says where, not why: a value left unquoted, most of the time.
        raise click.ClickException(f"{e.message} (in --query {query_text!r}: put string values in single "
                                   "quotes, e.g. \"message.sender='chain1...'\")") from None
    total = int(found["total_count"])
    times = {}
    abci = pb("cosmos.base.abci.v1beta1.abci_pb2")
    result = abci.SearchTxsResult(total_count=total, count=len(found["txs"]), page_number=page,
                                  page_total=-(-total // limit), limit=limit,
                                  txs=[tx_response(rpc, t, times) for t in found["txs"]])
    emit_proto(ctx, result)


@click.command()
@click.argument("value", required=False)
@click.option("--type", "kind", type=click.Choice(["height", "hash"]), default="height",
              help="VALUE is a height (default) or a block hash (hex)")
@query_options
def block(value, kind, **_):
    """A committed block by height or hash (default: the latest)."""
    ctx = click.get_current_context()
    rpc = rpc_client(ctx)
    if value is None:
        height = int(rpc.call("status")["sync_info"]["latest_block_height"])
        click.echo(f"Falling back to latest block height: {height}", err=True)
    elif kind == "height":
        if not value.isdigit() or int(value) == 0:
            raise click.BadParameter(f"{value!r} is not a positive height", param_hint="VALUE")
        height = int(value)
    else:
        try:
            digest = bytes.fromhex(value)
        except ValueError:
            digest = b""
        if len(digest) != 32:
            raise click.BadParameter(f"{value!r} is not a 64-digit hex block hash", param_hint="VALUE")
        found = rpc.call("block_by_hash", hash=base64.b64encode(digest).decode())
        if found.get("block") is None:
            raise click.ClickException(f"no block found with hash {value}")
        height = int(found["block"]["header"]["height"])
    response = rpc.query(pb("cosmos.base.tendermint.v1beta1.query_pb2"), "Service", "GetBlockByHeight",
                         height=height)
    emit_proto(ctx, response.sdk_block)


COMMANDS = {"tendermint-validator-set": validator_set, "comet-validator-set": validator_set,
            "cometbft-validator-set": validator_set, "tx": tx, "txs": txs, "block": block}
