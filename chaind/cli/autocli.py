"""Click commands built from modules' CLI tables (chain/cli_table.py): `query <module> ...` and `tx <module> ...`.

Each level loads lazily: listing modules reads only their tables; a command imports its protobuf module when built.
"""

import importlib
import importlib.util
import os
import sys
from typing import NamedTuple

import click

from chaind.chain.cli_table import FLAG_KINDS, KINDS, SIGNER_KINDS
from chaind.cli.coins import coin, positive_coins
from chaind.cli.common import (
    HelpGroup,
    address_bytes,
    bech32_address,
    emit_proto,
    prefix,
    query_options,
    rpc_client,
    to_bech32,
    to_hex,
)
from chaind.cli.pagination import page_request, pagination_options


def _pb(name):
    return importlib.import_module(name)


# -- modules -----------------------------------------------------------------------------------

MODULES_PACKAGE = "chaind.chain.modules"


class TableRef(NamedTuple):
    """A module as the CLI needs it: its name and the dotted name of its CLI table module (Module's fields)."""

    name: str
    cli: str | None


def builtin_modules():
    """The built-in modules with a CLI table: every chaind/chain/modules/<name>/cli.py.

    Found on disk, not through chain/registry.py: reading a Module record imports its package, hence the node's
    code (eth_utils, py-evm...), which a query must not wait for. test_autocli holds these equal to the
    registry's Module.cli.
    """
    package = importlib.import_module(MODULES_PACKAGE)
    found = []
    for folder in package.__path__:
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            if entry.is_dir() and os.path.isfile(os.path.join(entry.path, "cli.py")):
                found.append(TableRef(entry.name, f"{MODULES_PACKAGE}.{entry.name}.cli"))
    return found


def load_table(dotted):
    """A module's CLI table module, without running its package's __init__ where the file can be found.

    A table is plain data (chain/cli_table.py, click, protobuf names as strings), so it runs alone; its package's
    __init__ builds the module's Module and imports its keeper, messages and queries, which a CLI run never needs.
    """
    if dotted in sys.modules:
        return sys.modules[dotted]
    parent, leaf = dotted.rpartition(".")[::2]
    grand, package = parent.rpartition(".")[::2]
    if grand:
        try:
            folders = importlib.import_module(grand).__path__
        except (ImportError, AttributeError):
            folders = ()
        for folder in folders:
            path = os.path.join(folder, package, leaf + ".py")
            if os.path.isfile(path):
                spec = importlib.util.spec_from_file_location(dotted, path)
                module = importlib.util.module_from_spec(spec)
                sys.modules[dotted] = module
                try:
                    spec.loader.exec_module(module)
                except BaseException:
                    del sys.modules[dotted]
                    raise
                return module
    return importlib.import_module(dotted)


class Modules:
    """The modules a CLI serves: records with a name and a cli (the dotted name of their CLI table module).

    `source` is the list, or a callable giving it; a table is loaded when its module's commands are asked for."""

    def __init__(self, source):
        self._source = source
        self._paths = None
        self._tables = {}

    def names(self):
        if self._paths is None:
            modules = self._source() if callable(self._source) else self._source
            self._paths = {m.name: m.cli for m in modules if m.cli}
        return list(self._paths)

    def records(self):
        """The module records themselves (their messages' amino JSON signs amino-json txs)."""
        return self._source() if callable(self._source) else self._source

    def table(self, name, part):
        """The module's QUERY or TX table (`part`), or None."""
        if name not in self.names():
            return None
        if name not in self._tables:
            self._tables[name] = load_table(self._paths[name])
        return getattr(self._tables[name], part, None)


def signer_fields(modules):
    """{message type URL: its signer field} of every message the modules' TX tables build."""
    fields = {}
    for name in modules.names():
        table = modules.table(name, "TX")
        if table is None:
            continue
        pb = _pb(table.module)
        named = {**{e.message: e.signer_field for e in table.commands}, **(table.signers or {})}
        for message, field in named.items():
            fields["/" + getattr(pb, message).DESCRIPTOR.full_name] = field
    return fields


