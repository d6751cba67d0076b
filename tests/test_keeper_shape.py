"""CONTRIBUTING's keeper shape for gov, upgrade, erc20, inflation, epochs, feemarket, consensus and evm: each module's
keeper is one object its record builds once, from the keepers it takes, and every block and query reads through
that same object."""

from chain_driver import Chain
from chaind.chain.modules import consensus, epochs, erc20, evm, feemarket, gov, inflation, upgrade

KEEPERS = {"gov": gov.GovKeeper, "upgrade": upgrade.UpgradeKeeper, "erc20": erc20.Erc20Keeper,
           "inflation": inflation.InflationKeeper, "epochs": epochs.EpochsKeeper,
           "feemarket": feemarket.FeemarketKeeper, "consensus": consensus.ConsensusKeeper, "evm": evm.EvmKeeper}


def test_each_module_keeps_one_keeper_built_from_the_keepers_it_takes(tmp_path):
    chain = Chain(tmp_path, "db")
    try:
        built = dict(chain.app.keepers)
        for name, cls in KEEPERS.items():
            assert type(built[name]) is cls, name
        assert built["inflation"].epochs is built["epochs"] and built["inflation"].bank is built["bank"]
        assert built["erc20"].auth is built["auth"]
        assert chain.app.ante.feemarket is built["feemarket"] and chain.app.ante.evm is built["evm"]
        chain.block([])
        view = chain.app.view()
        # The blocks and the reads go through the keepers built at the start: none is built again.
        assert all(chain.app.keepers[name] is built[name] for name in KEEPERS)
        assert built["feemarket"].params(view).base_fee_change_denominator == 8
        assert built["epochs"].epoch_info(view, "dev").current_epoch == 1
        assert built["upgrade"].module_versions(view)["gov"] == 5
        assert built["gov"].next_proposal_id(view) == 1
        assert built["consensus"].stored(view) is not None and built["evm"].params(view).evm_denom
        assert {p.denom for _, p in built["erc20"].all_pairs(view)} == {"achain", chain.ibc, "stake"}
        assert built["inflation"].schedule(view).epoch_identifier == "dev"
    finally:
        chain.close()
