"""What a native module is: one package that owns its state, stores, messages, queries, genesis, precompiles,
hooks and CLI.

A module package exposes MODULE, a Module; chain/registry.py lists the built-in ones, and the App, the
multistore, the EVM and every face (gRPC, abci_query, REST, the CLI) take whatever modules the registry they are
given holds.
"""

from collections.abc import Callable, Iterable, Mapping
from types import ModuleType
from typing import Any

import attrs

from chaind.chain.amino import Amino
from chaind.chain.module_genesis import ModuleGenesis
from chaind.chain.msgs import MsgHandler
from chaind.store.layout import Entries

# A precompile's runner, py-evm's signature: run(computation).
Runner = Callable[[object], object]


@attrs.frozen
class QueryService:
    """A gRPC service a module serves (its Query service, usually), described for every face at once.

    messages/stubs are the generated *_pb2 and *_pb2_grpc modules, name the service's name inside them
    ("Query"), and servicer(app, settings) builds a module's implementation (settings: the node's
    config.Settings), which reads through App.view (chain/queries.py); the node builds its own services
    (api/cosmos/), which have none. With uses_node_services, servicer(app, settings, node_services) also
    gets the NodeServices the node shares (its call runner and trace jobs). rest lists (HTTP method, path template, rpc
    name) routes for the REST gateway; None takes the `// REST:` lines compiled from protos/.
    """

    messages: ModuleType
    stubs: ModuleType
    name: str
    servicer: Callable | None = None
    rest: tuple | None = None
    uses_node_services: bool = False

    def make_servicer(self, app: Any, settings: Any, node_services: Any) -> Any:
        servicer = self.servicer
        if servicer is None:
            raise TypeError(f"{self.full_name} is the node's own service: it has no servicer to make")
        if self.uses_node_services:
            return servicer(app, settings, node_services)
        return servicer(app, settings)

    @property
    def descriptor(self):
        return self.messages.DESCRIPTOR.services_by_name[self.name]

    @property
    def full_name(self):
        return self.descriptor.full_name

    def add_to_server(self, servicer, server):
        getattr(self.stubs, f"add_{self.name}Servicer_to_server")(servicer, server)


@attrs.frozen
class NodeServices:
    """What a node's services lend the query servicers that ask for it (QueryService.uses_node_services), so
    that core imports no service: calls, the CallRunner eth_call runs (api/calls.py), under [json-rpc]'s
    gas-cap and evm-timeout; traces, the HeldTraces (api/held_traces.py) that run trace jobs on the
    TracePool debug_trace* runs on too, each result held whole."""

    calls: object
    traces: object


@attrs.frozen
class Store:
    """An IAVL store a module mounts in the multistore (the SDK's store key), and how its keys are laid out there.

    name: the store's name in the commit info (auth's is "acc"): a module's native keys
    (`keys.compose(module name, ...)`) go to it. mounted: the store is in every version's commit info, empty or
    not, as the SDK mounts its stores (chaind's first multistore mounted acc, bank, erc20 and staking only; the
    others join the commit info at their first write, and changing that would change app hashes). layout(bech32
    prefix) gives the module's Entries (store/layout.py): the SDK's key layout of the keys light clients and
    relayers read, their values in the SDK's encoding; None keeps every key as the rest of its native key.
    """

    name: str
    mounted: bool = False
    layout: Callable[[str], Entries] | None = None


@attrs.frozen
class HookFamily:
    """A set of hooks one module calls and others listen to (the SDK's StakingHooks, EpochHooks): the provider
    declares it in Module.provides_hooks and calls it with run_hook; a listener gives, in Module.hooks, an
    object with the hooks it listens to as methods, each called hook(app, ctx, *args) and returning events."""

    name: str
    hooks: tuple[str, ...]


