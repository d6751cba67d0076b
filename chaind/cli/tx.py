"""`chaind tx`: build, sign (SIGN_MODE_DIRECT, eth_secp256k1) and broadcast native txs, as the SDK's CLI does.

Account number and sequence come from the node (auth Account) unless --offline; the chain id from
--chain-id, client.toml or the node's status. `--gas auto` asks the node to simulate the tx through
abci_query (cosmos.tx.v1beta1.Service/Simulate, where the SDK's client asks too); a node that does
not serve it gets a clear error, never a guessed figure.
"""

import base64
import decimal
import hashlib
import json
import re
import sys

import click

from chaind.cli.common import (
    address_bytes,
    bech32_address,
    emit_proto,
    home_option,
    output_option,
    prefix,
    rpc_client,
    setting,
    to_bech32,
)
from chaind.cli.keys import KeyringErrors, find_record, keyring_options, open_keyring

DEFAULT_GAS = 200000                 # the SDK's default gas limit
ETH_PUBKEY = "/ethermint.crypto.v1.ethsecp256k1.PubKey"
_COIN = re.compile(r"([0-9]+)([a-zA-Z][a-zA-Z0-9/:._-]{2,127})\Z")
_DEC_COIN = re.compile(r"([0-9]+(?:\.[0-9]+)?)([a-zA-Z][a-zA-Z0-9/:._-]{2,127})\Z")


def _pb(name):
    import importlib

    return importlib.import_module("chaind.pb." + name)


def parse_coins(text, decimal_amounts=False, what="coins"):
    """[(denom, amount)] of "10achain,5stake" (amounts may be decimals for gas prices)."""
    pattern = _DEC_COIN if decimal_amounts else _COIN
    coins = []
    for part in (p.strip() for p in text.split(",")):
        match = pattern.match(part)
        if match is None:
            raise click.ClickException(f"invalid {what} {text!r}: want e.g. 10achain,5stake")
        amount = decimal.Decimal(match.group(1)) if decimal_amounts else int(match.group(1))
        coins.append((match.group(2), amount))
    denoms = [d for d, _ in coins]
    if len(set(denoms)) != len(denoms):
        raise click.ClickException(f"invalid {what} {text!r}: duplicate denomination")
    return sorted(coins)


def coin_protos(coins):
    coin_pb2 = _pb("cosmos.base.v1beta1.coin_pb2")
    return [coin_pb2.Coin(denom=d, amount=str(a)) for d, a in coins]


def _any(url, message):
    from google.protobuf import any_pb2

    return any_pb2.Any(type_url=url, value=message.SerializeToString())


def tx_options(f):
    for option in reversed([
        click.option("--chain-id", default=None, help="Chain id (default: client.toml's, else the node's)"),
        click.option("--fees", default=None, help="Fees to pay, e.g. 4000000000000000achain"),
        click.option("--gas-prices", default=None, help="Gas prices (fees = gas x price), e.g. 20000000000achain"),
        click.option("--gas", default=str(DEFAULT_GAS), help="Gas limit, or 'auto' to simulate the tx first"),
        click.option("--gas-adjustment", type=float, default=1.0, help="Factor on the simulated gas (--gas auto)"),
        click.option("--note", "--memo", "note", default="", help="Memo of the tx"),
        click.option("--sequence", type=click.IntRange(min=0), default=None, help="Signer's sequence (offline)"),
        click.option("--account-number", type=click.IntRange(min=0), default=None,
                     help="Signer's account number (offline)"),
        click.option("--offline", is_flag=True, help="Do not ask the node (needs --chain-id, --account-number, "
                                                     "--sequence)"),
        click.option("--generate-only", is_flag=True, help="Print the unsigned tx and exit"),
        click.option("-y", "--yes", is_flag=True, help="Sign and broadcast without asking"),
        click.option("--broadcast-mode", type=click.Choice(["sync", "async"]), default=None,
                     help="sync: wait for the check (default); async: do not"),
        click.option("--node", default=None, envvar="CHAIND_NODE", help="<host>:<port> of the node's CometBFT RPC"),
    ]):
        f = option(f)
    return output_option(keyring_options(f))


# -- the steps of a tx ---------------------------------------------------------------------------

class Signer:
    """Who signs: a keyring record, its account number and sequence, the chain id."""

    def __init__(self, ctx, from_, need_key=True):
        self.ctx = ctx
        self.ring = open_keyring(ctx)
        params = ctx.params
        if need_key or from_ in self.ring.names():
            self.record = find_record(self.ring, ctx, from_)
            self.address = self.record.address
        else:
            self.record = None
            self.address = address_bytes(from_)
        self.bech32 = to_bech32(prefix(ctx), self.address)
        self.offline = params.get("offline", False)
        self._rpc = None
        self.chain_id = setting(ctx, "chain-id", params.get("chain_id"))
        if not self.chain_id:
            if self.offline:
                raise click.ClickException("--offline needs --chain-id")
            self.chain_id = self.rpc.call("status")["node_info"]["network"]

    @property
    def rpc(self):
        if self._rpc is None:
            self._rpc = rpc_client(self.ctx)
        return self._rpc

    def account(self, address=None):
        """(account number, sequence) of the signer (or of `address`): the flags', else the node's."""
        number, sequence = self.ctx.params.get("account_number"), self.ctx.params.get("sequence")
        if number is not None and sequence is not None:
            return number, sequence
        if self.offline:
            raise click.ClickException("--offline needs --account-number and --sequence")
        auth = _pb("cosmos.auth.v1beta1.query_pb2")
        response = self.rpc.query(auth, "Query", "Account", address=address or self.bech32)
        from chaind.cli.protojson import message_class

        cls = message_class(response.account.type_url)
        account = cls.FromString(response.account.value)
        base = account.base_account if hasattr(account, "base_account") else account
        return (base.account_number if number is None else number,
                base.sequence if sequence is None else sequence)

    def key(self):
        from chaind.crypto.keys import AccountKey

        return AccountKey(self.ring.private_key(self.record.name))


def unsigned_tx(messages, params, gas_limit, fee):
    tx_pb2 = _pb("cosmos.tx.v1beta1.tx_pb2")
    body = tx_pb2.TxBody(messages=[_any(url, m) for url, m in messages], memo=params.get("note") or "")
    auth = tx_pb2.AuthInfo(fee=tx_pb2.Fee(amount=coin_protos(fee), gas_limit=gas_limit))
    return tx_pb2.Tx(body=body, auth_info=auth)


