"""The tx factory every `tx` command builds on (the SDK's client/tx Factory): the tx flags, the signer, an unsigned
tx of messages, signing (eth_secp256k1; SIGN_MODE_DIRECT, or LEGACY_AMINO_JSON with --sign-mode amino-json), gas
(`--gas auto` simulates) and fees, and broadcasting. A module's hand-written tx commands get it as a TxKit.

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

import click

from chaind.cli import autocli
from chaind.cli.coins import coin, coin_protos, parse_coins
from chaind.cli.common import (
    address_bytes,
    bech32_address,
    emit_proto,
    home_option,
    output_option,
    pb,
    prefix,
    rpc_client,
    setting,
    to_bech32,
)
from chaind.cli.keys import find_record, keyring_options, open_keyring

DEFAULT_GAS = 200000                 # the SDK's default gas limit
ETH_PUBKEY = "/ethermint.crypto.v1.ethsecp256k1.PubKey"


def to_any(url, message):
    """An Any holding `message` under the type URL `url`."""
    from google.protobuf import any_pb2

    return any_pb2.Any(type_url=url, value=message.SerializeToString())


def any_from_json(value):
    """An Any from its SDK JSON ({"@type": url, ...fields}, LegacyDec fields as decimals)."""
    from chaind.cli import protojson

    if not isinstance(value, dict) or not isinstance(value.get("@type"), str):
        raise click.ClickException(f"want a message as JSON with its \"@type\", got {value!r}")
    cls = protojson.message_class(value["@type"])
    if cls is None:
        raise click.ClickException(f"unknown message type {value['@type']}")
    fields = {k: v for k, v in value.items() if k != "@type"}
    try:
        return to_any(value["@type"], protojson.from_dict(fields, cls()))
    except Exception as e:  # noqa: BLE001 (the user's JSON: any failure to read it is reported)
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
        click.option("--dry-run", is_flag=True, help="Ignore the --gas flag and perform a simulation of the tx, but "
                                                     "don't broadcast it (--from may be an address)"),
        click.option("--timeout-height", type=click.IntRange(min=0), default=0,
                     help="Set a block timeout height to prevent the tx from being committed past a certain height"),
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


def mode_number(mode):
    signing = pb("cosmos.tx.signing.v1beta1.signing_pb2")
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
    except Exception as e:  # noqa: BLE001 (whatever amino cannot write, of any kind, is reported)
        raise click.ClickException(f"cannot sign in amino-json: {getattr(e, 'log', e)}") from None


def sign_doc(tx, chain_id, account_number):
    tx_pb2 = pb("cosmos.tx.v1beta1.tx_pb2")
    return tx_pb2.SignDoc(body_bytes=tx.body.SerializeToString(), auth_info_bytes=tx.auth_info.SerializeToString(),
                          chain_id=chain_id, account_number=account_number).SerializeToString()


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
        self.chain_pubkey = None        # the account's public key as the node holds it (an Any), once asked
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
        auth = pb("cosmos.auth.v1beta1.query_pb2")
        response = self.rpc.query(auth, "Query", "Account", address=address or self.bech32)
        from chaind.cli.protojson import message_class

        cls = message_class(response.account.type_url)
        base = base_account(cls.FromString(response.account.value))
        if address is None or address == self.bech32:
            self.chain_pubkey = base.pub_key if base.HasField("pub_key") else None
        return (base.account_number if number is None else number,
                base.sequence if sequence is None else sequence)

    def key(self):
        # Decrypting a file keyring's key runs scrypt: once per command.
        if self._key is None:
            from chaind.crypto.keys import AccountKey

            self._key = AccountKey(self.ring.private_key(self.record.name))
        return self._key


def base_account(account):
    """The BaseAccount of any account type: a module account holds one, a vesting account one a level deeper."""
    if hasattr(account, "base_vesting_account"):
        account = account.base_vesting_account
    return account.base_account if hasattr(account, "base_account") else account


def unsigned_tx(messages, params, gas_limit, fee, payer="", granter=""):
    """payer, granter: the fee's bech32 payer and granter (fee_parties), or empty."""
    tx_pb2 = pb("cosmos.tx.v1beta1.tx_pb2")
    body = tx_pb2.TxBody(messages=[to_any(url, m) for url, m in messages], memo=params.get("note") or "",
                         timeout_height=params.get("timeout_height") or 0)
    auth = tx_pb2.AuthInfo(fee=tx_pb2.Fee(amount=coin_protos(fee), gas_limit=gas_limit, payer=payer,
                                          granter=granter))
    return tx_pb2.Tx(body=body, auth_info=auth)


def fee_parties(ctx):
    """(payer, granter) of --fee-payer and --fee-granter as bech32 ("" when not given); each a key's name or an
    address."""
    def account(name):
        if not name:
            return ""
        return to_bech32(prefix(ctx), sender_address(ctx, name))

    return account(ctx.params.get("fee_payer")), account(ctx.params.get("fee_granter"))


