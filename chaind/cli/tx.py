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

from chaind.cli.common import (address_bytes, bech32_address, emit_proto, home_option, output_option, prefix,
                               rpc_client, setting, to_bech32)
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

    def account(self):
        """(account number, sequence): the flags', else the node's."""
        number, sequence = self.ctx.params.get("account_number"), self.ctx.params.get("sequence")
        if number is not None and sequence is not None:
            return number, sequence
        if self.offline:
            raise click.ClickException("--offline needs --account-number and --sequence")
        auth = _pb("cosmos.auth.v1beta1.query_pb2")
        response = self.rpc.query(auth, "Query", "Account", address=self.bech32)
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


def generate_or_broadcast(ctx, from_, messages):
    """The SDK's GenerateOrBroadcastTxCLI: print the unsigned tx, or sign (after asking) and broadcast it."""
    params = ctx.params
    generate_only = params.get("generate_only")
    signer = Signer(ctx, from_, need_key=not generate_only)
    gas_limit = gas_setting(params)
    if generate_only:
        if gas_limit is None:
            raise click.ClickException("--gas auto cannot be used with --generate-only")
        emit_json(ctx, unsigned_tx(messages, params, gas_limit, fees(params, gas_limit)))
        return
    number, sequence = signer.account()
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


@tx.command("sign")
@click.argument("file")
@click.option("--from", "from_", required=True, help="Signing key (name or address)")
@click.option("--chain-id", default=None, help="Chain id (default: client.toml's, else the node's)")
@click.option("--sequence", type=click.IntRange(min=0), default=None, help="Signer's sequence (offline)")
@click.option("--account-number", type=click.IntRange(min=0), default=None, help="Signer's account number")
@click.option("--offline", is_flag=True, help="Do not ask the node")
@click.option("--node", default=None, envvar="CHAIND_NODE", help="<host>:<port> of the node's CometBFT RPC")
@keyring_options
def sign_command(file, from_, **_):
    """Sign an unsigned tx JSON file (from --generate-only; - for stdin) and print the signed tx."""
    ctx = click.get_current_context()
    tx = read_tx(file)
    signer = Signer(ctx, from_)
    number, sequence = signer.account()
    emit_json(ctx, sign(tx, signer, number, sequence))


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