@attrs.frozen
class Module:
    """Everything the app and the faces need to know of one module.

    - keeper(app): builds the module's keeper once, from what it uses (the genesis' constants, the keepers of
      the modules before it in the registry, in app.keepers); the App keeps it in app.keepers[name]. A keeper's
      methods take the state they read (a view at any height, or a block's context) or the block context they
      write as their first argument: CONTRIBUTING.rst's "The keeper".
    - messages: MsgHandlers (chain/msgs.py), routed by type URL.
    - services: QueryServices, served over gRPC, abci_query and REST.
    - genesis: its ModuleGenesis (chain/module_genesis.py): the default, validate, init and export of its
      section of the genesis document; None for a module without one.
    - pre_block(app, ctx): runs first in a block, before every begin_block (the SDK's PreBlocker: x/upgrade);
      it may raise chain/halt.py's ChainHalt to refuse the block.
    - begin_block(app, ctx) / end_block(app, ctx): block hooks; they add block events to ctx.events and
      validator power changes to ctx.validator_updates.
    - module_accounts: {name: (address, permissions)}, as x/auth's permission map lists them.
    - invariants: (name, check) pairs; check(app, view) returns None, or a message saying what broke.
    - amino_shapes: {proto class: chain/amino.py's Amino} of the module's own nested message types whose
      amino JSON differs from the defaults (its messages carry theirs on MsgHandler.amino).
    - store: the IAVL Store it mounts, with its key layout; None: a store named as the module, its keys as
      they are (a module that writes nothing has no store).
    - precompiles: {20-byte address: run(computation)}: the EVM precompiles it serves (cosmos/evm's static ones,
      at their addresses); each gets an account with code at genesis (chain/modules/evm/genesis.py), and
      evm params' active_static_precompiles turns it off and on.
    - provides_hooks: the HookFamilies it calls (staking: the SDK's staking hooks).
    - hooks: {hook family name: object with the family's hooks it listens to}.
    - ibc_middleware: {IBC application module name: wrap(app, callbacks)}: IBC middleware the module puts around
      that application's port callbacks (Evmos' app.go stacks erc20's on transfer's); 04-channel composes the
      stack when the application binds its port (ibc_stack), the first module listed innermost.
    - cli: the dotted name of the module's CLI table (imported only by the CLI, so the node never loads it).
    - time_reach(view): the longest time past a block's time that the module writes into a time key at the
      view's params (staking's unbonding time...): chain/block_time.py bounds block times by it.

    Its protos need no declaration: setup.py compiles every top-level package under protos/.
    """

    name: str
    keeper: Callable[[object], object] | None = None
    messages: tuple[MsgHandler, ...] = ()
    services: tuple[QueryService, ...] = ()
    genesis: ModuleGenesis | None = None
    pre_block: Callable | None = None
    begin_block: Callable | None = None
    end_block: Callable | None = None
    module_accounts: dict[str, tuple[bytes, tuple[str, ...]]] = attrs.field(factory=dict)
    invariants: tuple[tuple[str, Callable], ...] = ()
    amino_shapes: dict[type, Amino] = attrs.field(factory=dict)
    store: Store | None = None
    precompiles: Mapping[bytes, Runner] = attrs.field(factory=dict)
    provides_hooks: tuple[HookFamily, ...] = ()
    hooks: Mapping[str, object] = attrs.field(factory=dict)
    ibc_middleware: Mapping[str, Callable] = attrs.field(factory=dict)
    cli: str | None = None
    time_reach: Callable | None = None

    @property
    def store_name(self) -> str:
        return self.name if self.store is None else self.store.name


def precompiles_of(modules: Iterable[Module]) -> dict[bytes, Runner]:
    """{address: run} of every module's precompiles; ValueError when two modules claim one address."""
    found: dict[bytes, Runner] = {}
    owners: dict[bytes, str] = {}
    for module in modules:
        for address, run in module.precompiles.items():
            if address in found:
                raise ValueError(f"modules {owners[address]} and {module.name} both serve a precompile at "
                                 f"0x{address.hex()}")
            found[address], owners[address] = run, module.name
    return found


def stores_of(modules: Iterable[Module], bech32_prefix: str) -> dict[bytes, tuple[str, Entries | None]]:
    """{module name as bytes: (its store's name, its Entries or None)}, what store/layout.py places keys by."""
    return {module.name.encode(): (module.store_name, module.store.layout(bech32_prefix)
                                   if module.store is not None and module.store.layout is not None else None)
            for module in modules}


def mounted_stores(modules: Iterable[Module]) -> tuple[str, ...]:
    """The names of the stores every version's commit info holds, empty or not."""
    return tuple(m.store.name for m in modules if m.store is not None and m.store.mounted)


def hook_listeners(modules: Iterable[Module], family: str) -> tuple[object, ...]:
    """The listeners of hook family `family`, in the modules' order."""
    return tuple(m.hooks[family] for m in modules if family in m.hooks)


def run_hook(app: Any, ctx: Any, listeners: Iterable[object], name: str, *args: Any) -> list:
    """The events of hook `name` called on every listener that has it, in order."""
    events: list = []
    for listener in listeners:
        hook = getattr(listener, name, None)
        if hook is not None:
            events += hook(app, ctx, *args)
    return events


def ibc_stack(app: Any, modules: Iterable[Module], application: str, callbacks: object) -> object:
    """The port callbacks of IBC application module `application` wrapped by every module's middleware for it, in
    the modules' order (the first innermost), as Evmos' app.go builds its transfer stack."""
    for module in modules:
        wrap = module.ibc_middleware.get(application)
        if wrap is not None:
            callbacks = wrap(app, callbacks)
    return callbacks


def check_hooks(modules: Iterable[Module]) -> None:
    """ValueError when a module listens to a hook family no module provides, or gives a hook the family lacks
    (a misspelt hook would never be called)."""
    modules = tuple(modules)
    families = {family.name: family for m in modules for family in m.provides_hooks}
    for m in modules:
        for name, listener in m.hooks.items():
            family = families.get(name)
            if family is None:
                raise ValueError(f"module {m.name} listens to {name} hooks, which no module provides")
            unknown = sorted(h for h in dir(listener) if not h.startswith("_") and h not in family.hooks)
            if unknown:
                raise ValueError(f"module {m.name}'s {name} hooks have no {', '.join(unknown)}: the family's hooks "
                                 f"are {', '.join(family.hooks)}")