def _signer_info(pubkey, sequence, mode):
    tx_pb2 = pb("cosmos.tx.v1beta1.tx_pb2")
    keys_pb2 = pb("ethermint.crypto.v1.ethsecp256k1.keys_pb2")
    return tx_pb2.SignerInfo(public_key=to_any(ETH_PUBKEY, keys_pb2.PubKey(key=pubkey)), sequence=sequence,
                             mode_info=tx_pb2.ModeInfo(single=tx_pb2.ModeInfo.Single(mode=mode_number(mode))))


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
    keys_pb2 = pb("ethermint.crypto.v1.ethsecp256k1.keys_pb2")
    kept = [(info, sig) for info, sig in zip(tx.auth_info.signer_infos, tx.signatures, strict=False)
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
    tx_pb2 = pb("cosmos.tx.v1beta1.tx_pb2")
    return tx_pb2.TxRaw(body_bytes=tx.body.SerializeToString(), auth_info_bytes=tx.auth_info.SerializeToString(),
                        signatures=tx.signatures).SerializeToString()


def simulate(signer, tx, parties):
    """Gas used by `tx` as the node simulates it: signed by the parties ((Signer, number, sequence)) with a
    placeholder signature each, of the size a real one has (the SDK's BuildSimTx leaves it empty and lets the
    node guess its size)."""
    service = pb("cosmos.tx.v1beta1.service_pb2")
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

    tx_pb2 = pb("cosmos.tx.v1beta1.tx_pb2")
    signing = pb("cosmos.tx.signing.v1beta1.signing_pb2")
    keys_pb2 = pb("ethermint.crypto.v1.ethsecp256k1.keys_pb2")
    sim = tx_pb2.Tx()
    sim.CopyFrom(tx)
    del sim.auth_info.signer_infos[:]
    for signer, _, sequence in parties:
        # Without its key in the keyring (--dry-run from an address), the key the node holds for the account.
        pubkey = to_any(ETH_PUBKEY, keys_pb2.PubKey(key=signer.record.pubkey)) if signer.record \
            else signer.chain_pubkey
        if pubkey is None:
            raise click.ClickException(f"{signer.bech32} has no public key on chain yet (it has signed no tx) and "
                                       "its key is not in the keyring: simulate with the key's name as --from")
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
    abci = pb("cosmos.base.abci.v1beta1.abci_pb2")
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
                                   f"({response.codespace}): {response.raw_log}{_sequence_hint(response)}")


def _sequence_hint(response):
    """What to do when an earlier tx of the account took the sequence this one was signed with (as right after
    another tx from the same key, its block not made yet: the CLI reads the sequence from the last block)."""
    if response.codespace != "sdk":
        return ""
    found = re.match(r"account sequence mismatch, expected (\d+), got (\d+)", response.raw_log)
    if response.code == 32 and found and int(found[1]) > int(found[2]):
        return f"; an earlier tx of this account took sequence {found[2]}: give --sequence {found[1]}"
    if response.code == 13 and response.raw_log.startswith("replacement transaction underpriced"):
        return ("; an earlier tx of this account with the same sequence waits for its block: wait for it, or give "
                "--sequence with the next number (a higher fee replaces that tx)")
    return ""


def generate_or_broadcast(ctx, from_, messages, precheck=False):
    """The SDK's GenerateOrBroadcastTxCLI: print the unsigned tx, or sign (after asking) and broadcast it.

    With `precheck`, the node simulates the tx first, so a message the block would refuse (an authority's,
    checked only when executed) fails here with the node's reason instead of in a committed tx.
    """
    params = ctx.params
    generate_only = params.get("generate_only")
    # As the SDK's: --generate-only wins over --dry-run, which simulates whatever --gas says and sends nothing.
    dry_run = params.get("dry_run") and not generate_only
    signer = Signer(ctx, from_, need_key=not (generate_only or dry_run))
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
    if dry_run and signer.offline:
        raise click.ClickException("cannot estimate gas in offline mode")
    number, sequence = signer.account()
    parties = [(signer, number, sequence)] + _payer_party(ctx, signer, payer)
    if dry_run:
        click.echo(f"gas estimate: {estimate_gas(signer, messages, params, parties, (payer, granter))}", err=True)
        return
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


def proto_json(message):
    """`message` as the SDK's JSON (an Any with its "@type"), a dict."""
    from chaind.cli import protojson

    return protojson.to_dict(message)


def emit_json(ctx, message):
    """Txs print as JSON whatever --output says, as the SDK prints them."""
    from chaind.cli import protojson

    click.echo(json.dumps(protojson.to_dict(message), separators=(",", ":")))


# -- what a module's commands get -----------------------------------------------------------------

def sender_address(ctx, from_):
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
    sender_address = staticmethod(sender_address)      # the 20 bytes of --from (a key's name, or an address)
    parse_coins = staticmethod(parse_coins)
    coin_protos = staticmethod(coin_protos)
    coin = staticmethod(coin)                   # one positive coin (e.g. 10achain) as a Coin
    any = staticmethod(to_any)
    any_from_json = staticmethod(any_from_json)           # an Any from the SDK's JSON of a message
    json_of = staticmethod(proto_json)                    # a message (an Any too) as the SDK's JSON prints it
    bech32_address = staticmethod(bech32_address)
    to_bech32 = staticmethod(to_bech32)
    prefix = staticmethod(prefix)
