"""`chaind debug`: address forms (bech32 kinds, hex, EIP-55), public keys and raw bytes, offline."""

import base64
import json
import re

import click

from chaind.cli.common import HelpGroup, address_bytes, home_option, prefix, to_bech32, to_hex


@click.group(cls=HelpGroup)
def debug():
    """Convert addresses, keys and bytes between their forms."""


@debug.command()
@click.argument("address")
@home_option
def addr(address, **_):
    """Every form of an address given as bech32 (any kind) or 0x hex."""
    ctx = click.get_current_context()
    raw = address_bytes(address)
    click.echo(f"Address bytes: {list(raw)}\n"
               f"Address (hex): {raw.hex().upper()}\n"
               f"Address (EIP-55): {to_hex(raw)}\n"
               f"Bech32 Acc: {to_bech32(prefix(ctx), raw)}\n"
               f"Bech32 Val: {to_bech32(prefix(ctx, 'val'), raw)}\n"
               f"Bech32 Con: {to_bech32(prefix(ctx, 'cons'), raw)}")


@debug.command()
@click.argument("pubkey")
@home_option
def pubkey(pubkey, **_):
    """The address of an eth_secp256k1 public key: JSON ({"@type","key"}), base64 or hex of 33 bytes."""
    ctx = click.get_current_context()
    text = pubkey.strip()
    raw = b""
    try:
        if text.startswith("{"):
            raw = base64.b64decode(json.loads(text)["key"], validate=True)
        elif re.fullmatch(r"(0x)?[0-9a-fA-F]{66}", text):
            raw = bytes.fromhex(text[2:] if text.startswith("0x") else text)
        else:
            raw = base64.b64decode(text, validate=True)
    except (ValueError, KeyError, TypeError):
        raw = b""
    if len(raw) != 33 or raw[0] not in (2, 3):
        raise click.ClickException(f"invalid public key {pubkey!r}: want a 33-byte compressed secp256k1 key")
    from chaind.crypto.keys import address_of_public_key

    try:
        address = address_of_public_key(raw)
    except Exception:  # noqa: BLE001 (any parse failure is the user's typo)
        raise click.ClickException(f"invalid public key {pubkey!r}: not a point of secp256k1") from None
    click.echo(f"Address (EIP-55): {to_hex(address)}\n"
               f"Bech32 Acc: {to_bech32(prefix(ctx), address)}\n"
               f"PubKey Hex: {raw.hex()}\n"
               f"PubKey Base64: {base64.b64encode(raw).decode()}")


@debug.command("raw-bytes")
@click.argument("raw")
def raw_bytes(raw):
    """Hex of a byte list as Go prints one: "[10 21 13 255]"."""
    inner = raw.strip()
    if not (inner.startswith("[") and inner.endswith("]")):
        raise click.ClickException("want a byte list like \"[10 21 13 255]\"")
    try:
        values = [int(v) for v in inner[1:-1].replace(",", " ").split()]
        data = bytes(values)
    except ValueError:
        raise click.ClickException("want numbers from 0 to 255 in the byte list") from None
    click.echo(data.hex().upper())
