"""What a native module is: one package that owns its state, messages, queries, genesis, block hooks and CLI.

A module package exposes MODULE, a Module; chain/registry.py lists the built-in ones, and every face
(gRPC, abci_query, REST, the CLI) serves whatever modules the registry it is given holds.
"""

from typing import Callable

import attrs

from chaind.chain.module_genesis import ModuleGenesis


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

    messages: object
    stubs: object
    name: str
    servicer: Callable | None = None
    rest: tuple | None = None
    uses_node_services: bool = False

    def make_servicer(self, app, settings, node_services):
        if self.uses_node_services:
            return self.servicer(app, settings, node_services)
        return self.servicer(app, settings)

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
class Module:
    """Everything the app and the faces need to know of one module.

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
    - staking_hooks: an object with the SDK's staking hooks the module listens to, each called
      hook(app, ctx, ...) and returning events: after_validator_created(operator),
      after_validator_removed(operator), before_delegation_created(delegator, operator),
      before_delegation_shares_modified(delegator, operator), after_delegation_modified(delegator, operator),
      after_validator_bonded(consensus address, operator), before_validator_slashed(operator, fraction atomics);
      the object has the hooks it listens to.
    - epoch_hooks: likewise for x/epochs' hooks: after_epoch_end(identifier, number),
      before_epoch_start(identifier, number).
    - cli: the dotted name of the module's CLI table (imported only by the CLI, so the node never loads it).
    - time_reach(view): the longest time past a block's time that the module writes into a time key at the
      view's params (staking's unbonding time...): chain/block_time.py bounds block times by it.
    """

    name: str
    messages: tuple = ()
    services: tuple = ()
    genesis: ModuleGenesis | None = None
    pre_block: Callable | None = None
    begin_block: Callable | None = None
    end_block: Callable | None = None
    module_accounts: dict = attrs.field(factory=dict)
    invariants: tuple = ()
    amino_shapes: dict = attrs.field(factory=dict)
    staking_hooks: object = None
    epoch_hooks: object = None
    cli: str | None = None
    time_reach: Callable | None = None
