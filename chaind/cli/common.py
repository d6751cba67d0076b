"""What the `chaind` subcommands share: lazy command loading, client.toml, flags, output, addresses.

Kept light on purpose: a query imports this, click, protobuf messages and the stdlib, nothing else.
"""

import importlib
import json
import os
import pathlib
import re
import sys
import tomllib

import bech32
import click

# The node's default home (chaind.home.DEFAULT_HOME; not imported, it pulls in the node's modules).
DEFAULT_HOME = "~/.chaind"
# The chain's account prefix when client.toml names none: the one `chaind init` and dev homes write.
DEFAULT_BECH32_PREFIX = "chain"
CLIENT_DEFAULTS = {"chain-id": "", "keyring-backend": "file", "output": "text", "node": "tcp://localhost:26657",
                   "broadcast-mode": "sync", "bech32-prefix": DEFAULT_BECH32_PREFIX}


class HelpGroup(click.Group):
    """A group whose --help lists each command's first sentence whole, wrapped under it, where click cuts it to
    the terminal's width with "..." (the SDK's commands print their Short in full)."""

    def format_commands(self, ctx, formatter):
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, short_help(command)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


# A sentence's end: a full stop after a word that is not an abbreviation's (e.g., i.e.), then a space.
_SENTENCE_END = re.compile(r"(?<!\.\w)\.(?=\s)")


def short_help(command):
    """A command's short help, or the first sentence of its help's first paragraph, whole."""
    if command.short_help:
        return command.short_help
    paragraph = " ".join((command.help or "").split("\n\n", 1)[0].split())
    end = _SENTENCE_END.search(paragraph)
    return paragraph[:end.end()] if end else paragraph


