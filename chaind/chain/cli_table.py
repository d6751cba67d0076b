"""What a module's CLI table says: one entry per query or message command, as plain data the CLI turns into commands.

A module's cli.py builds QUERY (a Queries) and TX (a Txs) from these; it imports neither the CLI (chaind.cli) nor,
at its top, its own package: the CLI loads it alone, so a query never waits for the node's code.
"""

# NamedTuples, not attrs or dataclasses: every CLI run loads a table, and typing (click loads it) makes them in
# well under a millisecond, where importing attrs costs ~10 ms and making seven dataclasses ~5 ms.
from collections.abc import Callable
from typing import NamedTuple

# What an argument's text becomes in the request (the CLI parses each kind, and words its errors):
#   text    the text as given
#   acc     an account address, bech32 or 0x, as this chain's bech32
#   val     a validator operator address, valoper bech32 or 0x, as this chain's valoper bech32
#   cons    a validator consensus address, valcons bech32 or 0x, or its consensus public key as JSON
#           ({"@type":"/cosmos.crypto.ed25519.PubKey","key":"..."}, what `comet show-validator` prints)
#   evm     an address, bech32 or 0x, as lower-case 0x hex
#   eip55   an address, bech32 or 0x, as EIP-55 checksummed 0x hex
#   uint    a positive integer (an int field)
#   amount  a non-negative integer amount written in digits (a string field, as sdk.Int)
#   coin    one positive coin, e.g. 10achain (a Coin field)
#   coins   positive coins, e.g. 10achain,5stake (a repeated Coin field)
KINDS = ("text", "acc", "val", "cons", "evm", "eip55", "uint", "amount", "coin", "coins")

FLAG_KINDS = ("text", "bool")
SIGNER_KINDS = ("acc", "val", "evm", "eip55")


class Arg(NamedTuple):
    """A positional argument filling one request field.

    parse, when given, replaces the kind: parse(text) returns the field's value or raises ValueError saying why.
    An optional argument (required=False) is left unset, or with signer_default set to the signer's address.
    many takes one or more values into a repeated field.
    """

    field: str
    kind: str = "text"
    name: str | None = None               # shown as NAME in the usage line; default the field's name
    required: bool = True
    signer_default: bool = False
    many: bool = False
    parse: Callable | None = None

    @property
    def metavar(self):
        return (self.name or self.field).upper()


class Flag(NamedTuple):
    """A --name option filling one request field (name's dashes as underscores, unless field says otherwise)."""

    name: str
    help: str
    kind: str = "text"
    default: object = ""
    field: str | None = None

    @property
    def field_name(self):
        return self.field or self.name.replace("-", "_")


class Narrow(NamedTuple):
    """An optional --flag that, when given, asks another RPC for just that one (e.g. one denom's balance):
    the positional arguments and the flag's field, no other flags, no pagination."""

    flag: str
    rpc: str
    help: str


class Query(NamedTuple):
    """One query command: `name` calls the service's method `rpc`.

    Pagination flags come with a request that has a pagination field, unless paginate says False.
    root_alias also puts the command at the query root (`query account`, as the SDK has it). With `shows`, the
    command prints that field of the response alone, and fails with `absent` when it is unset (as the SDK's
    hand-written `query upgrade plan` does).
    """

    name: str
    rpc: str
    help: str
    args: tuple = ()
    flags: tuple = ()
    narrow: Narrow | None = None
    paginate: bool = True
    root_alias: str | None = None
    shows: str | None = None
    absent: str = ""


class Queries(NamedTuple):
    """A module's query commands: `service` is the dotted name of the generated module (a query_pb2, e.g.
    chaind.pb.cosmos.bank.v1beta1.query_pb2) and `service_name` its service; help is the group's one line."""

    service: str
    help: str
    commands: tuple
    service_name: str = "Query"
    # The module's group below `query` when it is not the module's name, ibc-go's `query ibc client`: ("ibc",
    # "client"), with path_help the help line of each group before the last (help is the last's).
    path: tuple = ()
    path_help: tuple = ()
    custom: Callable | None = None      # custom(kit): hand-written query commands (kit: cli/autocli.py's QueryKit)


class Msg(NamedTuple):
    """One message command: the positional arguments fill the message's fields, the signer's address fills
    signer_field (as signer_kind writes it). The signer is --from, or the first positional FROM with from_arg.
    With precheck the node simulates the message first (an authority's message fails there, not in a block)."""

    name: str
    message: str                  # the message's name in the Txs' module, e.g. MsgSend
    help: str
    signer_field: str
    args: tuple = ()
    signer_kind: str = "acc"
    from_arg: bool = False
    from_help: str = "Signing key (name or address)"
    precheck: bool = False


class Txs(NamedTuple):
    """A module's tx commands: messages from `module` (the dotted name of a generated tx_pb2), and, where a table
    does not fit, custom(kit): hand-written click commands built with the tx plumbing the CLI passes in as kit.

    signers names the signer field of each message the hand-written commands build ({"MsgCreateValidator":
    "validator_address"}; a repeated field's first element's address, as cosmos.msg.v1.signer reads "inputs").
    """

    module: str
    help: str
    commands: tuple = ()
    custom: Callable | None = None
    signers: dict | None = None
    path: tuple = ()            # as Queries.path: `tx ibc client`
    path_help: tuple = ()
