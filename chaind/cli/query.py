"""`chaind query`: module state through abci_query, txs and blocks through the CometBFT RPC.

Outputs are the SDK's: the response proto as PrintProto writes it (YAML text, or JSON with -o json).
"""

import base64

import click

from chaind.cli.common import address_bytes, bech32_address, emit_proto, prefix, query_options, rpc_client, to_bech32


def _pb(module):
    import importlib

    return importlib.import_module("chaind.pb." + module)


def pagination_options(f):
    for option in reversed([
        click.option("--page", type=click.IntRange(min=1), default=1, help="Page of results (sets offset)"),
        click.option("--page-key", default="", help="base64 next_key of the previous page"),
        click.option("--offset", type=click.IntRange(min=0), default=0, help="Results to skip"),
        click.option("--limit", type=click.IntRange(min=0), default=100, help="Results per page"),
        click.option("--count-total", is_flag=True, help="Count the total number of records"),
        click.option("--reverse", is_flag=True, help="Results in descending order"),
    ]):
        f = option(f)
    return f


def page_request(params):
    """The SDK's client.ReadPageRequest from the pagination flags."""
    page, offset, limit = params["page"], params["offset"], params["limit"]
    if page > 1 and offset > 0:
        raise click.UsageError("page and offset cannot be used together")
    if page > 1:
        offset = (page - 1) * limit
    try:
        key = base64.b64decode(params["page_key"], validate=True)
    except ValueError:
        raise click.BadParameter("not base64", param_hint="--page-key") from None
    return _pb("cosmos.base.query.v1beta1.pagination_pb2").PageRequest(
        key=key, offset=offset, limit=limit, count_total=params["count_total"], reverse=params["reverse"])


def _ask(module, service, method, **fields):
    """Run one query method with the current command's --node/--height, print its response."""
    ctx = click.get_current_context()
    response = rpc_client(ctx).query(_pb(module), service, method, at_height=ctx.params.get("height", 0),
                                      **fields)
    emit_proto(ctx, response)


@click.group()
def query():
    """Query the state of a node (its CometBFT RPC at --node)."""


# -- auth --------------------------------------------------------------------------------------

_AUTH = "cosmos.auth.v1beta1.query_pb2"


@query.group()
def auth():
    """Accounts and auth parameters."""


@auth.command("account")
@click.argument("address")
@query_options
def auth_account(address, **_):
    """An account by address (bech32 or 0x)."""
    _ask(_AUTH, "Query", "Account", address=bech32_address(click.get_current_context(), address))


@auth.command("params")
@query_options
def auth_params(**_):
    """The auth module's parameters."""
    _ask(_AUTH, "Query", "Params")


query.add_command(auth_account, "account")


# -- bank --------------------------------------------------------------------------------------

_BANK = "cosmos.bank.v1beta1.query_pb2"


@query.group()
def bank():
    """Balances, supply and denom metadata."""


@bank.command()
@click.argument("address")
@click.option("--denom", default=None, help="Only this denom's balance")
@click.option("--resolve-denom", is_flag=True, help="Show denoms by their display name where metadata has one")
@pagination_options
@query_options
def balances(address, denom, resolve_denom, **params):
    """All balances of an account (bech32 or 0x), or one with --denom."""
    address = bech32_address(click.get_current_context(), address)
    if denom:
        _ask(_BANK, "Query", "Balance", address=address, denom=denom)
    else:
        _ask(_BANK, "Query", "AllBalances", address=address, pagination=page_request(params),
             resolve_denom=resolve_denom)


@bank.command()
@click.argument("address")
@click.argument("denom")
@query_options
def balance(address, denom, **_):
    """One denom's balance of an account."""
    _ask(_BANK, "Query", "Balance", address=bech32_address(click.get_current_context(), address), denom=denom)


@bank.command()
@click.option("--denom", default=None, help="Only this denom's supply")
@pagination_options
@query_options
def total(denom, **params):
    """The total supply of coins, or of one denom."""
    if denom:
        _ask(_BANK, "Query", "SupplyOf", denom=denom)
    else:
        _ask(_BANK, "Query", "TotalSupply", pagination=page_request(params))