class LazyGroup(HelpGroup):
    """A group whose subcommands are imported only when run (or listed by --help)."""

    def __init__(self, *args, lazy=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def get_command(self, ctx, name):
        if name in self.lazy:
            target = self.lazy[name]
            if callable(target):                # builds the command (e.g. from the modules served)
                return target()
            module, attr = target.split(":")
            return getattr(importlib.import_module(module), attr)
        return super().get_command(ctx, name)

    def main(self, args=None, prog_name=None, **kwargs):
        # Every failure is one line on stderr and a non-zero exit, never a traceback or a usage dump.
        kwargs.setdefault("auto_envvar_prefix", None)
        try:
            super().main(args, prog_name, standalone_mode=False, **kwargs)
        except click.UsageError as e:
            hint = f" (see {e.ctx.command_path} --help)" if e.ctx is not None else ""
            _fail(e.format_message() + hint, e.exit_code)
        except click.ClickException as e:
            _fail(e.format_message(), e.exit_code)
        except (click.Abort, KeyboardInterrupt, EOFError):
            _fail("aborted", 1)
        except SystemExit:
            raise
        except Exception as e:  # noqa: BLE001 (a bug of ours: still one clear line)
            _fail(f"internal error: {type(e).__name__}: {e}", 1)
        sys.exit(0)


def pb(name):
    """A generated protobuf module by its dotted name under chaind.pb, imported when a command needs it (the CLI
    starts without them)."""
    return importlib.import_module("chaind.pb." + name)


def _fail(message, code):
    click.echo(f"Error: {message}", err=True)
    sys.exit(code)


# -- home and client.toml ----------------------------------------------------------------------

def home_path(home):
    return pathlib.Path(os.path.expanduser(home or DEFAULT_HOME))


def client_toml(home):
    return home_path(home) / "config" / "client.toml"


def client_config(home):
    """client.toml's settings over the defaults; a broken file is a clear error."""
    settings = dict(CLIENT_DEFAULTS)
    path = client_toml(home)
    try:
        with open(path, "rb") as f:
            found = tomllib.load(f)
    except FileNotFoundError:
        return settings
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise click.ClickException(f"cannot read {path}: {e}") from None
    unknown = set(found) - set(CLIENT_DEFAULTS)
    if unknown:
        raise click.ClickException(f"{path}: unknown setting(s) {', '.join(sorted(unknown))}")
    settings.update({k: str(v) for k, v in found.items()})
    return settings


def setting(ctx, name, given):
    """A flag's value, else client.toml's (read once per run), else the default."""
    if given not in (None, ""):
        return given
    root = ctx.find_root()
    if not hasattr(root, "chaind_config"):
        root.chaind_config = client_config(ctx.params.get("home"))
    return root.chaind_config[name]


def home_option(f):
    return click.option("--home", default=None, envvar="CHAIND_HOME",
                        help=f"Directory of config/client.toml and the keyrings (default {DEFAULT_HOME})")(f)


def node_options(f):
    f = click.option("--node", default=None, envvar="CHAIND_NODE",
                     help="<host>:<port> of the node's CometBFT RPC (default tcp://localhost:26657)")(f)
    return home_option(f)


def output_option(f):
    return click.option("-o", "--output", type=click.Choice(["text", "json"]), default=None,
                        help="Output format (default text: YAML)")(f)


def query_options(f):
    f = click.option("--height", type=click.IntRange(min=0), default=0,
                     help="Use a specific height to query state at (can fail if the node prunes state)")(f)
    return node_options(output_option(f))


def rpc_client(ctx, node=None):
    from chaind.cli.rpc import RpcClient

    return RpcClient(setting(ctx, "node", node if node is not None else ctx.params.get("node")))


def output_format(ctx):
    return setting(ctx, "output", ctx.params.get("output"))


def emit(ctx, value):
    """Print a JSON value (a dict from protojson) in the chosen format: YAML text or one-line JSON."""
    if output_format(ctx) == "json":
        click.echo(json.dumps(value, separators=(",", ":"), ensure_ascii=False))
    else:
        from chaind.cli import yamlout

        click.echo(yamlout.dump(value), nl=False)


def emit_proto(ctx, message):
    from chaind.cli import protojson

    emit(ctx, protojson.to_dict(message))


# -- addresses ---------------------------------------------------------------------------------

_HEX_ADDRESS = re.compile(r"0[xX][0-9a-fA-F]{40}\Z")


class AddressError(click.ClickException):
    pass


def address_bytes(text, prefix=None):
    """The 20 bytes of an address written as bech32 or 0x hex (EIP-55 checked when mixed case)."""
    if _HEX_ADDRESS.match(text):
        digits = text[2:]
        if digits != digits.lower() and digits != digits.upper():
            from eth_utils import is_checksum_address

            if not is_checksum_address(text):
                raise AddressError(f"invalid address {text!r}: bad EIP-55 checksum")
        return bytes.fromhex(digits)
    if text.startswith(("0x", "0X")):
        raise AddressError(f"invalid address {text!r}: want 0x and 40 hex digits")
    hrp, data = bech32.bech32_decode(text)
    if hrp is None or data is None:
        raise AddressError(f"invalid address {text!r}: {_bech32_checksum_failure(text) or 'neither bech32 nor 0x hex'}")
    if prefix is not None and hrp != prefix:
        raise AddressError(f"invalid address {text!r}: hrp does not match bech32 prefix: "
                           f"expected '{prefix}' got '{hrp}'")
    raw = bech32.convertbits(data, 5, 8, False)
    if raw is None or len(raw) != 20:
        raise AddressError(f"invalid address {text!r}: want 20 bytes")
    return bytes(raw)


def _bech32_checksum_failure(text):
    """The SDK's words when `text` is bech32 but for its last 6 characters (a typo), else None."""
    if text != text.lower() and text != text.upper():
        return None
    text = text.lower()
    hrp, _, rest = text.rpartition("1")
    if not hrp or len(rest) < 6 or any(c not in bech32.CHARSET for c in rest):
        return None
    data = [bech32.CHARSET.find(c) for c in rest]
    expected = "".join(bech32.CHARSET[d] for d in bech32.bech32_create_checksum(hrp, data[:-6]))
    return f"decoding bech32 failed: invalid checksum (expected {expected} got {rest[-6:]})"


def to_bech32(prefix, raw):
    return bech32.bech32_encode(prefix, bech32.convertbits(raw, 8, 5))


def to_hex(raw):
    from eth_utils import to_checksum_address

    return to_checksum_address(raw)


def prefix(ctx, kind="acc"):
    """The bech32 prefix of an address kind (acc, val, cons), from client.toml's bech32-prefix."""
    base = setting(ctx, "bech32-prefix", None)
    return {"acc": base, "val": base + "valoper", "cons": base + "valcons"}[kind]


def bech32_address(ctx, text, kind="acc"):
    """An address argument (bech32 or 0x) as the bech32 string of this chain's `kind` prefix."""
    wanted = prefix(ctx, kind)
    return to_bech32(wanted, address_bytes(text, None if text.startswith(("0x", "0X")) else wanted))