class ModuleGroup(HelpGroup):
    """A group whose subcommands are its own plus one group per module with a `part` (QUERY or TX) table.

    build(name, table) makes a module's group; a Query's root_alias is also found at this level."""

    def __init__(self, *args, modules=None, part=None, build=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.modules, self.part, self.build = modules, part, build

    def _tables(self):
        """(module name, its table, the table's path below this group) of every module with a `part` table."""
        for module in self.modules.names():
            table = self.modules.table(module, self.part)
            if table is not None:
                yield module, table, tuple(getattr(table, "path", ())) or (module,)

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | {path[0] for _, _, path in self._tables()})

    def get_command(self, ctx, name):
        command = super().get_command(ctx, name)
        if command is not None:
            return command
        table = self.modules.table(name, self.part)
        if table is not None and not getattr(table, "path", ()):
            return self.build(name, table)      # the common case, without loading every other table
        placed = [(table, path) for _, table, path in self._tables() if path[0] == name]
        if placed:
            return _path_group(name, placed, 1, self.build)
        for module in self.modules.names():
            table = self.modules.table(module, self.part)
            for entry in getattr(table, "commands", ()):
                if getattr(entry, "root_alias", None) == name:
                    return self.build(module, table).get_command(ctx, entry.name)
        return None


def _path_group(name, placed, depth, build):
    """The group `name` at `depth` of the tables' paths: a table whose path ends here is its module's group
    (build), else a group of the tables below (`query ibc` holding `client`, `connection`...)."""
    for table, path in placed:
        if len(path) == depth:
            return build(name, table)
    below = {}
    for table, path in placed:
        below.setdefault(path[depth], []).append((table, path))
    helps = [table.path_help[depth - 1] for table, _ in placed if len(table.path_help) >= depth]
    group = HelpGroup(name, help=helps[0] if helps else "")
    for child, members in sorted(below.items()):
        group.add_command(_path_group(child, members, depth + 1, build), child)
    return group


class TableGroup(HelpGroup):
    """One module's commands: `make(entry)` builds a table entry's command when it is asked for."""

    def __init__(self, *args, entries=(), make=None, extra=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.entries = {e.name: e for e in entries}
        self.make, self.extra = make, extra
        self._built = {}

    def _extra(self):
        if self.extra is not None:
            for command in self.extra():
                self.add_command(command)
            self.extra = None

    def list_commands(self, ctx):
        self._extra()
        return sorted(set(super().list_commands(ctx)) | set(self.entries))

    def get_command(self, ctx, name):
        if name in self.entries:
            if name not in self._built:
                self._built[name] = self.make(self.entries[name])
            return self._built[name]
        self._extra()
        return super().get_command(ctx, name)


# -- arguments -----------------------------------------------------------------------------------

def convert(ctx, arg, text):
    """A positional argument's text as its request field's value (by arg.parse or arg.kind)."""
    if arg.parse is not None:
        try:
            return arg.parse(text)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint=arg.metavar) from None
    kind = arg.kind
    if kind == "cons" and text.lstrip().startswith("{"):
        return to_bech32(prefix(ctx, "cons"), consensus_address_of_json(text))
    if kind in ("acc", "val", "cons"):
        return bech32_address(ctx, text, kind)
    if kind in ("evm", "eip55"):
        return render(ctx, kind, address_bytes(text))
    if kind == "amount":
        if not text.isdigit():
            raise click.ClickException(f"invalid amount {text!r}: want an integer")
        return text
    if kind == "coin":
        return coin(text)
    if kind == "coins":
        return positive_coins(text)
    return text


def consensus_address_of_json(text):
    """The consensus address of an ed25519 public key as JSON: the first 20 bytes of its SHA-256."""
    import base64
    import binascii
    import hashlib
    import json

    try:
        found = json.loads(text)
        key = base64.b64decode(found["key"], validate=True) if isinstance(found, dict) else b""
    except (ValueError, KeyError, TypeError, binascii.Error):
        raise click.BadParameter(f"not a consensus public key: {text!r}") from None
    if not isinstance(found, dict) or found.get("@type") != "/cosmos.crypto.ed25519.PubKey" or len(key) != 32:
        raise click.BadParameter(f"want an ed25519 consensus public key ({{\"@type\":"
                                 f"\"/cosmos.crypto.ed25519.PubKey\",\"key\":...}}), got {text!r}")
    return hashlib.sha256(key).digest()[:20]


def render(ctx, kind, raw):
    """20 address bytes as an address kind writes them."""
    if kind == "acc":
        return to_bech32(prefix(ctx), raw)
    if kind == "val":
        return to_bech32(prefix(ctx, "val"), raw)
    if kind == "evm":
        return "0x" + raw.hex()
    return to_hex(raw)


def _check(entry, what, kind, kinds):
    if kind not in kinds:
        raise ValueError(f"{entry.name}: {what} kind {kind!r}: want one of {', '.join(kinds)}")


def _arguments(f, entry, first=0):
    for i, arg in reversed(list(enumerate(entry.args, first))):
        _check(entry, arg.metavar, arg.kind, KINDS)
        kind = click.IntRange(min=1) if arg.kind == "uint" and arg.parse is None else None
        metavar = f"{arg.metavar}..." if arg.many else arg.metavar if arg.required else f"[{arg.metavar}]"
        f = click.argument(f"arg{i}", metavar=metavar, type=kind, nargs=-1 if arg.many else 1,
                           required=arg.required)(f)
    return f


