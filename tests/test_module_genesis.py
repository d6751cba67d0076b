"""Each module's genesis (chain/module_genesis.py): a dev chain with activity exports every module's section, the
exported document validates, and a new chain started from it has the same module state; a broken section is
refused with the field named."""

import copy

import pytest
from eth_utils import to_checksum_address

import busy_chain
from busy_chain import VESTED, S
from chain_driver import PROPOSER, RECIPIENTS
from chaind.chain import genesis as genesis_mod
from chaind.chain.app import App
from chaind.chain.genesis import Genesis, GenesisError
from chaind.chain.module import precompiles_of
from chaind.chain.module_genesis import GenesisContext
from chaind.chain.modules import gov, staking
from chaind.chain.registry import MODULES
from chaind.store.db import Database

busy = busy_chain.busy     # the fixture


def _import(tmp_path, doc):
    """An App started from genesis document `doc`, at its genesis height."""
    return App(Database(tmp_path / "imported"), Genesis.from_document(doc))


def test_every_module_exports_a_section_that_validates(busy):
    chain, contract, _ = busy
    doc = genesis_mod.export_document(chain.app)
    found = Genesis.from_document(doc)
    assert doc["initial_height"] == str(chain.app.height + 1)
    [validator] = doc["validators"]
    assert (validator["power"], validator["name"]) == ("1005", "test")
    exporting = [m.name for m in MODULES if m.genesis is not None and m.genesis.export is not None]
    assert set(found.sections) >= set(exporting) and "consensus_params" in doc
    app_state = doc["app_state"]
    assert app_state["staking"]["exported"] is True
    assert [p["id"] for p in app_state["gov"]["proposals"]] == ["1"] and len(app_state["gov"]["votes"]) == 1
    [account] = [a for a in app_state["evm"]["accounts"] if a["address"] == to_checksum_address(contract)]
    assert account["storage"] == [{"key": "0x" + "00" * 32, "value": "0x" + "00" * 31 + "07"}]
    [child] = [a for a in app_state["evm"]["accounts"] if a["address"] == to_checksum_address(chain.child)]
    assert child == {"address": to_checksum_address(chain.child), "code": "",
                     "storage": [{"key": "0x" + "00" * 32, "value": "0x" + "00" * 31 + "09"}]}
    assert len(app_state["feegrant"]["allowances"]) == 1 and len(app_state["authz"]["authorization"]) == 1
    assert [a["@type"] for a in app_state["auth"]["accounts"] if a["@type"].startswith("/cosmos.vesting")] == [
        "/cosmos.vesting.v1beta1.ContinuousVestingAccount"]
    assert any(p["contract_owner"] == "OWNER_EXTERNAL" for p in app_state["erc20"]["token_pairs"])


def test_an_export_at_a_past_height_has_that_heights_state(busy):
    chain, contract, _ = busy
    doc = genesis_mod.export_document(chain.app, 1)
    assert doc["initial_height"] == "2" and Genesis.from_document(doc)
    app_state = doc["app_state"]
    assert app_state["gov"]["proposals"] == [] and app_state["feegrant"]["allowances"] == []
    [account] = [a for a in app_state["evm"]["accounts"] if a["address"] == to_checksum_address(contract)]
    assert account["storage"] == []            # slot 0 is written at height 2
    assert len(app_state["staking"]["delegations"]) == 1


def test_a_chain_started_from_the_export_has_the_same_module_state(busy, tmp_path):
    chain, contract, token = busy
    height = chain.app.height
    doc = genesis_mod.export_document(chain.app)
    imported = _import(tmp_path, doc)
    old, new = chain.app.view(height), imported.view()
    assert new.height == height
    bank, prefix = chain.app.keepers["bank"], chain.genesis.bech32_prefix
    holders = [key.address for key in chain.keys] + RECIPIENTS + [staking.BONDED_POOL, contract, VESTED]
    for address in holders:
        assert imported.keepers["bank"].all_balances(new, address) == bank.all_balances(old, address)
    assert imported.keepers["bank"].total_supply(new) == bank.total_supply(old)
    keeper = chain.app.keepers["staking"]
    assert keeper.validators(new) == keeper.validators(old)
    k2, k0 = chain.keys[2].address, chain.keys[0].address
    assert keeper.delegation(new, k2, k0) == keeper.delegation(old, k2, k0) > 0
    assert keeper.last_powers(new) == keeper.last_powers(old)
    gov_keeper = chain.app.keepers["gov"]
    assert gov_keeper.proposals(new) == gov_keeper.proposals(old)
    assert gov_keeper.votes(new, 1) == gov_keeper.votes(old, 1) and gov_keeper.deposits(new, 1) == \
        gov_keeper.deposits(old, 1)
    assert gov_keeper.in_voting_period(new, 1)
    pairs = chain.app.keepers["erc20"]
    assert pairs.all_pairs(new) == pairs.all_pairs(old) and pairs.pair_at(new, token) is not None
    assert new.accounts.get_storage(contract, 0) == old.accounts.get_storage(contract, 0) == 7
    assert new.accounts.get_code(contract) == old.accounts.get_code(contract)
    assert new.accounts.get_storage(chain.child, 0) == old.accounts.get_storage(chain.child, 0) == 9
    assert new.accounts.get_nonce(chain.child) == old.accounts.get_nonce(chain.child) == 1
    assert new.accounts.get_nonce(chain.keys[1].address) == old.accounts.get_nonce(chain.keys[1].address)
    assert imported.keepers["auth"].vesting_account(new, VESTED) == \
        chain.app.keepers["auth"].vesting_account(old, VESTED) is not None
    assert imported.keepers["authz"].all_grants(new) == chain.app.keepers["authz"].all_grants(old) != []
    # Every module's export of the new chain is the old chain's, but for what a new chain starts afresh: the
    # epochs' start heights (its first height, as Evmos' InitGenesis sets them) and the last block's gas.
    again = genesis_mod.export_document(imported)["app_state"]
    for name, section in doc["app_state"].items():
        if name == "epochs":
            section = {"epochs": [{**e, "current_epoch_start_height": str(height + 1)} for e in section["epochs"]]}
        if name == "feemarket":
            section = {**section, "block_gas": "0"}
        assert again[name] == section, name
    # Every invariant holds on the new chain's state, and it makes blocks.
    for module, route, check in imported.keepers["crisis"].routes:
        assert check(imported, new) is None, (module, route)
    block, puts = imported.finalize_block([], chain.clock + S, PROPOSER)
    imported.commit(block, puts)
    assert imported.height == height + 1 and prefix == imported.genesis.bech32_prefix


