"""`chaind keys`: eth_secp256k1 account keys (HD path m/44'/60'/0'/0/N) in the test or file keyring.

Records print as the SDK's `keys` commands print them: name, type, address, pubkey (as JSON).
"""

import base64
import json
import sys

import click

from chaind.cli.common import HelpGroup, home_option, home_path, output_option, prefix, setting, to_bech32
from chaind.keyring import BACKENDS, Keyring, KeyringError

ETH_PUBKEY = "/ethermint.crypto.v1.ethsecp256k1.PubKey"
MNEMONIC_STRENGTH = 256      # bits: 24 words, as the SDK's `keys add` makes them


def read_secret(label, confirm=False):
    """A secret from the terminal (hidden), or a line of stdin when it is not a terminal (as the SDK reads)."""
    def one(text):
        if sys.stdin.isatty():
            return click.prompt(text, hide_input=True, err=True, default="", show_default=False)
        click.echo(text + ":", err=True)
        line = sys.stdin.readline()
        if not line:
            raise click.ClickException(f"{label}: no input")
        return line.rstrip("\r\n")

    value = one(f"Enter {label}")
    if confirm and one(f"Re-enter {label}") != value:
        raise click.ClickException(f"{label}s don't match")
    return value


def keyring_options(f):
    f = click.option("--keyring-backend", type=click.Choice(BACKENDS), default=None,
                     help="Where keys live: test (unencrypted) or file (encrypted with a passphrase)")(f)
    return home_option(f)


def open_keyring(ctx):
    backend = setting(ctx, "keyring-backend", ctx.params.get("keyring_backend"))
    try:
        return Keyring(home_path(ctx.params.get("home")), backend,
                       lambda confirm: read_secret("keyring passphrase", confirm))
    except KeyringError as e:
        raise click.ClickException(str(e)) from None


MULTISIG_PUBKEY = "/cosmos.crypto.multisig.LegacyAminoPubKey"
SECP256K1_PUBKEY = "/cosmos.crypto.secp256k1.PubKey"
PUBKEY_URLS = {"eth_secp256k1": ETH_PUBKEY, "secp256k1": SECP256K1_PUBKEY}


# The type URL an account's eth_secp256k1 key has on this chain (cosmos/evm's, which @cosmjs and cosmpy decode;
# the same message as Evmos' /ethermint.crypto.v1.ethsecp256k1.PubKey, which txs may carry too): `keys show`
# shows a key as `query account` shows it.
ACCOUNT_PUBKEY = "/cosmos.evm.crypto.v1.ethsecp256k1.PubKey"


def pubkey_json(record):
    """A record's public key as the SDK's keys commands print it (proto JSON of the key's Any)."""
    if record.type == "multi":
        return {"@type": MULTISIG_PUBKEY, "threshold": record.threshold,
                "public_keys": [{"@type": PUBKEY_URLS[t], "key": base64.b64encode(k).decode()}
                                for t, k in record.members]}
    return {"@type": ACCOUNT_PUBKEY, "key": base64.b64encode(record.pubkey).decode()}


def key_output(ctx, record, bech="acc"):
    pubkey = json.dumps(pubkey_json(record), separators=(",", ":"))
    return {"name": record.name, "type": record.type, "address": to_bech32(prefix(ctx, bech), record.address),
            "pubkey": pubkey}


def _print_records(ctx, outputs, single=False):
    """Text is always the SDK's YAML list; JSON is one object for a single key."""
    from chaind.cli.common import output_format

    if output_format(ctx) == "json":
        click.echo(json.dumps(outputs[0] if single else outputs, separators=(",", ":")))
    else:
        from chaind.cli import yamlout

        click.echo(yamlout.dump(outputs) if outputs else "[]\n")


class KeyringErrors(HelpGroup):
    """A group whose commands' keyring errors are one-line CLI errors."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyringError as e:
            raise click.ClickException(str(e)) from None


@click.group(cls=KeyringErrors)
def keys():
    """Manage the keyring's account keys."""