def _values(ctx, args, params, signer=None, first=0):
    fields = {}
    for i, arg in enumerate(args, first):
        value = params[f"arg{i}"]
        if arg.many:
            fields[arg.field] = [convert(ctx, arg, v) for v in value]
        elif value is not None:
            fields[arg.field] = value if isinstance(value, int) else convert(ctx, arg, value)
        elif arg.signer_default and signer is not None:
            fields[arg.field] = render(ctx, arg.kind, signer())
    return fields


# -- queries -------------------------------------------------------------------------------------

class QueryKit:
    """What a module's hand-written query commands get from the CLI (its cli.py imports no chaind.cli)."""

    query_options = staticmethod(query_options)
    rpc_client = staticmethod(rpc_client)
    emit_proto = staticmethod(emit_proto)


def query_group(name, table):
    """`query <name>`: one command per Query of the module's Queries, and its hand-written ones (custom(kit))."""
    extra = (lambda: table.custom(QueryKit)) if table.custom is not None else None
    return TableGroup(name, help=table.help, entries=table.commands, make=lambda e: query_command(table, e),
                      extra=extra)


def _has_pagination(table, rpc):
    service = _pb(table.service).DESCRIPTOR.services_by_name[table.service_name]
    return "pagination" in service.methods_by_name[rpc].input_type.fields_by_name


def query_command(table, entry):
    paginated = entry.paginate and _has_pagination(table, entry.rpc)

    def run(**params):
        ctx = click.get_current_context()
        fields = _values(ctx, entry.args, params)
        rpc = entry.rpc
        if entry.narrow is not None and params["narrow"]:
            rpc = entry.narrow.rpc
            fields[entry.narrow.flag.replace("-", "_")] = params["narrow"]
        else:
            for i, flag in enumerate(entry.flags):
                fields[flag.field_name] = params[f"flag{i}"]
            if paginated:
                fields["pagination"] = page_request(params)
        response = rpc_client(ctx).query(_pb(table.service), table.service_name, rpc,
                                          at_height=params.get("height", 0), **fields)
        if entry.shows is not None:
            if not response.HasField(entry.shows):
                raise click.ClickException(entry.absent)
            response = getattr(response, entry.shows)
        emit_proto(ctx, response)

    f = query_options(run)
    if paginated:
        f = pagination_options(f)
    for i, flag in reversed(list(enumerate(entry.flags))):
        _check(entry, f"--{flag.name}", flag.kind, FLAG_KINDS)
        f = click.option(f"--{flag.name}", f"flag{i}", is_flag=flag.kind == "bool",
                         default=False if flag.kind == "bool" else flag.default, help=flag.help)(f)
    if entry.narrow is not None:
        f = click.option(f"--{entry.narrow.flag}", "narrow", default=None, help=entry.narrow.help)(f)
    return click.command(entry.name, help=entry.help)(_arguments(f, entry))


# -- txs -----------------------------------------------------------------------------------------

def tx_group(name, table, kit):
    """`tx <name>`: one command per Msg of the module's Txs, and its hand-written ones (custom(kit))."""
    extra = (lambda: table.custom(kit)) if table.custom is not None else None
    return TableGroup(name, help=table.help, entries=table.commands, make=lambda e: msg_command(table, e, kit),
                      extra=extra)


def msg_command(table, entry, kit):
    _check(entry, "signer", entry.signer_kind, SIGNER_KINDS)
    first = 1 if entry.from_arg else 0

    def run(**params):
        ctx = click.get_current_context()
        from_ = params["arg0"] if entry.from_arg else params["from_"]
        sender = []

        def signer():
            if not sender:
                sender.append(kit.sender_address(ctx, from_))
            return sender[0]

        fields = _values(ctx, entry.args, params, signer, first)
        fields[entry.signer_field] = render(ctx, entry.signer_kind, signer())
        message = getattr(_pb(table.module), entry.message)(**fields)
        kit.generate_or_broadcast(ctx, from_, [("/" + message.DESCRIPTOR.full_name, message)],
                                  precheck=entry.precheck)

    f = kit.tx_options(run)
    if not entry.from_arg:
        f = click.option("--from", "from_", required=True, help=entry.from_help)(f)
    f = _arguments(f, entry, first)
    if entry.from_arg:
        f = click.argument("arg0", metavar="FROM")(f)
    return click.command(entry.name, help=entry.help)(f)
