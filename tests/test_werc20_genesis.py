"""erc20's genesis and the native precompiles (cosmos/evm's WERC20s): the dev genesis lists the EVM coin's at
cosmos/evm's address; a native coin's pair sits at any address native_precompiles lists; a listed precompile needs
an enabled pair; and a chain whose genesis put code, a signer or coins at a native precompile's address is refused."""

import copy

import pytest

from chaind.chain import genesis as genesis_mod
from chaind.chain.app import App
from chaind.chain.genesis import Genesis, GenesisError
from chaind.chain.modules import erc20
from chaind.crypto.addresses import to_bech32
from chaind.store.db import Database

WERC20 = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE"
ELSEWHERE = "0x1111111111111111111111111111111111111111"


@pytest.fixture(scope="module")
def dev_doc():
    doc, _ = genesis_mod.expand_dev(genesis_mod.dev_template(), b"\x07" * 32, "werc20", 10**18)
    return doc


def _changed(doc, change):
    copied = copy.deepcopy(doc)
    change(copied["app_state"]["erc20"])
    return copied


def test_the_dev_genesis_lists_the_evm_coins_werc20_at_cosmos_evms_address(dev_doc):
    state = Genesis.from_document(dev_doc).erc20
    assert list(state.params.native_precompiles) == [WERC20]
    [pair] = [p for p in state.token_pairs if p.erc20_address == WERC20]
    assert (pair.denom, pair.enabled, pair.contract_owner) == ("achain", True, erc20.OWNER_MODULE)


def test_a_native_coins_pair_sits_where_native_precompiles_lists_it(dev_doc):
    def moved(section):
        section["params"]["native_precompiles"] = [ELSEWHERE]
        section["token_pairs"][0]["erc20_address"] = ELSEWHERE

    assert Genesis.from_document(_changed(dev_doc, moved)).erc20.token_pairs[0].erc20_address == ELSEWHERE

    def unlisted(section):
        moved(section)
        section["params"]["native_precompiles"] = []

    with pytest.raises(GenesisError, match=f"erc20 token pair achain: a native coin's contract is at 0x.*, not "
                                           f"{ELSEWHERE} \\(unless params.native_precompiles lists it\\)"):
        Genesis.from_document(_changed(dev_doc, unlisted))


def test_a_listed_precompile_needs_an_enabled_pair(dev_doc):
    def disabled(section):
        section["token_pairs"][0]["enabled"] = False

    def missing(section):
        section["token_pairs"] = section["token_pairs"][1:]

    for change in (disabled, missing):
        with pytest.raises(GenesisError, match=f"app_state.erc20: invalid native precompiles on genesis: precompile "
                                               f"address '{WERC20}' not found in token pairs"):
            Genesis.from_document(_changed(dev_doc, change))

    def on_staking(section):
        staking = "0x0000000000000000000000000000000000000800"
        section["params"]["native_precompiles"] = [staking]
        section["token_pairs"][0]["erc20_address"] = staking

    with pytest.raises(GenesisError, match="precompile 0x0+800 is the address of a module's precompile"):
        Genesis.from_document(_changed(dev_doc, on_staking))


def _started(tmp_path, doc):
    return App(Database(tmp_path / "chain.db"), Genesis.from_document(doc))


@pytest.mark.parametrize("what", ["code", "coins"])
def test_a_native_precompile_where_the_genesis_put_something_is_refused(dev_doc, tmp_path, what):
    doc = copy.deepcopy(dev_doc)
    app_state = doc["app_state"]
    if what == "code":
        app_state["evm"]["accounts"].append({"address": WERC20, "code": "6000", "storage": []})
        taken = "code"
    else:
        address = to_bech32("chain", bytes.fromhex(WERC20[2:]))
        app_state["bank"]["balances"].append({"address": address, "coins": [{"denom": "achain", "amount": "1"}]})
        taken = "an account with coins"
    with pytest.raises(GenesisError, match=f"app_state.erc20.params.native_precompiles: {WERC20} already holds "
                                           f"{taken}: a native precompile needs an address of its own"):
        _started(tmp_path, doc)