@bank.command("denom-metadata")
@click.option("--denom", default=None, help="Only this denom's metadata")
@pagination_options
@query_options
def denom_metadata(denom, **params):
    """Metadata of all denoms, or of one."""
    if denom:
        _ask(_BANK, "Query", "DenomMetadata", denom=denom)
    else:
        _ask(_BANK, "Query", "DenomsMetadata", pagination=page_request(params))


@bank.command("params")
@query_options
def bank_params(**_):
    """The bank module's parameters."""
    _ask(_BANK, "Query", "Params")


# -- erc20 -------------------------------------------------------------------------------------

_ERC20 = "evmos.erc20.v1.query_pb2"


@query.group()
def erc20():
    """ERC-20 token pairs."""


@erc20.command("token-pair")
@click.argument("token")
@query_options
def token_pair(token, **_):
    """The token pair of a denom or an ERC-20 contract address."""
    _ask(_ERC20, "Query", "TokenPair", token=token)


@erc20.command("token-pairs")
@pagination_options
@query_options
def token_pairs(**params):
    """All registered token pairs."""
    _ask(_ERC20, "Query", "TokenPairs", pagination=page_request(params))


@erc20.command("params")
@query_options
def erc20_params(**_):
    """The erc20 module's parameters."""
    _ask(_ERC20, "Query", "Params")


# -- evm ---------------------------------------------------------------------------------------

_EVM = "ethermint.evm.v1.query_pb2"


def _hex_address(text):
    return "0x" + address_bytes(text).hex()


@query.group()
def evm():
    """EVM accounts, code, storage and parameters."""


@evm.command("account")
@click.argument("address")
@query_options
def evm_account(address, **_):
    """Balance, code hash and nonce of an address (0x or bech32)."""
    _ask(_EVM, "Query", "Account", address=_hex_address(address))


@evm.command("code")
@click.argument("address")
@query_options
def evm_code(address, **_):
    """The contract code at an address."""
    _ask(_EVM, "Query", "Code", address=_hex_address(address))


@evm.command("storage")
@click.argument("address")
@click.argument("key")
@query_options
def evm_storage(address, key, **_):
    """One storage slot (KEY: hex, padded to 32 bytes) of a contract."""
    digits = key[2:] if key.startswith(("0x", "0X")) else key
    try:
        slot = bytes.fromhex(digits.rjust(64, "0"))
    except ValueError:
        slot = b""
    if len(slot) != 32:
        raise click.BadParameter(f"{key!r} is not a hex storage key of at most 32 bytes", param_hint="KEY")
    _ask(_EVM, "Query", "Storage", address=_hex_address(address), key="0x" + slot.hex())


@evm.command("params")
@query_options
def evm_params(**_):
    """The evm module's parameters."""
    _ask(_EVM, "Query", "Params")


# -- feemarket ---------------------------------------------------------------------------------

_FEEMARKET = "ethermint.feemarket.v1.query_pb2"


@query.group()
def feemarket():
    """The EIP-1559 base fee and its parameters."""


@feemarket.command("base-fee")
@query_options
def base_fee(**_):
    """The base fee of the block at --height (default latest)."""
    _ask(_FEEMARKET, "Query", "BaseFee")


@feemarket.command("block-gas")
@query_options
def block_gas(**_):
    """The gas used by the block at --height."""
    _ask(_FEEMARKET, "Query", "BlockGas")


@feemarket.command("params")
@query_options
def feemarket_params(**_):
    """The feemarket module's parameters."""
    _ask(_FEEMARKET, "Query", "Params")


# -- staking -----------------------------------------------------------------------------------

_STAKING = "cosmos.staking.v1beta1.query_pb2"


@query.group()
def staking():
    """Validators, delegations, the staking pool and parameters."""


def _valoper(text):
    return bech32_address(click.get_current_context(), text, "val")


