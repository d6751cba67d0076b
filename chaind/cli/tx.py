"""`chaind tx`: build, sign (eth_secp256k1; SIGN_MODE_DIRECT, or LEGACY_AMINO_JSON with --sign-mode amino-json)
and broadcast native txs, as the SDK's CLI does.

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

from chaind.cli import autocli
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


def _any_from_json(value):
    """An Any from its SDK JSON ({"@type": url, ...fields}, LegacyDec fields as decimals)."""
    from chaind.cli import protojson

    if not isinstance(value, dict) or not isinstance(value.get("@type"), str):
        raise click.ClickException(f"want a message as JSON with its \"@type\", got {value!r}")
    cls = protojson.message_class(value["@type"])
    if cls is None:
        raise click.ClickException(f"unknown message type {value['@type']}")
    fields = {k: v for k, v in value.items() if k != "@type"}
    try:
        return _any(value["@type"], protojson.from_dict(fields, cls()))
    except Exception as e:
        raise click.ClickException(f"invalid {value['@type']}: {e}") from None


def tx_options(f):
    for option in reversed([
        click.option("--chain-id", default=None, help="Chain id (default: client.toml's, else the node's)"),
        click.option("--fees", default=None, help="Fees to pay, e.g. 4000000000000000achain"),
        click.option("--gas-prices", default=None, help="Gas prices (fees = gas x price), e.g. 20000000000achain"),
        click.option("--gas", default=str(DEFAULT_GAS), help="Gas limit, or 'auto' to simulate the tx first"),
        click.option("--gas-adjustment", type=float, default=1.0, help="Factor on the simulated gas (--gas auto)"),
        click.option("--note", "--memo", "note", default="", help="Memo of the tx"),
        click.option("--fee-granter", default=None,
                     help="Account (key name or address) whose feegrant allowance pays the fee"),
        click.option("--fee-payer", default=None,
                     help="Account (key name or address) that pays the fee instead of the signer, and signs too"),
        sign_mode_option("direct"),
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


SIGN_MODES = ("direct", "amino-json")


def sign_mode_option(default):
    return click.option("--sign-mode", type=click.Choice(SIGN_MODES), default=default,
                        help="How the key signs: direct (SIGN_MODE_DIRECT) or amino-json (SIGN_MODE_LEGACY_AMINO_JSON, "
                             "as a Ledger does)" + ("" if default else "; default direct, amino-json for --multisig"))


def _mode_number(mode):
    signing = _pb("cosmos.tx.signing.v1beta1.signing_pb2")
    return signing.SIGN_MODE_DIRECT if mode == "direct" else signing.SIGN_MODE_LEGACY_AMINO_JSON


def _amino_encoder(ctx):
    """The amino JSON writer of the modules this CLI serves (their messages' amino names and shapes)."""
    from chaind.chain import amino

    while not isinstance(ctx.command, autocli.ModuleGroup):
        ctx = ctx.parent
    records = ctx.command.modules.records()
    if not all(hasattr(r, "messages") for r in records):
        # The built-in modules are found on disk as table references: their records are the registry's
        # (loaded only now, for an amino-json signature).
        from chaind.chain.registry import MODULES

        records = MODULES
    return amino.Encoder.of_modules(records)


def sign_bytes(ctx, tx, chain_id, account_number, sequence, mode):
    """What a key signs in `mode` ("direct" or "amino-json") for `tx` as it stands (its signer infos set)."""
    if mode == "direct":
        return sign_doc(tx, chain_id, account_number)
    from chaind.chain import amino

    try:
        return amino.sign_bytes(_amino_encoder(ctx), tx.body, tx.auth_info.fee, chain_id, account_number, sequence)
    except Exception as e:
        raise click.ClickException(f"cannot sign in amino-json: {getattr(e, 'log', e)}") from None


# -- the steps of a tx ---------------------------------------------------------------------------

class Signer:
    """Who signs: a keyring record, its account number and sequence, the chain id."""

    def __init__(self, ctx, from_, need_key=True, ring=None):
        self.ctx = ctx
        self.ring = ring or open_keyring(ctx)
        self._key = None
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

    def account(self, address=None, use_flags=True):
        """(account number, sequence) of the signer (or of `address`): the flags', else the node's."""
        number, sequence = (self.ctx.params.get("account_number"), self.ctx.params.get("sequence")) \
            if use_flags else (None, None)
        if number is not None and sequence is not None:
            return number, sequence
        if self.offline:
            raise click.ClickException("--offline needs --account-number and --sequence")
        auth = _pb("cosmos.auth.v1beta1.query_pb2")
        response = self.rpc.query(auth, "Query", "Account", address=address or self.bech32)
        from chaind.cli.protojson import message_class

        cls = message_class(response.account.type_url)
        base = base_account(cls.FromString(response.account.value))
        return (base.account_number if number is None else number,
                base.sequence if sequence is None else sequence)

    def key(self):
        # Decrypting a file keyring's key runs scrypt: once per command.
        if self._key is None:
            from chaind.crypto.keys import AccountKey

            self._key = AccountKey(self.ring.private_key(self.record.name))
        return self._key


def unsigned_tx(messages, params, gas_limit, fee, payer="", granter=""):
    """payer, granter: the fee's bech32 payer and granter (fee_parties), or empty."""
    tx_pb2 = _pb("cosmos.tx.v1beta1.tx_pb2")
    body = tx_pb2.TxBody(messages=[_any(url, m) for url, m in messages], memo=params.get("note") or "")
    auth = tx_pb2.AuthInfo(fee=tx_pb2.Fee(amount=coin_protos(fee), gas_limit=gas_limit, payer=payer,
                                          granter=granter))
    return tx_pb2.Tx(body=body, auth_info=auth)


def fee_parties(ctx):
    """(payer, granter) of --fee-payer and --fee-granter as bech32 ("" when not given); each a key's name or an
    address."""
    def account(name):
        if not name:
            return ""
        return to_bech32(prefix(ctx), _sender_address(ctx, name))

    return account(ctx.params.get("fee_payer")), account(ctx.params.get("fee_granter"))


def _signer_info(pubkey, sequence, mode):
    tx_pb2 = _pb("cosmos.tx.v1beta1.tx_pb2")
    keys_pb2 = _pb("ethermint.crypto.v1.ethsecp256k1.keys_pb2")
    return tx_pb2.SignerInfo(public_key=_any(ETH_PUBKEY, keys_pb2.PubKey(key=pubkey)), sequence=sequence,
                             mode_info=tx_pb2.ModeInfo(single=tx_pb2.ModeInfo.Single(mode=_mode_number(mode))))


def sign(tx, signer, account_number, sequence, mode="direct"):
    """Sign `tx` in place (`mode` "direct" or "amino-json"): its one signer info, then its one signature."""
    return sign_all(tx, [(signer, account_number, sequence)], mode)


def sign_all(tx, parties, mode="direct"):
    """Sign `tx` in place by every party ((Signer, account number, sequence), in the tx's signer order): all
    signer infos first, since a SIGN_MODE_DIRECT signature covers them, then each signature."""
    from chaind.crypto.keys import ETH_SECP256K1

    del tx.auth_info.signer_infos[:]
    for signer, _, sequence in parties:
        tx.auth_info.signer_infos.append(_signer_info(signer.key().compressed_public_key, sequence, mode))
    del tx.signatures[:]
    for signer, number, sequence in parties:
        doc = sign_bytes(signer.ctx, tx, signer.chain_id, number, sequence, mode)
        tx.signatures.append(signer.key().sign(ETH_SECP256K1, doc))
    return tx


def sign_appended(tx, signer, account_number, sequence, mode):
    """Add this key's signer info and signature after the ones `tx` holds (the SDK's `tx sign` without
    --overwrite: how several signers each sign in turn; earlier amino-json signatures stay valid, earlier
    SIGN_MODE_DIRECT ones do not, as they cover the signer infos)."""
    from chaind.crypto.keys import ETH_SECP256K1

    pubkey = signer.key().compressed_public_key
    keys_pb2 = _pb("ethermint.crypto.v1.ethsecp256k1.keys_pb2")
    kept = [(info, sig) for info, sig in zip(tx.auth_info.signer_infos, tx.signatures)
            if keys_pb2.PubKey.FromString(info.public_key.value).key != pubkey]
    del tx.auth_info.signer_infos[:]
    del tx.signatures[:]
    for info, sig in kept:
        tx.auth_info.signer_infos.append(info)
        tx.signatures.append(sig)
    tx.auth_info.signer_infos.append(_signer_info(pubkey, sequence, mode))
    doc = sign_bytes(signer.ctx, tx, signer.chain_id, account_number, sequence, mode)
    tx.signatures.append(signer.key().sign(ETH_SECP256K1, doc))
    return tx


def raw_bytes(tx):
    tx_pb2 = _pb("cosmos.tx.v1beta1.tx_pb2")
    return tx_pb2.TxRaw(body_bytes=tx.body.SerializeToString(), auth_info_bytes=tx.auth_info.SerializeToString(),
                        signatures=tx.signatures).SerializeToString()


def simulate(signer, tx, parties):
    """Gas used by `tx` as the node simulates it: signed by the parties ((Signer, number, sequence)) with a
    placeholder signature each, of the size a real one has (the SDK's BuildSimTx leaves it empty and lets the
    node guess its size)."""
    service = _pb("cosmos.tx.v1beta1.service_pb2")
    try:
        response = signer.rpc.query(service, "Service", "Simulate", tx_bytes=raw_bytes(sim_tx(parties, tx)))
    except click.ClickException as e:
        if "unknown query path" in e.message:
            raise click.ClickException("--gas auto: the node does not simulate txs (no "
                                       "cosmos.tx.v1beta1.Service/Simulate over abci_query); give --gas N") from None
        raise
    return response.gas_info.gas_used


def sim_tx(parties, tx):
    """`tx` as the signed one will be, byte for byte in length: each party's signer info, a zero signature."""
    from chaind.crypto.keys import ETH_SECP256K1, SIGNATURE_SIZE

    tx_pb2 = _pb("cosmos.tx.v1beta1.tx_pb2")
    signing = _pb("cosmos.tx.signing.v1beta1.signing_pb2")
    keys_pb2 = _pb("ethermint.crypto.v1.ethsecp256k1.keys_pb2")
    sim = tx_pb2.Tx()
    sim.CopyFrom(tx)
    del sim.auth_info.signer_infos[:]
    for signer, _, sequence in parties:
        pubkey = _any(ETH_PUBKEY, keys_pb2.PubKey(key=signer.record.pubkey)) if signer.record else None
        sim.auth_info.signer_infos.add(public_key=pubkey, sequence=sequence, mode_info=tx_pb2.ModeInfo(
            single=tx_pb2.ModeInfo.Single(mode=signing.SIGN_MODE_DIRECT)))
    sim.signatures[:] = [bytes(SIGNATURE_SIZE[ETH_SECP256K1])] * len(parties)
    return sim


def estimate_gas(signer, messages, params, parties, fee_parties=("", "")):
    """The gas limit for --gas auto: simulated with the fee fields filled as they will be signed, again
    while the final tx (its gas limit and fee written out) would be longer than the simulated one, since
    every byte costs gas."""
    adjustment = params.get("gas_adjustment", 1.0)
    trial = DEFAULT_GAS
    for _ in range(4):
        tried = unsigned_tx(messages, params, trial, fees(params, trial), *fee_parties)
        gas_limit = int(simulate(signer, tried, parties) * adjustment)
        sim = sim_tx(parties, tried)
        final = sim_tx(parties, unsigned_tx(messages, params, gas_limit, fees(params, gas_limit), *fee_parties))
        if len(raw_bytes(final)) <= len(raw_bytes(sim)):
            return gas_limit
        trial = gas_limit
    raise click.ClickException(f"--gas auto: the estimate does not settle (last {gas_limit}); give --gas N")


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
    payer, granter = fee_parties(ctx)
    if generate_only:
        if gas_limit is None:
            raise click.ClickException("--gas auto cannot be used with --generate-only")
        emit_json(ctx, unsigned_tx(messages, params, gas_limit, fees(params, gas_limit), payer, granter))
        return
    if signer.record is not None and signer.record.type == "multi":
        raise click.ClickException(f"{signer.record.name} is a multisig key: build the tx with --generate-only, "
                                   "have its members sign it (tx sign --multisig) and join them (tx multisign)")
    number, sequence = signer.account()
    parties = [(signer, number, sequence)] + _payer_party(ctx, signer, payer)
    if precheck and gas_limit is not None and not signer.offline:
        simulate(signer, unsigned_tx(messages, params, gas_limit, fees(params, gas_limit), payer, granter), parties)
    if gas_limit is None:
        gas_limit = estimate_gas(signer, messages, params, parties, (payer, granter))
        click.echo(f"estimated gas: {gas_limit}", err=True)
    tx = unsigned_tx(messages, params, gas_limit, fees(params, gas_limit), payer, granter)
    if not params.get("yes"):
        from chaind.cli import protojson

        click.echo(json.dumps(protojson.to_dict(tx), separators=(",", ":")), err=True)
        if not click.confirm("confirm transaction before signing and broadcasting", err=True):
            click.echo("canceled transaction", err=True)
            return
    broadcast(ctx, raw_bytes(sign_all(tx, parties, params.get("sign_mode") or "direct")), signer.rpc)


def _payer_party(ctx, signer, payer):
    """The fee payer as a second signer, when --fee-payer names another account: its key must be in the keyring
    (else the tx is built with --generate-only and each signs it in turn with tx sign)."""
    if not payer or payer == signer.bech32:
        return []
    name = ctx.params["fee_payer"]
    ring = signer.ring
    if name not in ring.names() and not any(to_bech32(prefix(ctx), ring.get(n).address) == payer
                                            for n in ring.names()):
        raise click.ClickException(f"the fee payer {payer} signs the tx too and its key is not in the keyring: build "
                                   "the tx with --generate-only, then sign it with each key in turn (tx sign "
                                   "--sign-mode amino-json) and broadcast it")
    if name not in ring.names():
        name = next(n for n in ring.names() if to_bech32(prefix(ctx), ring.get(n).address) == payer)
    payer_signer = Signer(ctx, name, ring=ring)     # one keyring: its passphrase is asked once
    number, sequence = payer_signer.account(payer, use_flags=False)
    return [(payer_signer, number, sequence)]


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

def _sender_address(ctx, from_):
    """The address of --from: a key's name, or an address (which --generate-only needs no key for)."""
    from chaind.cli.common import AddressError

    ring = open_keyring(ctx)
    if from_ in ring.names():
        return ring.get(from_).address
    try:
        return address_bytes(from_)
    except AddressError:
        raise click.ClickException(str(ring.not_found(from_))) from None


class TxKit:
    """The tx plumbing a module's hand-written tx commands get from the CLI (its cli.py imports no chaind.cli)."""

    tx_options = staticmethod(tx_options)
    home_option = staticmethod(home_option)
    output_option = staticmethod(output_option)
    generate_or_broadcast = staticmethod(generate_or_broadcast)
    broadcast = staticmethod(broadcast)
    rpc_client = staticmethod(rpc_client)
    sender_address = staticmethod(_sender_address)      # the 20 bytes of --from (a key's name, or an address)
    parse_coins = staticmethod(parse_coins)
    coin_protos = staticmethod(coin_protos)
    coin = staticmethod(autocli.coin)                   # one positive coin (e.g. 10achain) as a Coin
    any = staticmethod(_any)
    any_from_json = staticmethod(_any_from_json)           # an Any from the SDK's JSON of a message
    bech32_address = staticmethod(bech32_address)
    to_bech32 = staticmethod(to_bech32)
    prefix = staticmethod(prefix)


class TxGroup(autocli.ModuleGroup, KeyringErrors):
    """`tx`'s group: module groups, and keyring errors as one line."""


def make_tx(modules):
    """`tx`: the signing commands below, and one group per module of `modules` (autocli.Modules) with a TX table."""
    kit = TxKit()
    group = TxGroup("tx", help="Build, sign and broadcast transactions.", modules=modules, part="TX",
                    build=lambda name, table: autocli.tx_group(name, table, kit))
    for command in COMMANDS:
        group.add_command(command)
    return group


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


def _signing_mode(ctx, multisig=False):
    return ctx.params.get("sign_mode") or ("amino-json" if multisig else "direct")


MULTISIG_PUBKEY = "/cosmos.crypto.multisig.LegacyAminoPubKey"


def multisig_signer_info(record, indexes, sequence, modes):
    """The SignerInfo of a multisig key whose members `indexes` sign, each in its mode ("direct" or "amino-json")."""
    from chaind.crypto import multisig

    tx_pb2 = _pb("cosmos.tx.v1beta1.tx_pb2")
    keys_pb2 = _pb("cosmos.crypto.multisig.keys_pb2")
    bits = _pb("cosmos.crypto.multisig.v1beta1.multisig_pb2")
    from chaind.cli.keys import PUBKEY_URLS

    secp = _pb("cosmos.crypto.secp256k1.keys_pb2")
    pubkey = keys_pb2.LegacyAminoPubKey(threshold=record.threshold, public_keys=[
        _any(PUBKEY_URLS[t], secp.PubKey(key=k)) for t, k in record.members])
    extra, elems = multisig.bit_array(len(record.members), indexes)
    mode_infos = [tx_pb2.ModeInfo(single=tx_pb2.ModeInfo.Single(mode=_mode_number(m))) for m in modes]
    return tx_pb2.SignerInfo(
        public_key=_any(MULTISIG_PUBKEY, pubkey), sequence=sequence,
        mode_info=tx_pb2.ModeInfo(multi=tx_pb2.ModeInfo.Multi(
            bitarray=bits.CompactBitArray(extra_bits_stored=extra, elems=elems), mode_infos=mode_infos)))


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


@click.command("sign")
@click.argument("file")
@click.option("--from", "from_", required=True, help="Signing key (name or address)")
@click.option("--multisig", default=None,
              help="Sign as a member of this multisig key (name or address in the keyring): prints the signature")
@click.option("--multisig-signers", default=None,
              help="With --multisig --sign-mode direct: the comma-separated members who will sign (SIGN_MODE_DIRECT "
                   "signs this choice, so every member names the same ones); amino-json needs no such choice")
@click.option("--output-document", default=None, type=click.Path(dir_okay=False), help="Write to this file")
@click.option("--overwrite", is_flag=True, help="Replace the signatures the tx holds instead of adding this one")
@sign_mode_option(None)
@signing_options
def sign_command(file, from_, multisig, multisig_signers, output_document, overwrite, **_):
    """Sign an unsigned tx JSON file (from --generate-only; - for stdin) and print the signed tx.

    A tx with several signers (messages of several accounts, or a --fee-payer) is signed by each in turn, each
    signature added after the ones the file holds (amino-json keeps the earlier ones valid). With --multisig,
    print this member's signature (for tx multisign) instead. --offline signs without the node, given
    --chain-id, --account-number and --sequence.
    """
    ctx = click.get_current_context()
    tx = read_tx(file)
    signer = Signer(ctx, from_)
    mode = _signing_mode(ctx, multisig is not None)
    if multisig is None:
        if multisig_signers:
            raise click.UsageError("--multisig-signers needs --multisig")
        number, sequence = signer.account()
        signed = sign(tx, signer, number, sequence, mode) if overwrite else \
            sign_appended(tx, signer, number, sequence, mode)
        return _emit_to(ctx, signed, output_document)
    record = _multisig_record(signer.ring, ctx, multisig)
    own = _member_index(record, signer.record.pubkey, from_)
    number, sequence = signer.account(to_bech32(prefix(ctx), record.address))
    if mode == "direct":
        if not multisig_signers:
            raise click.UsageError("--multisig --sign-mode direct needs --multisig-signers: the members who will sign")
        indexes = sorted({_member_index(record, find_record(signer.ring, ctx, n.strip()).pubkey, n.strip())
                          for n in multisig_signers.split(",") if n.strip()})
        if own not in indexes:
            raise click.ClickException(f"--multisig-signers must name the signing key {from_}")
        if len(indexes) < record.threshold:
            raise click.ClickException(f"{len(indexes)} signers named; the multisig needs {record.threshold}")
        del tx.auth_info.signer_infos[:]
        tx.auth_info.signer_infos.append(multisig_signer_info(record, indexes, sequence, ["direct"] * len(indexes)))
    elif multisig_signers:
        raise click.UsageError("--multisig-signers is for --sign-mode direct: amino-json signs no signer choice")
    _emit_to(ctx, _member_signature(ctx, tx, signer, number, sequence, mode), output_document)


def _member_signature(ctx, tx, signer, number, sequence, mode):
    """A multisig member's signature of `tx` as SignatureDescriptors (what tx multisign joins)."""
    from chaind.crypto.keys import ETH_SECP256K1

    signature = signer.key().sign(ETH_SECP256K1, sign_bytes(ctx, tx, signer.chain_id, number, sequence, mode))
    signing = _pb("cosmos.tx.signing.v1beta1.signing_pb2")
    keys_pb2 = _pb("ethermint.crypto.v1.ethsecp256k1.keys_pb2")
    return signing.SignatureDescriptors(signatures=[signing.SignatureDescriptor(
        public_key=_any(ETH_PUBKEY, keys_pb2.PubKey(key=signer.record.pubkey)), sequence=sequence,
        data=signing.SignatureDescriptor.Data(single=signing.SignatureDescriptor.Data.Single(
            mode=_mode_number(mode), signature=signature)))])


def _emit_to(ctx, message, path):
    if path is None:
        return emit_json(ctx, message)
    from chaind.cli import protojson

    try:
        with open(path, "w") as f:
            f.write(json.dumps(protojson.to_dict(message), separators=(",", ":")) + "\n")
    except OSError as e:
        raise click.ClickException(f"cannot write {path}: {e.strerror}") from None


def _lines(path):
    """The non-empty lines of a file (or - for stdin), numbered from 1."""
    try:
        text = sys.stdin.read() if path == "-" else open(path).read()
    except OSError as e:
        raise click.ClickException(f"cannot read {path}: {e.strerror}") from None
    return [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]


@click.command("sign-batch")
@click.argument("files", nargs=-1, required=True)
@click.option("--from", "from_", required=True, help="Signing key (name or address)")
@click.option("--multisig", default=None,
              help="Sign as a member of this multisig key (name or address in the keyring): prints one signature "
                   "a line, for tx multisign-batch")
@sign_mode_option(None)
@signing_options
def sign_batch(files, from_, multisig, sequence, **_):
    """Sign every tx of FILES (one JSON tx a line, as --generate-only prints them), with consecutive
    sequences from the account's (or --sequence); prints one signed tx a line (with --multisig, one member
    signature a line, amino-json by default)."""
    ctx = click.get_current_context()
    unsigned = [parse_tx(line, f"{path} line {n}") for path in files for n, line in _lines(path)]
    if not unsigned:
        raise click.ClickException("no txs to sign")
    signer = Signer(ctx, from_)
    mode = _signing_mode(ctx, multisig is not None)
    if multisig is None:
        number, first = signer.account()
        for offset, tx in enumerate(unsigned):
            emit_json(ctx, sign(tx, signer, number, first + offset, mode))
        return
    if mode == "direct":
        raise click.UsageError("sign-batch --multisig signs amino-json (direct would need the signing members named)")
    record = _multisig_record(signer.ring, ctx, multisig)
    _member_index(record, signer.record.pubkey, from_)
    number, first = signer.account(to_bech32(prefix(ctx), record.address))
    for offset, tx in enumerate(unsigned):
        emit_json(ctx, _member_signature(ctx, tx, signer, number, first + offset, mode))


@click.command("multisign")
@click.argument("file")
@click.argument("name")
@click.argument("signature_files", nargs=-1, required=True)
@click.option("--output-document", default=None, type=click.Path(dir_okay=False), help="Write to this file")
@signing_options
def multisign(file, name, signature_files, output_document, **_):
    """Join members' signatures (from tx sign --multisig) into the multisig NAME's signed tx."""
    ctx = click.get_current_context()
    from chaind.cli.protojson import from_dict

    tx = read_tx(file)
    record = _multisig_record(open_keyring(ctx), ctx, name)
    signing = _pb("cosmos.tx.signing.v1beta1.signing_pb2")
    given = []
    for path in signature_files:
        try:
            with open(path) as f:
                given.append((path, from_dict(json.load(f), signing.SignatureDescriptors())))
        except (OSError, ValueError) as e:
            raise click.ClickException(f"cannot read the signature file {path}: {e}") from None
    chain_id, number = _multisig_account(ctx, record)
    _emit_to(ctx, _joined(ctx, tx, record, given, chain_id, number), output_document)


@click.command("multisign-batch")
@click.argument("file")
@click.argument("name")
@click.argument("signature_files", nargs=-1, required=True)
@click.option("--output-document", default=None, type=click.Path(dir_okay=False), help="Write to this file")
@signing_options
def multisign_batch(file, name, signature_files, output_document, **_):
    """Join members' signatures of a batch: FILE holds one unsigned tx a line, each SIGNATURE_FILE one member's
    signature a line (tx sign-batch --multisig), in the same order; prints one signed tx a line, with
    consecutive sequences of the multisig NAME's account."""
    ctx = click.get_current_context()
    from chaind.cli import protojson

    unsigned = [parse_tx(line, f"{file} line {n}") for n, line in _lines(file)]
    if not unsigned:
        raise click.ClickException(f"{file}: no txs")
    record = _multisig_record(open_keyring(ctx), ctx, name)
    signing = _pb("cosmos.tx.signing.v1beta1.signing_pb2")
    batches = []
    for path in signature_files:
        lines = _lines(path)
        if len(lines) != len(unsigned):
            raise click.ClickException(f"{path} holds {len(lines)} signatures for {len(unsigned)} txs")
        try:
            batches.append([(f"{path} line {n}", protojson.from_dict(json.loads(line),
                                                                     signing.SignatureDescriptors()))
                            for n, line in lines])
        except ValueError as e:
            raise click.ClickException(f"cannot read the signature file {path}: {e}") from None
    chain_id, number = _multisig_account(ctx, record)
    out = [_joined(ctx, tx, record, [batch[i] for batch in batches], chain_id, number)
           for i, tx in enumerate(unsigned)]
    sequences = [tx.auth_info.signer_infos[0].sequence for tx in out]
    if sequences != list(range(sequences[0], sequences[0] + len(out))):
        raise click.ClickException(f"the batch's signatures are not for consecutive sequences: {sequences}")
    text = "".join(json.dumps(protojson.to_dict(tx), separators=(",", ":")) + "\n" for tx in out)
    if output_document is None:
        click.echo(text, nl=False)
        return
    try:
        with open(output_document, "w") as f:
            f.write(text)
    except OSError as e:
        raise click.ClickException(f"cannot write {output_document}: {e.strerror}") from None


def _multisig_account(ctx, record):
    """(chain id, account number) a multisig's members signed for: the flags', else the node's."""
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
    return chain_id, number


def _joined(ctx, tx, record, given, chain_id, number):
    """`tx` signed by the multisig `record` from its members' signatures (given: (where, SignatureDescriptors)),
    each checked against the sign doc of its mode."""
    from chaind.crypto.keys import verify_signed

    keys_pb2 = _pb("cosmos.crypto.secp256k1.keys_pb2")
    found, modes, sequences = {}, {}, set()
    by_number = {_mode_number(m): m for m in SIGN_MODES}
    for where, descriptors in given:
        for d in descriptors.signatures:
            if d.data.WhichOneof("sum") != "single" or d.data.single.mode not in by_number:
                raise click.ClickException(f"{where}: want a SIGN_MODE_DIRECT or SIGN_MODE_LEGACY_AMINO_JSON "
                                           "signature of one member")
            index = _member_index(record, keys_pb2.PubKey.FromString(d.public_key.value).key, f"the key of {where}")
            found[index] = d.data.single.signature
            modes[index] = by_number[d.data.single.mode]
            sequences.add(d.sequence)
    if len(sequences) != 1:
        raise click.ClickException(f"the signatures were made for different sequences {sorted(sequences)}")
    if len(found) < record.threshold:
        raise click.ClickException(f"{len(found)} signatures; the multisig needs {record.threshold}")
    indexes = sorted(found)
    sequence = sequences.pop()
    del tx.auth_info.signer_infos[:]
    tx.auth_info.signer_infos.append(multisig_signer_info(record, indexes, sequence, [modes[i] for i in indexes]))
    for i in indexes:
        doc = sign_bytes(ctx, tx, chain_id, number, sequence, modes[i])
        if not verify_signed(record.members[i][0], record.members[i][1], doc, found[i]):
            raise click.ClickException(
                f"the signature of member {i} ({to_bech32(prefix(ctx), _member_address(record.members[i]))}) does "
                f"not verify: each member must sign this tx with --multisig-signers naming exactly the members "
                f"whose signatures are given here")
    multi = _pb("cosmos.crypto.multisig.v1beta1.multisig_pb2")
    del tx.signatures[:]
    tx.signatures.append(multi.MultiSignature(signatures=[found[i] for i in indexes]).SerializeToString())
    return tx


def _member_address(member):
    from chaind.crypto.keys import address_of

    return address_of(*member)


def _account_number(ctx, address):
    auth = _pb("cosmos.auth.v1beta1.query_pb2")
    response = rpc_client(ctx).query(auth, "Query", "Account", address=address)
    from chaind.cli.protojson import message_class

    return base_account(message_class(response.account.type_url).FromString(response.account.value)).account_number


def base_account(account):
    """The BaseAccount of any account type: a module account holds one, a vesting account one a level deeper."""
    if hasattr(account, "base_vesting_account"):
        account = account.base_vesting_account
    return account.base_account if hasattr(account, "base_account") else account


def _message_signers(ctx, tx):
    """The signers a tx's messages name, in order (where the modules' TX tables say each message names it), and
    its fee payer."""
    from chaind.cli.protojson import message_class

    while not isinstance(ctx.command, autocli.ModuleGroup):
        ctx = ctx.parent
    fields = autocli.signer_fields(ctx.command.modules)
    signers = []
    for any_msg in tx.body.messages:
        field = fields.get(any_msg.type_url)
        if field is None:
            raise click.ClickException(f"cannot tell the signer of a {any_msg.type_url}")
        value = getattr(message_class(any_msg.type_url).FromString(any_msg.value), field)
        if not isinstance(value, str):      # a repeated message field: its first element's address
            value = value[0].address if len(value) else ""
        address = address_bytes(value)
        if address not in signers:
            signers.append(address)
    # A fee payer apart from them signs last (the SDK's GetSigners).
    if tx.auth_info.fee.payer and address_bytes(tx.auth_info.fee.payer) not in signers:
        signers.append(address_bytes(tx.auth_info.fee.payer))
    return signers


@click.command("validate-signatures")
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
    expected = _message_signers(ctx, tx)
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
        def doc(mode_info):
            mode = "amino-json" if mode_info.single.mode == _mode_number("amino-json") else "direct"
            return sign_bytes(ctx, tx, chain_id, number, info.sequence, mode)

        if members is None:
            valid = crypto_keys.verify_signed(kind, secp.PubKey.FromString(info.public_key.value).key,
                                              doc(info.mode_info), signature)
        else:
            bits = info.mode_info.multi.bitarray
            indexes = multisig.set_bits(bits.extra_bits_stored, bits.elems)
            parts = _pb("cosmos.crypto.multisig.v1beta1.multisig_pb2").MultiSignature.FromString(signature).signatures
            valid = len(parts) == len(indexes) == len(info.mode_info.multi.mode_infos) >= key.threshold and all(
                crypto_keys.verify_signed(*members[m], doc(mode), part)
                for m, part, mode in zip(indexes, parts, info.mode_info.multi.mode_infos))
        matches = i < len(expected) and expected[i] == address
        success = success and valid and matches
        state = "OK" if valid else "ERROR"
        click.echo(f"  {i}: {to_bech32(acc, address)}\t\t\t[{state}]" + ("" if matches else "  [MISMATCH]"))
    if not success:
        raise click.ClickException("signatures validation failed")


@click.command("broadcast")
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


@click.command()
@click.argument("file")
def encode(file):
    """Print a JSON tx file's wire bytes (TxRaw) as base64."""
    click.echo(base64.b64encode(raw_bytes(read_tx(file))).decode())


@click.command()
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


COMMANDS = (sign_command, sign_batch, multisign, multisign_batch, validate_signatures, broadcast_command, encode,
            decode)
