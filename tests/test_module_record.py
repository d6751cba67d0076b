"""What the module record declares is what the App, the multistore and the EVM run: stores, precompiles and
hooks come from the registry, and a wrong declaration is refused when the App starts."""

import pytest

from chain_driver import Chain
from chaind.chain import registry
from chaind.chain.module import HookFamily, Module, Store, check_hooks, mounted_stores, precompiles_of
from chaind.chain.modules.staking.hooks import STAKING_HOOKS
from chaind.store.iavl.node import EMPTY_ROOT


def test_the_registry_declares_what_the_central_lists_held():
    # cosmos/evm's addresses of the native modules' precompiles, each served by its own module.
    owners = {m.name: sorted(a.hex()[-4:] for a in m.precompiles) for m in registry.MODULES if m.precompiles}
    assert owners == {"bank": ["0804"], "distribution": ["0801"], "gov": ["0805"], "ibc_client": ["0807"],
                      "slashing": ["0806"], "staking": ["0800"],
                      "transfer": ["0802"]}
    # The stores the first multistore mounted (the app hashes of existing chains depend on them), and the SDK's
    # store keys of the modules whose store is not named as they are.
    assert sorted(mounted_stores(registry.MODULES)) == ["acc", "bank", "erc20", "staking"]
    renamed = {m.name: m.store_name for m in registry.MODULES if m.store_name != m.name}
    assert renamed == {"auth": "acc", "evm": "evmparams", "ibc_client": "ibc", "ibc_connection": "ibc",
                       "ibc_channel": "ibc"}
    assert [f.name for m in registry.MODULES for f in m.provides_hooks] == ["epochs", "staking"]
    assert sorted(m.name for m in registry.MODULES if "staking" in m.hooks) == ["distribution", "slashing"]
    assert [m.name for m in registry.MODULES if "epochs" in m.hooks] == ["inflation"]


def test_two_modules_serving_one_precompile_address_are_refused():
    address = (0x804).to_bytes(20, "big")
    duplicate = Module(name="bank2", precompiles={address: lambda computation: computation})
    with pytest.raises(ValueError, match="modules bank and bank2 both serve a precompile at 0x0+804"):
        precompiles_of((*registry.MODULES, duplicate))


class _Hooks:
    def after_delegation_modifed(self, app, ctx, delegator, operator):     # misspelt
        return []


def test_a_listener_of_an_unknown_family_or_hook_is_refused():
    with pytest.raises(ValueError, match="module x listens to votes hooks, which no module provides"):
        check_hooks((*registry.MODULES, Module(name="x", hooks={"votes": _Hooks()})))
    with pytest.raises(ValueError, match="module x's staking hooks have no after_delegation_modifed"):
        check_hooks((*registry.MODULES, Module(name="x", hooks={STAKING_HOOKS.name: _Hooks()})))
    provider = Module(name="votes", provides_hooks=(HookFamily("votes", ("after_delegation_modifed",)),))
    check_hooks((provider, Module(name="x", hooks={"votes": _Hooks()})))


def test_a_modules_store_and_keeper_reach_the_app(tmp_path):
    class Keeper:
        def __init__(self, app):
            self.earlier = app.keepers["extra0"]

    extra = (Module(name="extra0", keeper=lambda app: "first"),
             Module(name="extra1", keeper=Keeper, store=Store("extra1store", mounted=True)))
    chain = Chain(tmp_path, "db", modules=(*registry.MODULES, *extra))
    assert chain.app.keepers["extra1"].earlier == "first"
    assert chain.app.stores.layout.store_name("extra1") == "extra1store"
    # A mounted store is in the commit info from the first block, empty.
    chain.block([])
    assert chain.app.store_version().root_of("extra1store") == EMPTY_ROOT