@staking.command("validators")
@click.option("--status", default="", help="BOND_STATUS_BONDED, BOND_STATUS_UNBONDING or BOND_STATUS_UNBONDED")
@pagination_options
@query_options
def validators(status, **params):
    """All validators."""
    _ask(_STAKING, "Query", "Validators", status=status, pagination=page_request(params))


@staking.command("validator")
@click.argument("validator")
@query_options
def validator(validator, **_):
    """One validator by operator address (valoper bech32 or 0x)."""
    _ask(_STAKING, "Query", "Validator", validator_addr=_valoper(validator))


@staking.command("delegation")
@click.argument("delegator")
@click.argument("validator")
@query_options
def delegation(delegator, validator, **_):
    """A delegator's delegation to a validator."""
    ctx = click.get_current_context()
    _ask(_STAKING, "Query", "Delegation", delegator_addr=bech32_address(ctx, delegator),
         validator_addr=_valoper(validator))


@staking.command("delegations")
@click.argument("delegator")
@pagination_options
@query_options
def delegations(delegator, **params):
    """All delegations of a delegator."""
    _ask(_STAKING, "Query", "DelegatorDelegations",
         delegator_addr=bech32_address(click.get_current_context(), delegator), pagination=page_request(params))


@staking.command("delegations-to")
@click.argument("validator")
@pagination_options
@query_options
def delegations_to(validator, **params):
    """All delegations to a validator."""
    _ask(_STAKING, "Query", "ValidatorDelegations", validator_addr=_valoper(validator),
         pagination=page_request(params))


@staking.command("unbonding-delegations")
@click.argument("delegator")
@pagination_options
@query_options
def unbonding_delegations(delegator, **params):
    """All unbonding delegations of a delegator."""
    _ask(_STAKING, "Query", "DelegatorUnbondingDelegations",
         delegator_addr=bech32_address(click.get_current_context(), delegator), pagination=page_request(params))


@staking.command("unbonding-delegation")
@click.argument("delegator")
@click.argument("validator")
@query_options
def unbonding_delegation(delegator, validator, **_):
    """A delegator's unbonding delegation from a validator."""
    _ask(_STAKING, "Query", "UnbondingDelegation",
         delegator_addr=bech32_address(click.get_current_context(), delegator), validator_addr=_valoper(validator))


@staking.command("unbonding-delegations-from")
@click.argument("validator")
@pagination_options
@query_options
def unbonding_delegations_from(validator, **params):
    """All unbonding delegations from a validator."""
    _ask(_STAKING, "Query", "ValidatorUnbondingDelegations", validator_addr=_valoper(validator),
         pagination=page_request(params))


@staking.command("redelegation")
@click.argument("delegator")
@click.argument("src_validator")
@click.argument("dst_validator")
@query_options
def redelegation(delegator, src_validator, dst_validator, **_):
    """A delegator's redelegation from one validator to another."""
    _ask(_STAKING, "Query", "Redelegations", delegator_addr=bech32_address(click.get_current_context(), delegator),
         src_validator_addr=_valoper(src_validator), dst_validator_addr=_valoper(dst_validator))


@staking.command("redelegations")
@click.argument("delegator")
@pagination_options
@query_options
def redelegations(delegator, **params):
    """All redelegations of a delegator."""
    _ask(_STAKING, "Query", "Redelegations", delegator_addr=bech32_address(click.get_current_context(), delegator),
         pagination=page_request(params))


@staking.command("redelegations-from")
@click.argument("validator")
@pagination_options
@query_options
def redelegations_from(validator, **params):
    """All redelegations away from a validator."""
    _ask(_STAKING, "Query", "Redelegations", src_validator_addr=_valoper(validator), pagination=page_request(params))


@staking.command("delegator-validators")
@click.argument("delegator")
@pagination_options
@query_options
def delegator_validators(delegator, **params):
    """The validators a delegator delegates to."""
    _ask(_STAKING, "Query", "DelegatorValidators",
         delegator_addr=bech32_address(click.get_current_context(), delegator), pagination=page_request(params))