@keys.command()
@click.argument("name")
@click.option("--recover", is_flag=True, help="Recover the key from a BIP39 mnemonic read from stdin")
@click.option("--index", type=click.IntRange(min=0), default=0, help="Address index N of m/44'/60'/0'/0/N")
@click.option("--no-backup", is_flag=True, help="Do not print the new mnemonic")
@click.option("--dry-run", is_flag=True, help="Derive and print the key without storing it")
@click.option("--multisig", default=None, help="Make a multisig key of these comma-separated stored keys")
@click.option("--multisig-threshold", type=click.IntRange(min=1), default=1,
              help="K of the K-of-N multisig (with --multisig)")
@click.option("--nosort", is_flag=True, help="Keep --multisig's order (default: sorted by address, as the SDK)")
@keyring_options
@output_option
def add(name, recover, index, no_backup, dry_run, multisig, multisig_threshold, nosort, **_):
    """Create a key from a new 24-word mnemonic (printed once), or recover one with --recover.

    With --multisig k1,k2,k3 --multisig-threshold 2: a 2-of-3 multisig key of stored keys (no secret).
    """
    from mnemonic import Mnemonic

    from chaind.crypto import keys as crypto_keys
    from chaind.keyring import Record

    ctx = click.get_current_context()
    ring = open_keyring(ctx)
    if not dry_run and name in ring.names():
        raise click.ClickException(f"key {name!r} already exists in the {ring.backend} keyring")
    if multisig is not None:
        _add_multisig(ctx, ring, name, multisig, multisig_threshold, nosort)
        return
    words = Mnemonic("english")
    if recover:
        phrase = " ".join(read_secret("your bip39 mnemonic").split())
        if not words.check(phrase):
            raise click.ClickException("invalid mnemonic")
    else:
        phrase = words.generate(strength=MNEMONIC_STRENGTH)
    key = crypto_keys.from_mnemonic(phrase, index)
    if dry_run:
        record = Record(name=name, address=key.address, pubkey=key.compressed_public_key)
    else:
        record = ring.add(name, key.private_key)
    out = key_output(ctx, record)
    show = not recover and not no_backup
    from chaind.cli.common import output_format

    if output_format(ctx) == "json":
        if show:
            out["mnemonic"] = phrase
        click.echo(json.dumps(out, separators=(",", ":")))
        return
    _print_records(ctx, [out], single=True)
    if show:
        click.echo("\n**Important** write this mnemonic phrase in a safe place.\n"
                   "It is the only way to recover your account if you ever forget your password.\n\n" + phrase,
                   err=True)


def _add_multisig(ctx, ring, name, names, threshold, nosort):
    records = [find_record(ring, ctx, n.strip()) for n in names.split(",") if n.strip()]
    if any(r.type == "multi" for r in records):
        raise click.ClickException("a multisig's members must be single keys")
    if len({r.address for r in records}) != len(records):
        raise click.ClickException("duplicate multisig keys")
    if not nosort:
        records.sort(key=lambda r: r.address)
    record = ring.add_multisig(name, threshold, [("eth_secp256k1", r.pubkey) for r in records])
    _print_records(ctx, [key_output(ctx, record)], single=True)


@keys.command("import-hex")
@click.argument("name")
@click.argument("private_key")
@keyring_options
def import_hex(name, private_key, **_):
    """Store a hex private key (0x optional) under NAME."""
    _import_hex(name, private_key)


@keys.command("unsafe-import-eth-key")
@click.argument("name")
@click.argument("pk")
@keyring_options
def unsafe_import_eth_key(name, pk, **_):
    """**UNSAFE** Import Ethereum private keys into the local keybase (Evmos' name for import-hex)."""
    _import_hex(name, pk)


def _import_hex(name, private_key):
    digits = private_key[2:] if private_key.startswith(("0x", "0X")) else private_key
    try:
        raw = bytes.fromhex(digits)
    except ValueError:
        raw = b""
    if len(raw) != 32:
        raise click.ClickException("invalid private key: want 32 bytes of hex")
    try:
        open_keyring(click.get_current_context()).add(name, raw)
    except ValueError as e:          # out of the curve's range
        raise click.ClickException(f"invalid private key: {e}") from None