def sign(tx, signer, account_number, sequence):
    """Sign `tx` (SIGN_MODE_DIRECT) in place: its one signer info, then its one signature."""
    from eth_utils import keccak

    tx_pb2 = _pb("cosmos.tx.v1beta1.tx_pb2")
    signing = _pb("cosmos.tx.signing.v1beta1.signing_pb2")
    keys_pb2 = _pb("ethermint.crypto.v1.ethsecp256k1.keys_pb2")
    key = signer.key()
    del tx.auth_info.signer_infos[:]
    tx.auth_info.signer_infos.add(
        public_key=_any(ETH_PUBKEY, keys_pb2.PubKey(key=key.compressed_public_key)), sequence=sequence,
        mode_info=tx_pb2.ModeInfo(single=tx_pb2.ModeInfo.Single(mode=signing.SIGN_MODE_DIRECT)))
    body_bytes, auth_bytes = tx.body.SerializeToString(), tx.auth_info.SerializeToString()
    doc = tx_pb2.SignDoc(body_bytes=body_bytes, auth_info_bytes=auth_bytes, chain_id=signer.chain_id,
                         account_number=account_number)
    del tx.signatures[:]
    tx.signatures.append(key.sign_digest(keccak(doc.SerializeToString())))
    return tx


def raw_bytes(tx):
    tx_pb2 = _pb("cosmos.tx.v1beta1.tx_pb2")
    return tx_pb2.TxRaw(body_bytes=tx.body.SerializeToString(), auth_info_bytes=tx.auth_info.SerializeToString(),
                        signatures=tx.signatures).SerializeToString()


def simulate(signer, tx, sequence):
    """Gas used by `tx` as the node simulates it (the SDK's BuildSimTx: the key, an empty signature)."""
    tx_pb2 = _pb("cosmos.tx.v1beta1.tx_pb2")
    signing = _pb("cosmos.tx.signing.v1beta1.signing_pb2")
    keys_pb2 = _pb("ethermint.crypto.v1.ethsecp256k1.keys_pb2")
    service = _pb("cosmos.tx.v1beta1.service_pb2")
    sim = tx_pb2.Tx()
    sim.CopyFrom(tx)
    del sim.auth_info.signer_infos[:]
    pubkey = _any(ETH_PUBKEY, keys_pb2.PubKey(key=signer.record.pubkey)) if signer.record else None
    sim.auth_info.signer_infos.add(public_key=pubkey, sequence=sequence, mode_info=tx_pb2.ModeInfo(
        single=tx_pb2.ModeInfo.Single(mode=signing.SIGN_MODE_DIRECT)))
    sim.signatures[:] = [b""]
    try:
        response = signer.rpc.query(service, "Service", "Simulate", tx_bytes=raw_bytes(sim))
    except click.ClickException as e:
        if "unknown query path" in e.message:
            raise click.ClickException("--gas auto: the node does not simulate txs (no "
                                       "cosmos.tx.v1beta1.Service/Simulate over abci_query); give --gas N") from None
        raise
    return response.gas_info.gas_used


def fees(params, gas_limit):
    """The fee coins: --fees as given, or --gas-prices x gas (rounded up), or none."""
    if params.get("fees") and params.get("gas_prices"):
        raise click.ClickException("cannot provide both fees and gas prices")
    if params.get("fees"):
        return parse_coins(params["fees"], what="fees")
    if params.get("gas_prices"):
        prices = parse_coins(params["gas_prices"], decimal_amounts=True, what="gas prices")
        return [(d, int((p * gas_limit).to_integral_value(rounding=decimal.ROUND_CEILING))) for d, p in prices]
    return []


def gas_setting(params):
    gas = params.get("gas") or str(DEFAULT_GAS)
    if gas == "auto":
        return None
    if not gas.isdigit():
        raise click.ClickException(f"invalid gas {gas!r}: want a number or 'auto'")
    return int(gas)


def broadcast(ctx, raw, rpc=None):
    """Send TxRaw bytes; print the SDK's TxResponse; a failed check also fails the command."""
    abci = _pb("cosmos.base.abci.v1beta1.abci_pb2")
    rpc = rpc or rpc_client(ctx)
    mode = setting(ctx, "broadcast-mode", ctx.params.get("broadcast_mode"))
    if mode not in ("sync", "async"):
        raise click.ClickException(f"unsupported broadcast mode {mode!r}: want sync or async")
    result = rpc.call(f"broadcast_tx_{mode}", tx=base64.b64encode(raw).decode())
    response = abci.TxResponse(txhash=result.get("hash", hashlib.sha256(raw).hexdigest().upper()),
                               code=result.get("code", 0), codespace=result.get("codespace", ""),
                               raw_log=result.get("log", ""),
                               data=base64.b64decode(result.get("data") or "").hex().upper())
    emit_proto(ctx, response)
    if response.code:
        raise click.ClickException(f"tx {response.txhash} failed the node's check: code {response.code} "
                                   f"({response.codespace}): {response.raw_log}")


def generate_or_broadcast(ctx, from_, messages, precheck=False):
    """The SDK's GenerateOrBroadcastTxCLI: print the unsigned tx, or sign (after asking) and broadcast it.

    With `precheck`, the node simulates the tx first, so a message the block would refuse (an authority's,
    checked only when executed) fails here with the node's reason instead of in a committed tx.
    """
    params = ctx.params
    generate_only = params.get("generate_only")
    signer = Signer(ctx, from_, need_key=not generate_only)
    gas_limit = gas_setting(params)
    if generate_only:
        if gas_limit is None:
            raise click.ClickException("--gas auto cannot be used with --generate-only")
        emit_json(ctx, unsigned_tx(messages, params, gas_limit, fees(params, gas_limit)))
        return
    if signer.record is not None and signer.record.type == "multi":
        raise click.ClickException(f"{signer.record.name} is a multisig key: build the tx with --generate-only, "
                                   "have its members sign it (tx sign --multisig) and join them (tx multisign)")
    number, sequence = signer.account()
    if precheck and gas_limit is not None and not signer.offline:
        simulate(signer, unsigned_tx(messages, params, 0, fees(params, 0)), sequence)
    if gas_limit is None:
        estimate = simulate(signer, unsigned_tx(messages, params, 0, fees(params, 0)), sequence)
        gas_limit = int(estimate * params.get("gas_adjustment", 1.0))
        click.echo(f"estimated gas: {gas_limit}", err=True)
    tx = unsigned_tx(messages, params, gas_limit, fees(params, gas_limit))
    if not params.get("yes"):
        from chaind.cli import protojson

        click.echo(json.dumps(protojson.to_dict(tx), separators=(",", ":")), err=True)
        if not click.confirm("confirm transaction before signing and broadcasting", err=True):
            click.echo("canceled transaction", err=True)
            return
    broadcast(ctx, raw_bytes(sign(tx, signer, number, sequence)), signer.rpc)