def _refused(doc, match):
    with pytest.raises(GenesisError, match=match):
        Genesis.from_document(doc)


def test_validate_refuses_a_broken_section_naming_the_field(busy):
    chain, _, _ = busy
    doc = genesis_mod.export_document(chain.app)

    def broken(change):
        copied = copy.deepcopy(doc)
        change(copied["app_state"])
        return copied

    _refused(broken(lambda s: s["bank"]["balances"][0].update(address="chain1nope")),
             r"app_state\.bank: balances\[0\]: ")
    _refused(broken(lambda s: s["bank"]["supply"][0].update(amount="1")),
             r"app_state\.bank: supply: genesis supply is incorrect")
    _refused(broken(lambda s: s["staking"]["delegations"][0].update(shares="x")),
             r"app_state\.staking: ")
    _refused(broken(lambda s: s["gov"]["votes"][0].update(proposal_id="9")),
             r"app_state\.gov: votes\[0\]: proposal 9 is not in the genesis' proposals")
    _refused(broken(lambda s: s["evm"]["accounts"][0]["storage"].append(s["evm"]["accounts"][0]["storage"][0])),
             r"app_state\.evm: accounts\[0\]: storage\[1\]: duplicate state key")
    _refused(broken(lambda s: s["erc20"]["token_pairs"].append(s["erc20"]["token_pairs"][0])),
             r"app_state\.erc20: erc20 token pair .*: duplicate token pair")
    _refused(broken(lambda s: s["distribution"]["outstanding_rewards"][0].update(outstanding_rewards=[
        {"denom": "achain", "amount": "-1"}])), r"app_state\.distribution: outstanding_rewards\[0\]: invalid coin")
    _refused(broken(lambda s: s["slashing"]["missed_blocks"].append({"address": "chainvalcons1nope"})),
             r"app_state\.slashing: missed_blocks\[\d+\]: ")
    _refused(broken(lambda s: s["auth"]["accounts"].append(s["auth"]["accounts"][0])),
             r"app_state\.auth: duplicate account found in genesis state")
    _refused(broken(lambda s: s["crisis"].update(constant_fee={"denom": "achain"})),
             r"app_state\.crisis: constant_fee: want \{denom, amount\}")


def test_init_refuses_an_export_whose_pools_do_not_hold_the_module_state(busy, tmp_path):
    chain, _, _ = busy
    doc = genesis_mod.export_document(chain.app)
    app_state = doc["app_state"]
    pool = chain.b32(gov.keeper.GOV)
    [entry] = [b for b in app_state["bank"]["balances"] if b["address"] == pool]
    entry["coins"][0]["amount"] = str(int(entry["coins"][0]["amount"]) + 1)
    app_state["bank"]["supply"] = []
    with pytest.raises(GenesisError, match="app_state.gov: expected module account was"):
        _import(tmp_path, doc)


NEW_CHAIN_DEFAULTS = {("slashing", "params"), ("gov", "params"), ("erc20", "params"), ("erc20", "token_pairs")}


def test_a_new_chains_sections_are_the_modules_defaults_under_the_templates_values():
    template = genesis_mod.dev_template()
    doc = genesis_mod.expand_new(template, 1700000000 * S)
    context = GenesisContext("chain", "achain", "achain", frozenset(precompiles_of(MODULES)))
    for module in MODULES:
        if module.genesis is None or module.genesis.key is not None:
            continue
        section, given = doc["app_state"][module.name], template["app_state"].get(module.name, {})
        assert set(section) >= set(module.genesis.default(context)), module.name
        for key in ("params", "constitution", "token_pairs", "starting_proposal_id"):
            # A new chain judges downtime and governs on the SDK's defaults, and has no pairs for the dev coins.
            if key in given and (module.name, key) not in NEW_CHAIN_DEFAULTS:
                assert section[key] == given[key], (module.name, key)
    assert doc["app_state"]["evidence"] == {"evidence": []} and doc["app_state"]["feegrant"] == {"allowances": []}
    Genesis.from_document(doc)