@keys.command("import")
@click.argument("name")
@click.argument("keyfile", type=click.File("r"))
@keyring_options
def import_keyfile(name, keyfile, **_):
    """Store the key of a Web3 Secret Storage keystore file (as `keys export` writes) under NAME."""
    import eth_keyfile

    try:
        keystore = json.load(keyfile)
    except ValueError as e:
        raise click.ClickException(f"{keyfile.name} is not a JSON keystore: {e}") from None
    passphrase = read_secret("passphrase to decrypt the exported key")
    try:
        raw = bytes(eth_keyfile.decode_keyfile_json(keystore, passphrase.encode()))
    except ValueError:
        raise click.ClickException("wrong passphrase, or not a keystore file") from None
    except (KeyError, TypeError):
        raise click.ClickException(f"{keyfile.name} is not a keystore file") from None
    open_keyring(click.get_current_context()).add(name, raw)


@keys.command("list")
@click.option("-n", "--list-names", is_flag=True, help="Print the names only")
@keyring_options
@output_option
def list_keys(list_names, **_):
    """All keys of the keyring."""
    ctx = click.get_current_context()
    ring = open_keyring(ctx)
    if list_names:
        for name in ring.names():
            click.echo(name)
        return
    _print_records(ctx, [key_output(ctx, r) for r in ring.list()])


def find_record(ring, ctx, name_or_address):
    """A record by key name, or by address (bech32 or 0x) of a stored key."""
    from chaind.cli.common import AddressError, address_bytes

    if name_or_address in ring.names():
        return ring.get(name_or_address)
    try:
        address = address_bytes(name_or_address)
    except AddressError:
        return ring.get(name_or_address)         # not an address: report the missing name
    found = ring.by_address(address)
    if found is None:
        raise click.ClickException(f"no key with address {name_or_address} in the {ring.backend} keyring")
    return found


@keys.command()
@click.argument("name")
@click.option("-a", "--address", "address_only", is_flag=True, help="Print the address only")
@click.option("-p", "--pubkey", "pubkey_only", is_flag=True, help="Print the public key only")
@click.option("--bech", type=click.Choice(["acc", "val"]), default="acc", help="Address kind: acc or val")
@keyring_options
@output_option
def show(name, address_only, pubkey_only, bech, **_):
    """A key by name or address."""
    ctx = click.get_current_context()
    out = key_output(ctx, find_record(open_keyring(ctx), ctx, name), bech)
    if address_only and pubkey_only:
        raise click.UsageError("--address and --pubkey cannot both be given")
    if address_only:
        click.echo(out["address"])
    elif pubkey_only:
        click.echo(out["pubkey"])
    else:
        _print_records(ctx, [out], single=True)


@keys.command()
@click.argument("name")
@click.option("-y", "--yes", is_flag=True, help="Delete without asking")
@keyring_options
def delete(name, yes, **_):
    """Delete a key."""
    ring = open_keyring(click.get_current_context())
    ring.get(name)
    if not yes and not click.confirm("Key reference will be deleted. Continue?", err=True):
        raise click.ClickException("aborted: key not deleted")
    ring.delete(name)
    click.echo("Key deleted forever (uh oh!)", err=True)


@keys.command()
@click.argument("name")
@keyring_options
def export(name, **_):
    """Print a key as a Web3 Secret Storage (keystore v3) JSON, encrypted with a new passphrase."""
    import eth_keyfile

    raw = open_keyring(click.get_current_context()).private_key(name)
    passphrase = read_secret("passphrase to encrypt the exported key", confirm=True)
    if not passphrase:
        raise click.ClickException("the export passphrase must not be empty")
    click.echo(json.dumps(eth_keyfile.create_keyfile_json(raw, passphrase.encode(), kdf="scrypt")))


@keys.command("unsafe-export-eth-key")
@click.argument("name")
@click.option("-y", "--yes", is_flag=True, help="Export without asking")
@keyring_options
def unsafe_export_eth_key(name, yes, **_):
    """Print a key's private key as unencrypted hex."""
    ring = open_keyring(click.get_current_context())
    ring.get(name)
    if not yes and not click.confirm("WARNING: The private key will be exported as an unarmored hexadecimal "
                                     "string. USE AT YOUR OWN RISK. Continue?", err=True):
        raise click.ClickException("aborted: key not exported")
    click.echo(ring.private_key(name).hex().upper())


@keys.command()
def mnemonic():
    """Print a new 24-word BIP39 mnemonic."""
    from mnemonic import Mnemonic

    click.echo(Mnemonic("english").generate(strength=MNEMONIC_STRENGTH))