@staking.command("historical-info")
@click.argument("info_height", metavar="HEIGHT", type=click.IntRange(min=1))
@query_options
def historical_info(info_height, **_):
    """The header and validator set the staking module kept for HEIGHT."""
    _ask(_STAKING, "Query", "HistoricalInfo", height=info_height)


@staking.command("pool")
@query_options
def pool(**_):
    """Bonded and not bonded token totals."""
    _ask(_STAKING, "Query", "Pool")


@staking.command("params")
@query_options
def staking_params(**_):
    """The staking module's parameters."""
    _ask(_STAKING, "Query", "Params")


# -- validator set -----------------------------------------------------------------------------

@query.command("tendermint-validator-set")
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
    cmt = _pb("cosmos.base.tendermint.v1beta1.query_pb2")
    ed25519 = _pb("cosmos.crypto.ed25519.keys_pb2")
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


query.add_command(validator_set, "comet-validator-set")
query.add_command(validator_set, "cometbft-validator-set")


def _pb_any():
    from google.protobuf import any_pb2

    return any_pb2


# -- txs and blocks ----------------------------------------------------------------------------

def tx_response(rpc, result, times=None):
    """A CometBFT ResultTx as the SDK's TxResponse (x/auth/tx QueryTx: the block's time as timestamp)."""
    abci = _pb("cosmos.base.abci.v1beta1.abci_pb2")
    tx_pb2 = _pb("cosmos.tx.v1beta1.tx_pb2")
    types = _pb("tendermint.abci.types_pb2")
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
    except Exception as e:
        raise click.ClickException(f"the node returned a tx that does not decode: {e}") from None
    return abci.TxResponse(
        height=height, txhash=result["hash"], codespace=r.get("codespace", ""), code=r.get("code", 0),
        data=base64.b64decode(r.get("data") or "").hex().upper(), raw_log=r.get("log", ""), info=r.get("info", ""),
        gas_wanted=int(r.get("gas_wanted", 0)), gas_used=int(r.get("gas_used", 0)),
        tx=any_pb2.Any(type_url="/cosmos.tx.v1beta1.Tx", value=tx.SerializeToString()),
        timestamp=_rfc3339_seconds(times[height]),
        events=[types.Event(type=e["type"], attributes=[
            types.EventAttribute(key=a["key"], value=a["value"], index=a.get("index", False))
            for a in e.get("attributes") or ()]) for e in r.get("events") or ()])


def _rfc3339_seconds(text):
    """Go's time.RFC3339 of a CometBFT time: whole seconds (the SDK formats the block time so)."""
    if "." in text:
        head, rest = text.split(".", 1)
        zone = rest.lstrip("0123456789")
        return head + (zone or "Z")
    return text


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


@click.command()
@click.option("--query", "query_text", required=True, help="CometBFT event query, e.g. \"message.sender='chain1...'\"")
@click.option("--page", type=click.IntRange(min=1), default=1, help="Page of results")
@click.option("--limit", type=click.IntRange(min=1), default=100, help="Results per page")
@click.option("--order_by", "order_by", type=click.Choice(["asc", "desc"]), default="asc", help="Order of heights")
@query_options
def txs(query_text, page, limit, order_by, **_):
    """Committed txs matching an event query (SearchTxsResult)."""
    ctx = click.get_current_context()
    rpc = rpc_client(ctx)
    found = rpc.call("tx_search", query=query_text, page=str(page), per_page=str(limit), order_by=order_by)
    total = int(found["total_count"])
    times = {}
    abci = _pb("cosmos.base.abci.v1beta1.abci_pb2")
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
    response = rpc.query(_pb("cosmos.base.tendermint.v1beta1.query_pb2"), "Service", "GetBlockByHeight",
                         height=height)
    emit_proto(ctx, response.sdk_block)


for _command in (tx, txs, block):
    query.add_command(_command)
