"""A module's genesis, as the SDK's module manager knows it: DefaultGenesis, ValidateGenesis, InitGenesis and
ExportGenesis of its section of the genesis document, declared on its Module record (chain/module.py).
"""

import json
from typing import Callable

import attrs
from google.protobuf import json_format
from google.protobuf.message import Message

from chaind.store import evm_state


class GenesisError(ValueError):
    """A genesis document that cannot start a chain; the message names the field."""


@attrs.frozen
class GenesisContext:
    """What a module's section is read with, besides the section itself: the chain's document-level facts."""

    bech32_prefix: str
    base_denom: str          # the EVM denom (app_state.evm.params.evm_denom)
    bond_denom: str          # staking's bond denom (its params', else the base denom)
    precompiles: frozenset[bytes]   # the modules' precompiles' addresses (evm's static precompiles among them)


@attrs.frozen
class ModuleGenesis:
    """A module's genesis section: its JSON in the SDK's (or Evmos') shape, under app_state.<module name>
    (or `key`, a path into the document, for a section that lives elsewhere: consensus_params).

    - default(context): the section a new chain's genesis gets (DefaultGenesis), JSON; `context` gives the
      chain's identity (its prefix and denoms, which the SDK's app.go sets for its own chain).
    - validate(section, context): the section read and checked (ValidateGenesis); the section is None when the
      document has none. Returns what init takes; raises ValueError naming the field inside the section
      (the document's path to the section is prefixed by chain/genesis.py).
    - init(app, ctx, parsed): the module's state built from what validate returned (InitGenesis), once, when a
      new chain starts, in the registry's order.
    - export(app, view): the section of the committed state in `view` (ExportGenesis), JSON that validate
      takes and init rebuilds the same module state from; None for a module whose state its init derives.
    """

    default: Callable[[GenesisContext], dict]
    validate: Callable[[object, GenesisContext], object]
    init: Callable[[object, object, object], None]
    export: Callable[[object, object], dict] | None = None
    key: tuple | None = None

    def path(self, name: str) -> tuple:
        return self.key or ("app_state", name)


def to_json(message: Message) -> dict:
    """A protobuf message as the SDK's genesis JSON writes it (proto field names, unset fields too), in plain
    dicts (json_format writes an Any as an OrderedDict, which compares unequal to the same one read back)."""
    return json.loads(json_format.MessageToJson(message, preserving_proto_field_name=True,
                                                always_print_fields_with_no_presence=True))


def all_accounts(app, view):
    """The EVM's accounts at `view`'s height (CommittedAccounts.all_accounts): the view's own, shared by the
    modules an export reads them in; the committed block's for a context (a zero-height export's, whose changes
    move balances, not nonces)."""
    found = getattr(view.accounts, "all_accounts", None)
    if found is not None:
        return found()
    return evm_state.account_leaves(app.db, app.block_at(view.height)[1].evm_state_root)


def memoized(view, name, compute):
    """compute()'s result, once per view: an export's modules read the same whole-state sets (every holder, every
    known account) at its one view. A block's context (a zero-height export's) keeps none."""
    memo = getattr(view, "memo", None)
    if memo is None:
        return compute()
    if name not in memo:
        memo[name] = compute()
    return memo[name]