def emit_json(ctx, message):
    """Txs print as JSON whatever --output says, as the SDK prints them."""
    from chaind.cli import protojson

    click.echo(json.dumps(protojson.to_dict(message), separators=(",", ":")))


def read_tx(path):
    """A Tx from a JSON file (or - for stdin), as --generate-only and sign print it."""
    try:
        text = sys.stdin.read() if path == "-" else open(path).read()
    except OSError as e:
        raise click.ClickException(f"cannot read {path}: {e.strerror}") from None
    return parse_tx(text, path)


def parse_tx(text, where):
    import importlib

    from google.protobuf import json_format

    from chaind.cli.protojson import ANY_MODULES, from_dict

    for module in ANY_MODULES:
        importlib.import_module("chaind.pb." + module)
    tx_pb2 = _pb("cosmos.tx.v1beta1.tx_pb2")
    try:
        return from_dict(json.loads(text), tx_pb2.Tx())
    except (ValueError, json_format.ParseError) as e:
        raise click.ClickException(f"{where} is not a JSON tx: {e}") from None


# -- commands ------------------------------------------------------------------------------------

@click.group(cls=KeyringErrors)
def tx():
    """Build, sign and broadcast transactions."""


@tx.group()
def bank():
    """Send coins."""


@bank.command()
@click.argument("from_")
@click.argument("to_address")
@click.argument("amount")
@tx_options
def send(from_, to_address, amount, **_):
    """Send AMOUNT (e.g. 10achain,5stake) from a key (name or address) to an address (bech32 or 0x)."""
    ctx = click.get_current_context()
    bank_tx = _pb("cosmos.bank.v1beta1.tx_pb2")
    to = bech32_address(ctx, to_address)
    coins = parse_coins(amount, what="amount")
    if any(a == 0 for _, a in coins):
        raise click.ClickException(f"invalid amount {amount!r}: must be positive")
    sender = to_bech32(prefix(ctx), _sender_address(ctx, from_))
    msg = bank_tx.MsgSend(from_address=sender, to_address=to, amount=coin_protos(coins))
    generate_or_broadcast(ctx, from_, [("/cosmos.bank.v1beta1.MsgSend", msg)])


def _sender_address(ctx, from_):
    """The address of --from: a key's name, or an address (which --generate-only needs no key for)."""
    from chaind.cli.common import AddressError

    ring = open_keyring(ctx)
    if from_ in ring.names():
        return ring.get(from_).address
    try:
        return address_bytes(from_)
    except AddressError:
        raise click.ClickException(f"{from_}.info: key not found") from None


@bank.command("multi-send")
@click.argument("from_")
@click.argument("to_addresses_and_amount", nargs=-1, required=True)
@click.option("--split", is_flag=True, help="Split AMOUNT evenly between the recipients")
@tx_options
def multi_send(from_, to_addresses_and_amount, split, **_):
    """Send AMOUNT from one key to each of several addresses: FROM TO_1 TO_2 ... AMOUNT."""
    ctx = click.get_current_context()
    if len(to_addresses_and_amount) < 3:
        raise click.UsageError("want FROM, at least two recipients and AMOUNT")
    *recipients, amount = to_addresses_and_amount
    coins = parse_coins(amount, what="amount")
    if split:
        coins = [(d, a // len(recipients)) for d, a in coins]
    if any(a == 0 for _, a in coins):
        raise click.ClickException(f"invalid amount {amount!r}: must be positive")
    bank_tx = _pb("cosmos.bank.v1beta1.tx_pb2")
    bank_pb2 = _pb("cosmos.bank.v1beta1.bank_pb2")
    total = [(d, a * len(recipients)) for d, a in coins]
    msg = bank_tx.MsgMultiSend(
        inputs=[bank_pb2.Input(address=to_bech32(prefix(ctx), _sender_address(ctx, from_)),
                               coins=coin_protos(total))],
        outputs=[bank_pb2.Output(address=bech32_address(ctx, r), coins=coin_protos(coins)) for r in recipients])
    generate_or_broadcast(ctx, from_, [("/cosmos.bank.v1beta1.MsgMultiSend", msg)])


@tx.group()
def staking():
    """Delegate, undelegate and redelegate stake."""


def _coin(ctx, amount):
    coins = parse_coins(amount, what="amount")
    if len(coins) != 1 or coins[0][1] == 0:
        raise click.ClickException(f"invalid amount {amount!r}: want one positive coin")
    return coin_protos(coins)[0]


@staking.command()
@click.argument("validator")
@click.argument("amount")
@click.option("--from", "from_", required=True, help="Delegator key (name or address)")
@tx_options
def delegate(validator, amount, from_, **_):
    """Delegate AMOUNT to a validator (valoper bech32 or 0x)."""
    ctx = click.get_current_context()
    staking_tx = _pb("cosmos.staking.v1beta1.tx_pb2")
    msg = staking_tx.MsgDelegate(delegator_address=to_bech32(prefix(ctx), _sender_address(ctx, from_)),
                                 validator_address=bech32_address(ctx, validator, "val"), amount=_coin(ctx, amount))
    generate_or_broadcast(ctx, from_, [("/cosmos.staking.v1beta1.MsgDelegate", msg)])


@staking.command()
@click.argument("validator")
@click.argument("amount")
@click.option("--from", "from_", required=True, help="Delegator key (name or address)")
@tx_options
def unbond(validator, amount, from_, **_):
    """Undelegate AMOUNT from a validator."""
    ctx = click.get_current_context()
    staking_tx = _pb("cosmos.staking.v1beta1.tx_pb2")
    msg = staking_tx.MsgUndelegate(delegator_address=to_bech32(prefix(ctx), _sender_address(ctx, from_)),
                                   validator_address=bech32_address(ctx, validator, "val"),
                                   amount=_coin(ctx, amount))
    generate_or_broadcast(ctx, from_, [("/cosmos.staking.v1beta1.MsgUndelegate", msg)])


@staking.command()
@click.argument("src_validator")
@click.argument("dst_validator")
@click.argument("amount")
@click.option("--from", "from_", required=True, help="Delegator key (name or address)")
@tx_options
def redelegate(src_validator, dst_validator, amount, from_, **_):
    """Move AMOUNT of delegation from one validator to another."""
    ctx = click.get_current_context()
    staking_tx = _pb("cosmos.staking.v1beta1.tx_pb2")
    msg = staking_tx.MsgBeginRedelegate(
        delegator_address=to_bech32(prefix(ctx), _sender_address(ctx, from_)),
        validator_src_address=bech32_address(ctx, src_validator, "val"),
        validator_dst_address=bech32_address(ctx, dst_validator, "val"), amount=_coin(ctx, amount))
    generate_or_broadcast(ctx, from_, [("/cosmos.staking.v1beta1.MsgBeginRedelegate", msg)])


def _dec(text, what):
    from chaind.chain import legacy_dec

    try:
        return legacy_dec.wire_of_text(text)
    except ValueError as e:
        raise click.ClickException(f"invalid {what}: {e}") from None


def _consensus_pubkey(value):
    """An ed25519 consensus key given as the SDK prints it ({"@type":"/cosmos.crypto.ed25519.PubKey","key":...})."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise click.ClickException(f"invalid --pubkey {value!r}: want the JSON of an ed25519 key, e.g. "
                                       '{"@type":"/cosmos.crypto.ed25519.PubKey","key":"<base64>"}') from None
    if not isinstance(value, dict) or value.get("@type") != "/cosmos.crypto.ed25519.PubKey":
        raise click.ClickException(f"invalid validator pubkey {value!r}: want an /cosmos.crypto.ed25519.PubKey")
    try:
        key = base64.b64decode(value.get("key") or "", validate=True)
    except ValueError:
        key = b""
    if len(key) != 32:
        raise click.ClickException("invalid validator pubkey: want a 32-byte ed25519 key in base64")
    ed25519 = _pb("cosmos.crypto.ed25519.keys_pb2")
    return _any("/cosmos.crypto.ed25519.PubKey", ed25519.PubKey(key=key))


# The SDK's defaults for the commission flags (x/staking/client/cli), used when a flag is not given.
_VALIDATOR_DEFAULTS = {"commission-rate": "0.1", "commission-max-rate": "0.2", "commission-max-change-rate": "0.01",
                       "min-self-delegation": "1"}
_VALIDATOR_FIELDS = ("pubkey", "amount", "moniker", "identity", "website", "security", "details", "commission-rate",
                     "commission-max-rate", "commission-max-change-rate", "min-self-delegation")


@staking.command("create-validator")
@click.argument("validator_file", required=False, type=click.Path(dir_okay=False))
@click.option("--from", "from_", required=True, help="Operator key (name or address): the self-delegator")
@click.option("--pubkey", default=None, help='Consensus key: {"@type":"/cosmos.crypto.ed25519.PubKey","key":"..."}')
@click.option("--amount", default=None, help="Self-delegation, e.g. 1000000000000000000achain")
@click.option("--moniker", default=None, help="The validator's name")
@click.option("--identity", default="", help="Identity signature (e.g. Keybase)")
@click.option("--website", default="", help="Website")
@click.option("--security-contact", default="", help="Security contact email")
@click.option("--details", default="", help="Details")
@click.option("--commission-rate", default=None, help="Initial commission rate (default 0.1)")
@click.option("--commission-max-rate", default=None, help="Maximum commission rate (default 0.2)")
@click.option("--commission-max-change-rate", default=None, help="Maximum daily change of the rate (default 0.01)")
@click.option("--min-self-delegation", default=None, help="Minimum self-delegation (default 1)")
@tx_options
def create_validator(validator_file, from_, **params):
    """Create a validator self-delegating --amount: from flags, or from VALIDATOR_FILE (JSON, as v0.50 takes:
    pubkey, amount, moniker, identity, website, security, details, commission-rate, commission-max-rate,
    commission-max-change-rate, min-self-delegation)."""
    ctx = click.get_current_context()
    if validator_file:
        given = [f for f in ("pubkey", "amount", "moniker") if params.get(f)]
        if given:
            raise click.UsageError(f"give either VALIDATOR_FILE or --{', --'.join(given)}")
        try:
            with open(validator_file) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            raise click.ClickException(f"cannot read {validator_file}: {e}") from None
        if not isinstance(doc, dict):
            raise click.ClickException(f"{validator_file}: want a JSON object")
        unknown = set(doc) - set(_VALIDATOR_FIELDS)
        if unknown:
            raise click.ClickException(f"{validator_file}: unknown field(s) {', '.join(sorted(unknown))}")
    else:
        doc = {"pubkey": params["pubkey"], "amount": params["amount"], "moniker": params["moniker"],
               "identity": params["identity"], "website": params["website"],
               "security": params["security_contact"], "details": params["details"]}
        for name in _VALIDATOR_DEFAULTS:
            doc[name] = params[name.replace("-", "_")]
    for name in ("pubkey", "amount", "moniker"):
        if not doc.get(name):
            raise click.ClickException(f"must specify the validator's {name}"
                                       + ("" if validator_file else f" (--{name})"))
    values = {**_VALIDATOR_DEFAULTS, **{k: v for k, v in doc.items() if v not in (None, "")}}
    min_self = str(values["min-self-delegation"])
    if not min_self.isdigit() or int(min_self) == 0:
        raise click.ClickException(f"invalid min-self-delegation {min_self!r}: want a positive integer")
    staking_tx = _pb("cosmos.staking.v1beta1.tx_pb2")
    staking_pb2 = _pb("cosmos.staking.v1beta1.staking_pb2")
    operator = _sender_address(ctx, from_)
    msg = staking_tx.MsgCreateValidator(
        description=staking_pb2.Description(moniker=str(doc["moniker"]), identity=str(doc.get("identity") or ""),
                                            website=str(doc.get("website") or ""),
                                            security_contact=str(doc.get("security") or ""),
                                            details=str(doc.get("details") or "")),
        commission=staking_pb2.CommissionRates(
            rate=_dec(str(values["commission-rate"]), "commission rate"),
            max_rate=_dec(str(values["commission-max-rate"]), "commission max rate"),
            max_change_rate=_dec(str(values["commission-max-change-rate"]), "commission max change rate")),
        min_self_delegation=min_self, validator_address=to_bech32(prefix(ctx, "val"), operator),
        pubkey=_consensus_pubkey(doc["pubkey"]), value=_coin(ctx, str(doc["amount"])))
    generate_or_broadcast(ctx, from_, [("/cosmos.staking.v1beta1.MsgCreateValidator", msg)])


DO_NOT_MODIFY = "[do-not-modify]"        # the SDK's marker for a description field left as it is


@staking.command("edit-validator")
@click.option("--from", "from_", required=True, help="Operator key (name or address)")
@click.option("--new-moniker", default=DO_NOT_MODIFY, help="The validator's new name")
@click.option("--identity", default=DO_NOT_MODIFY, help="Identity signature")
@click.option("--website", default=DO_NOT_MODIFY, help="Website")
@click.option("--security-contact", default=DO_NOT_MODIFY, help="Security contact email")
@click.option("--details", default=DO_NOT_MODIFY, help="Details")
@click.option("--commission-rate", default=None, help="New commission rate (at most once a day)")
@click.option("--min-self-delegation", default=None, help="New minimum self-delegation (only upward)")
@tx_options
def edit_validator(from_, new_moniker, identity, website, security_contact, details, commission_rate,
                   min_self_delegation, **_):
    """Change a validator's description, commission rate or minimum self-delegation."""
    ctx = click.get_current_context()
    staking_tx = _pb("cosmos.staking.v1beta1.tx_pb2")
    staking_pb2 = _pb("cosmos.staking.v1beta1.staking_pb2")
    if min_self_delegation is not None and (not min_self_delegation.isdigit() or int(min_self_delegation) == 0):
        raise click.ClickException(f"invalid --min-self-delegation {min_self_delegation!r}: want a positive integer")
    msg = staking_tx.MsgEditValidator(
        description=staking_pb2.Description(moniker=new_moniker, identity=identity, website=website,
                                            security_contact=security_contact, details=details),
        validator_address=to_bech32(prefix(ctx, "val"), _sender_address(ctx, from_)),
        commission_rate=_dec(commission_rate, "commission rate") if commission_rate else "",
        min_self_delegation=min_self_delegation or "")
    generate_or_broadcast(ctx, from_, [("/cosmos.staking.v1beta1.MsgEditValidator", msg)])


@tx.group()
def erc20():
    """Convert between ERC-20 tokens and native coins."""


@erc20.command("convert-erc20")
@click.argument("contract_address")
@click.argument("amount")
@click.argument("receiver", required=False)
@click.option("--from", "from_", required=True, help="Sender key (name or address)")
@tx_options
def convert_erc20(contract_address, amount, receiver, from_, **_):
    """Convert AMOUNT of an ERC-20 token into its native coin (to RECEIVER, default the sender)."""
    ctx = click.get_current_context()
    if not amount.isdigit():
        raise click.ClickException(f"invalid amount {amount!r}: want an integer")
    erc20_tx = _pb("evmos.erc20.v1.tx_pb2")
    sender = _sender_address(ctx, from_)
    msg = erc20_tx.MsgConvertERC20(contract_address="0x" + address_bytes(contract_address).hex(), amount=amount,
                                   receiver=bech32_address(ctx, receiver) if receiver else
                                   to_bech32(prefix(ctx), sender), sender="0x" + sender.hex())
    generate_or_broadcast(ctx, from_, [("/evmos.erc20.v1.MsgConvertERC20", msg)])


@erc20.command("convert-coin")
@click.argument("coin")
@click.argument("receiver", required=False)
@click.option("--from", "from_", required=True, help="Sender key (name or address)")
@tx_options
def convert_coin(coin, receiver, from_, **_):
    """Convert a native COIN (e.g. 100stake) into its ERC-20 token (to RECEIVER, 0x or bech32; default the sender)."""
    ctx = click.get_current_context()
    erc20_tx = _pb("evmos.erc20.v1.tx_pb2")
    sender = _sender_address(ctx, from_)
    to = address_bytes(receiver) if receiver else sender
    from chaind.cli.common import to_hex

    msg = erc20_tx.MsgConvertCoin(coin=_coin(ctx, coin), receiver=to_hex(to), sender=to_bech32(prefix(ctx), sender))
    generate_or_broadcast(ctx, from_, [("/evmos.erc20.v1.MsgConvertCoin", msg)])


@erc20.command("register-erc20")
@click.argument("contract_addresses", nargs=-1, required=True)
@click.option("--from", "from_", required=True, help="The erc20 module's authority (the node refuses others)")
@tx_options
def register_erc20(contract_addresses, from_, **_):
    """Register ERC-20 contracts as token pairs (authority only)."""
    ctx = click.get_current_context()
    from chaind.cli.common import to_hex

    erc20_tx = _pb("evmos.erc20.v1.tx_pb2")
    msg = erc20_tx.MsgRegisterERC20(authority=to_bech32(prefix(ctx), _sender_address(ctx, from_)),
                                    erc20addresses=[to_hex(address_bytes(a)) for a in contract_addresses])
    generate_or_broadcast(ctx, from_, [("/evmos.erc20.v1.MsgRegisterERC20", msg)], precheck=True)


@erc20.command("register-coin", context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def register_coin(args):
    """Not a message on this chain: native coins are paired in genesis (Evmos v20 has no MsgRegisterCoin)."""
    raise click.ClickException(
        "there is no coin registration message: as in Evmos v20, a native coin's token pair comes from "
        "genesis (app_state.erc20.token_pairs with contract_owner OWNER_MODULE); ERC-20 contracts are "
        "registered with `tx erc20 register-erc20`")


@erc20.command("toggle-conversion")
@click.argument("token")
@click.option("--from", "from_", required=True, help="The erc20 module's authority (the node refuses others)")
@tx_options
def toggle_conversion(token, from_, **_):
    """Enable or disable conversions of a token pair (by denom or contract address; authority only)."""
    ctx = click.get_current_context()
    erc20_tx = _pb("evmos.erc20.v1.tx_pb2")
    msg = erc20_tx.MsgToggleConversion(authority=to_bech32(prefix(ctx), _sender_address(ctx, from_)), token=token)
    generate_or_broadcast(ctx, from_, [("/evmos.erc20.v1.MsgToggleConversion", msg)], precheck=True)


@tx.group()
def evm():
    """EVM transactions."""


@evm.command()
@click.argument("tx_hex")
@click.option("--node", default=None, envvar="CHAIND_NODE", help="<host>:<port> of the node's CometBFT RPC")
@click.option("--broadcast-mode", type=click.Choice(["sync", "async"]), default=None, help="sync or async")
@home_option
@output_option
def raw(tx_hex, **_):
    """Broadcast a signed EVM tx (RLP or typed, hex) wrapped in a MsgEthereumTx."""
    ctx = click.get_current_context()
    digits = tx_hex[2:] if tx_hex.startswith(("0x", "0X")) else tx_hex
    try:
        evm_raw = bytes.fromhex(digits)
    except ValueError:
        raise click.ClickException("TX_HEX is not hex") from None
    rpc = rpc_client(ctx)
    genesis = rpc.call("genesis")["genesis"]
    match = re.match(r"^[a-z]+_([1-9][0-9]*)-[1-9][0-9]*$", genesis["chain_id"])
    if match is None:
        raise click.ClickException(f"the node's chain id {genesis['chain_id']!r} names no EIP-155 id")
    from chaind.chain import errors, txs

    try:
        wrapped = txs.wrap_evm(evm_raw, int(match.group(1)), genesis["app_state"]["evm"]["params"]["evm_denom"])
    except errors.TxError as e:
        raise click.ClickException(e.log) from None
    broadcast(ctx, wrapped.raw, rpc)


def signing_options(f):
    for option in reversed([
        click.option("--chain-id", default=None, help="Chain id (default: client.toml's, else the node's)"),
        click.option("--sequence", type=click.IntRange(min=0), default=None, help="Signer's sequence (offline)"),
        click.option("--account-number", type=click.IntRange(min=0), default=None, help="Signer's account number"),
        click.option("--offline", is_flag=True, help="Do not ask the node"),
        click.option("--node", default=None, envvar="CHAIND_NODE", help="<host>:<port> of the node's CometBFT RPC"),
    ]):
        f = option(f)
    return keyring_options(f)


MULTISIG_PUBKEY = "/cosmos.crypto.multisig.LegacyAminoPubKey"


def multisig_signer_info(record, indexes, sequence):
    """The SignerInfo of a multisig key whose members `indexes` sign, each in SIGN_MODE_DIRECT."""
    from chaind.crypto import multisig

    tx_pb2 = _pb("cosmos.tx.v1beta1.tx_pb2")
    signing = _pb("cosmos.tx.signing.v1beta1.signing_pb2")
    keys_pb2 = _pb("cosmos.crypto.multisig.keys_pb2")
    bits = _pb("cosmos.crypto.multisig.v1beta1.multisig_pb2")
    from chaind.cli.keys import PUBKEY_URLS

    secp = _pb("cosmos.crypto.secp256k1.keys_pb2")
    pubkey = keys_pb2.LegacyAminoPubKey(threshold=record.threshold, public_keys=[
        _any(PUBKEY_URLS[t], secp.PubKey(key=k)) for t, k in record.members])
    extra, elems = multisig.bit_array(len(record.members), indexes)
    direct = tx_pb2.ModeInfo(single=tx_pb2.ModeInfo.Single(mode=signing.SIGN_MODE_DIRECT))
    return tx_pb2.SignerInfo(
        public_key=_any(MULTISIG_PUBKEY, pubkey), sequence=sequence,
        mode_info=tx_pb2.ModeInfo(multi=tx_pb2.ModeInfo.Multi(
            bitarray=bits.CompactBitArray(extra_bits_stored=extra, elems=elems), mode_infos=[direct] * len(indexes))))


def sign_doc(tx, chain_id, account_number):
    tx_pb2 = _pb("cosmos.tx.v1beta1.tx_pb2")
    return tx_pb2.SignDoc(body_bytes=tx.body.SerializeToString(), auth_info_bytes=tx.auth_info.SerializeToString(),
                          chain_id=chain_id, account_number=account_number).SerializeToString()


def _multisig_record(ring, ctx, name):
    record = find_record(ring, ctx, name)
    if record.type != "multi":
        raise click.ClickException(f"{name} is not a multisig key")
    return record


def _member_index(record, pubkey, what):
    for i, (_, key) in enumerate(record.members):
        if key == pubkey:
            return i
    raise click.ClickException(f"{what} is not a member of the multisig {record.name}")


@tx.command("sign")
@click.argument("file")
@click.option("--from", "from_", required=True, help="Signing key (name or address)")
@click.option("--multisig", default=None,
              help="Sign as a member of this multisig key (name or address in the keyring): prints the signature")
@click.option("--multisig-signers", default=None,
              help="With --multisig: the comma-separated members who will sign (SIGN_MODE_DIRECT signs this "
                   "choice, so every member names the same ones)")
@click.option("--output-document", default=None, type=click.Path(dir_okay=False), help="Write to this file")
@signing_options
def sign_command(file, from_, multisig, multisig_signers, output_document, **_):
    """Sign an unsigned tx JSON file (from --generate-only; - for stdin) and print the signed tx.

    With --multisig, print this member's signature (for tx multisign) instead.
    """
    ctx = click.get_current_context()
    tx = read_tx(file)
    signer = Signer(ctx, from_)
    if multisig is None:
        if multisig_signers:
            raise click.UsageError("--multisig-signers needs --multisig")
        number, sequence = signer.account()
        return _emit_to(ctx, sign(tx, signer, number, sequence), output_document)
    record = _multisig_record(signer.ring, ctx, multisig)
    if not multisig_signers:
        raise click.UsageError("--multisig needs --multisig-signers: the members who will sign")
    indexes = sorted({_member_index(record, find_record(signer.ring, ctx, n.strip()).pubkey, n.strip())
                      for n in multisig_signers.split(",") if n.strip()})
    own = _member_index(record, signer.record.pubkey, from_)
    if own not in indexes:
        raise click.ClickException(f"--multisig-signers must name the signing key {from_}")
    if len(indexes) < record.threshold:
        raise click.ClickException(f"{len(indexes)} signers named; the multisig needs {record.threshold}")
    number, sequence = signer.account(to_bech32(prefix(ctx), record.address))
    del tx.auth_info.signer_infos[:]
    tx.auth_info.signer_infos.append(multisig_signer_info(record, indexes, sequence))
    from chaind.crypto.keys import ETH_SECP256K1

    signature = signer.key().sign(ETH_SECP256K1, sign_doc(tx, signer.chain_id, number))
    signing = _pb("cosmos.tx.signing.v1beta1.signing_pb2")
    keys_pb2 = _pb("ethermint.crypto.v1.ethsecp256k1.keys_pb2")
    descriptors = signing.SignatureDescriptors(signatures=[signing.SignatureDescriptor(
        public_key=_any(ETH_PUBKEY, keys_pb2.PubKey(key=signer.record.pubkey)), sequence=sequence,
        data=signing.SignatureDescriptor.Data(single=signing.SignatureDescriptor.Data.Single(
            mode=signing.SIGN_MODE_DIRECT, signature=signature)))])
    _emit_to(ctx, descriptors, output_document)


def _emit_to(ctx, message, path):
    if path is None:
        return emit_json(ctx, message)
    from chaind.cli import protojson

    try:
        with open(path, "w") as f:
            f.write(json.dumps(protojson.to_dict(message), separators=(",", ":")) + "\n")
    except OSError as e:
        raise click.ClickException(f"cannot write {path}: {e.strerror}") from None


@tx.command("sign-batch")
@click.argument("files", nargs=-1, required=True)
@click.option("--from", "from_", required=True, help="Signing key (name or address)")
@signing_options
def sign_batch(files, from_, sequence, **_):
    """Sign every tx of FILES (one JSON tx a line, as --generate-only prints them), with consecutive
    sequences from the account's (or --sequence); prints one signed tx a line."""
    ctx = click.get_current_context()
    unsigned = []
    for path in files:
        try:
            text = sys.stdin.read() if path == "-" else open(path).read()
        except OSError as e:
            raise click.ClickException(f"cannot read {path}: {e.strerror}") from None
        unsigned += [parse_tx(line, f"{path} line {n}") for n, line in enumerate(text.splitlines(), 1)
                     if line.strip()]
    if not unsigned:
        raise click.ClickException("no txs to sign")
    signer = Signer(ctx, from_)
    number, first = signer.account()
    for offset, tx in enumerate(unsigned):
        emit_json(ctx, sign(tx, signer, number, first + offset))


@tx.command("multisign")
@click.argument("file")
@click.argument("name")
@click.argument("signature_files", nargs=-1, required=True)
@click.option("--output-document", default=None, type=click.Path(dir_okay=False), help="Write to this file")
@signing_options
def multisign(file, name, signature_files, output_document, **_):
    """Join members' signatures (from tx sign --multisig) into the multisig NAME's signed tx."""
    ctx = click.get_current_context()
    from chaind.cli.protojson import from_dict
    from chaind.crypto.keys import verify_signed

    tx = read_tx(file)
    ring = open_keyring(ctx)
    record = _multisig_record(ring, ctx, name)
    signing = _pb("cosmos.tx.signing.v1beta1.signing_pb2")
    keys_pb2 = _pb("cosmos.crypto.secp256k1.keys_pb2")
    found, sequences = {}, set()
    for path in signature_files:
        try:
            with open(path) as f:
                descriptors = from_dict(json.load(f), signing.SignatureDescriptors())
        except (OSError, ValueError) as e:
            raise click.ClickException(f"cannot read the signature file {path}: {e}") from None
        for d in descriptors.signatures:
            if d.data.WhichOneof("sum") != "single" or d.data.single.mode != signing.SIGN_MODE_DIRECT:
                raise click.ClickException(f"{path}: want a SIGN_MODE_DIRECT signature of one member")
            index = _member_index(record, keys_pb2.PubKey.FromString(d.public_key.value).key, f"the key of {path}")
            found[index] = d.data.single.signature
            sequences.add(d.sequence)
    if len(sequences) != 1:
        raise click.ClickException(f"the signatures were made for different sequences {sorted(sequences)}")
    if len(found) < record.threshold:
        raise click.ClickException(f"{len(found)} signatures; the multisig needs {record.threshold}")
    indexes = sorted(found)
    chain_id = setting(ctx, "chain-id", ctx.params.get("chain_id"))
    if not chain_id:
        if ctx.params.get("offline"):
            raise click.ClickException("--offline needs --chain-id")
        chain_id = rpc_client(ctx).call("status")["node_info"]["network"]
    number = ctx.params.get("account_number")
    if number is None:
        if ctx.params.get("offline"):
            raise click.ClickException("--offline needs --account-number")
        number = _account_number(ctx, to_bech32(prefix(ctx), record.address))
    del tx.auth_info.signer_infos[:]
    tx.auth_info.signer_infos.append(multisig_signer_info(record, indexes, sequences.pop()))
    doc = sign_doc(tx, chain_id, number)
    for i in indexes:
        if not verify_signed(record.members[i][0], record.members[i][1], doc, found[i]):
            raise click.ClickException(
                f"the signature of member {i} ({to_bech32(prefix(ctx), _member_address(record.members[i]))}) does "
                f"not verify: each member must sign this tx with --multisig-signers naming exactly the members "
                f"whose signatures are given here")
    multi = _pb("cosmos.crypto.multisig.v1beta1.multisig_pb2")
    del tx.signatures[:]
    tx.signatures.append(multi.MultiSignature(signatures=[found[i] for i in indexes]).SerializeToString())
    _emit_to(ctx, tx, output_document)


def _member_address(member):
    from chaind.crypto.keys import address_of

    return address_of(*member)


def _account_number(ctx, address):
    auth = _pb("cosmos.auth.v1beta1.query_pb2")
    response = rpc_client(ctx).query(auth, "Query", "Account", address=address)
    from chaind.cli.protojson import message_class

    account = message_class(response.account.type_url).FromString(response.account.value)
    return (account.base_account if hasattr(account, "base_account") else account).account_number


# Where each message names its signer, for validate-signatures' list of expected signers.
_SIGNER_FIELDS = {
    "/cosmos.bank.v1beta1.MsgSend": "from_address", "/cosmos.staking.v1beta1.MsgDelegate": "delegator_address",
    "/cosmos.staking.v1beta1.MsgUndelegate": "delegator_address",
    "/cosmos.staking.v1beta1.MsgBeginRedelegate": "delegator_address",
    "/cosmos.staking.v1beta1.MsgCreateValidator": "validator_address",
    "/cosmos.staking.v1beta1.MsgEditValidator": "validator_address",
    "/evmos.erc20.v1.MsgConvertERC20": "sender", "/evmos.erc20.v1.MsgConvertCoin": "sender",
    "/evmos.erc20.v1.MsgRegisterERC20": "authority", "/evmos.erc20.v1.MsgToggleConversion": "authority",
}


def _message_signers(tx):
    from chaind.cli.protojson import message_class

    signers = []
    for any_msg in tx.body.messages:
        msg = message_class(any_msg.type_url).FromString(any_msg.value)
        if any_msg.type_url == "/cosmos.bank.v1beta1.MsgMultiSend":
            text = msg.inputs[0].address if msg.inputs else ""
        else:
            field = _SIGNER_FIELDS.get(any_msg.type_url)
            if field is None:
                raise click.ClickException(f"cannot tell the signer of a {any_msg.type_url}")
            text = getattr(msg, field)
        address = address_bytes(text)
        if address not in signers:
            signers.append(address)
    return signers


@tx.command("validate-signatures")
@click.argument("file")
@signing_options
def validate_signatures(file, **_):
    """Check a signed tx JSON file's signatures against its signers (account numbers from the node unless
    --offline with --account-number); exits non-zero when one fails."""
    ctx = click.get_current_context()
    from chaind.crypto import keys as crypto_keys
    from chaind.crypto import multisig

    tx = read_tx(file)
    acc = prefix(ctx)
    expected = _message_signers(tx)
    click.echo("Signers:")
    for i, address in enumerate(expected):
        click.echo(f"  {i}: {to_bech32(acc, address)}")
    chain_id = setting(ctx, "chain-id", ctx.params.get("chain_id"))
    if not chain_id and not ctx.params.get("offline"):
        chain_id = rpc_client(ctx).call("status")["node_info"]["network"]
    infos = tx.auth_info.signer_infos
    success = len(infos) == len(tx.signatures) == len(expected)
    click.echo("\nSignatures:")
    secp = _pb("cosmos.crypto.secp256k1.keys_pb2")
    for i, info in enumerate(infos):
        signature = tx.signatures[i] if i < len(tx.signatures) else b""
        if info.public_key.type_url == MULTISIG_PUBKEY:
            key = _pb("cosmos.crypto.multisig.keys_pb2").LegacyAminoPubKey.FromString(info.public_key.value)
            members = [(crypto_keys.ETH_SECP256K1 if m.type_url == ETH_PUBKEY else crypto_keys.SECP256K1,
                        secp.PubKey.FromString(m.value).key) for m in key.public_keys]
            address = multisig.address(key.threshold, members)
        else:
            kind = crypto_keys.ETH_SECP256K1 if info.public_key.type_url == ETH_PUBKEY else crypto_keys.SECP256K1
            members = None
            address = crypto_keys.address_of(kind, secp.PubKey.FromString(info.public_key.value).key)
        number = ctx.params.get("account_number")
        if number is None and not ctx.params.get("offline"):
            number = _account_number(ctx, to_bech32(acc, address))
        if number is None or not chain_id:
            raise click.ClickException("--offline needs --chain-id and --account-number")
        doc = sign_doc(tx, chain_id, number)
        if members is None:
            valid = crypto_keys.verify_signed(kind, secp.PubKey.FromString(info.public_key.value).key, doc,
                                              signature)
        else:
            bits = info.mode_info.multi.bitarray
            indexes = multisig.set_bits(bits.extra_bits_stored, bits.elems)
            parts = _pb("cosmos.crypto.multisig.v1beta1.multisig_pb2").MultiSignature.FromString(signature).signatures
            valid = len(parts) == len(indexes) >= key.threshold and all(
                crypto_keys.verify_signed(*members[m], doc, part) for m, part in zip(indexes, parts))
        matches = i < len(expected) and expected[i] == address
        success = success and valid and matches
        state = "OK" if valid else "ERROR"
        click.echo(f"  {i}: {to_bech32(acc, address)}\t\t\t[{state}]" + ("" if matches else "  [MISMATCH]"))
    if not success:
        raise click.ClickException("signatures validation failed")


@tx.command("broadcast")
@click.argument("file")
@click.option("--node", default=None, envvar="CHAIND_NODE", help="<host>:<port> of the node's CometBFT RPC")
@click.option("--broadcast-mode", type=click.Choice(["sync", "async"]), default=None, help="sync or async")
@home_option
@output_option
def broadcast_command(file, **_):
    """Broadcast a signed tx JSON file (from `tx sign`; - for stdin)."""
    ctx = click.get_current_context()
    tx = read_tx(file)
    if not tx.signatures:
        raise click.ClickException(f"{file}: the tx is not signed")
    broadcast(ctx, raw_bytes(tx))


@tx.command()
@click.argument("file")
def encode(file):
    """Print a JSON tx file's wire bytes (TxRaw) as base64."""
    click.echo(base64.b64encode(raw_bytes(read_tx(file))).decode())


@tx.command()
@click.argument("encoded")
@click.option("-x", "--hex", "is_hex", is_flag=True, help="ENCODED is hex, not base64")
def decode(encoded, is_hex):
    """Print the JSON of a tx's wire bytes (base64, or hex with --hex)."""
    tx_pb2 = _pb("cosmos.tx.v1beta1.tx_pb2")
    try:
        raw = bytes.fromhex(encoded) if is_hex else base64.b64decode(encoded, validate=True)
        tx_raw = tx_pb2.TxRaw.FromString(raw)
        tx = tx_pb2.Tx(body=tx_pb2.TxBody.FromString(tx_raw.body_bytes),
                       auth_info=tx_pb2.AuthInfo.FromString(tx_raw.auth_info_bytes), signatures=tx_raw.signatures)
    except Exception as e:
        raise click.ClickException(f"cannot decode the tx: {e or type(e).__name__}") from None
    emit_json(click.get_current_context(), tx)
