"""x/epochs and x/inflation driven block by block on a real App (the dev genesis: a 10-second `dev` epoch that
mints): epochs start and end as Evmos' begin blocker has them, each end mints Evmos v20's provision exactly,
staking rewards reach the validators through distribution in the same block, the rest the community pool."""

import json

import pytest

from chain_driver import PROPOSER, Chain, ok
from chaind.chain import legacy_dec
from chaind.chain.modules import epochs, inflation, staking
from chaind.chain.modules.distribution.invariants import INVARIANTS
from chaind.chain.modules.inflation import calculation, keeper
from chaind.chain.modules.inflation.params import Params, parse_genesis
from chaind.home import Home
from staking_driver import (
    FIRST_PROVISION,
    make_chain,  # noqa: F401 (conftest's `chain` fixture makes this module's chain with it)
    run,
)

ONE = legacy_dec.ONE


def types(block):
    return [e.type for e in block.events]


def attributes(block, type_):
    return [dict((k, v) for k, v, _ in e.attributes) for e in block.events if e.type == type_]


def test_the_schedule_matches_evmos_figures():
    p = Params("achain")
    assert calculation.epoch_mint_provision(p, 0, 365, 0) == FIRST_PROVISION * ONE
    # Period 1 halves a; c stays (x/inflation/v1/keeper/integration_test.go).
    assert calculation.epoch_mint_provision(p, 1, 365, 0) == 145547945205479452054795 * ONE
    assert calculation.power(ONE // 2, 3) == ONE // 8 and calculation.power(7 * ONE, 0) == ONE
    assert calculation.mul(5, ONE // 2) == 2                   # 2.5 atomics rounds half to even


def test_epochs_start_at_genesis_time_and_end_after_their_duration(chain):
    view = chain.app.view()
    dev = chain.app.keepers["epochs"].epoch_info(view, "dev")
    assert dev.epoch_counting_started and dev.current_epoch == 1
    assert dev.current_epoch_start_time_ns == chain.genesis.genesis_time_ns
    assert [e.identifier for e in chain.app.keepers["epochs"].epoch_infos(view)] == ["day", "dev", "week"]
    supply = chain.app.keepers["bank"].supply(view, "achain")
    # Blocks come one second apart: the `dev` epoch (10 s) ends in the first block past genesis + 10 s.
    while chain.app.height < 10:
        block = ok(run(chain, []))
        assert "epoch_end" not in types(block)
    ended = ok(run(chain, []))
    assert attributes(ended, "epoch_end") == [{"epoch_number": "2", "mode": "BeginBlock"}]
    start = [a for a in attributes(ended, "epoch_start")]
    assert start == [{"epoch_number": "2", "start_time": str(chain.genesis.genesis_time_ns // 10**9 + 10),
                      "mode": "BeginBlock"}]
    [minted] = attributes(ended, "inflation")
    assert minted == {"epoch_number": "2", "epoch_provisions": legacy_dec.format(FIRST_PROVISION * ONE),
                      "amount": str(FIRST_PROVISION), "mode": "BeginBlock"}
    view = chain.app.view()
    assert chain.app.keepers["bank"].supply(view, "achain") == supply + FIRST_PROVISION
    assert chain.app.keepers["epochs"].epoch_info(view, "dev").current_epoch == 2
    # Staking's share went through the fee collector to the validator in this same block; the rest to the pool.
    staking_share = calculation.mul(FIRST_PROVISION * ONE, 533333334 * 10**9) // ONE
    outstanding = chain.app.keepers["distribution"].outstanding(view, chain.operator)["achain"]
    assert outstanding >= staking_share * (ONE - 2 * 10**16)
    pool = chain.app.keepers["distribution"].community_pool(view)["achain"]
    assert pool >= (FIRST_PROVISION - staking_share) * ONE
    for name, check in INVARIANTS:
        assert check(chain.app, view) is None, name


def test_queries_report_what_evmos_reports(chain):
    view, minter = chain.app.view(), chain.app.keepers["inflation"]
    bonded = keeper.bonded_ratio(chain.app, view)
    assert minter.epoch_mint_provision(view, bonded) == staking.dec_quo(FIRST_PROVISION * ONE, 3 * ONE)
    supply = chain.app.keepers["bank"].supply(view, "achain")
    assert minter.circulating_supply(view) == supply * ONE
    expected = calculation.mul(staking.dec_quo(calculation.mul(minter.epoch_mint_provision(view, bonded),
                                                               365 * ONE), supply * ONE), 100 * ONE)
    assert minter.inflation_rate(view, bonded) == expected > 0
    schedule = minter.schedule(view)
    assert schedule.epoch_identifier == "dev" and schedule.period == 0


def test_disabled_inflation_mints_nothing_and_counts_skipped_day_epochs(tmp_path):
    home = Home(tmp_path / "home")
    home.init("test", dev=True)
    doc = json.loads(home.genesis_file.read_text())
    doc["app_state"]["inflation"]["params"]["enable_inflation"] = False
    home.genesis_file.write_text(json.dumps(doc))
    chain = Chain(tmp_path, "db")
    try:
        for at in (1, 12, 24 * 3600 + 20):      # seconds after genesis
            block, puts = chain.app.finalize_block([], chain.genesis.genesis_time_ns + at * 10**9, PROPOSER)
            chain.app.commit(block, puts)
        view = chain.app.view()
        assert "inflation" not in types(block) and attributes(block, "epoch_end")
        assert chain.app.keepers["epochs"].epoch_info(view, "day").current_epoch == 2
        # Only `day` epochs count as skipped (Evmos' check), however many `dev` ones passed.
        assert chain.app.keepers["inflation"].schedule(view).skipped_epochs == 1
        assert chain.app.keepers["inflation"].circulating_supply(view) == chain.app.keepers["bank"].supply(
            chain.app.view(1), "achain") * ONE
    finally:
        chain.close()


@pytest.mark.parametrize("change, message", [
    ({"inflation_distribution": {"staking_rewards": "0.6", "community_pool": "0.6", "usage_incentives": "0"}},
     "total distributions ratio should be 1"),
    ({"exponential_calculation": {"r": "1.5"}}, "reduction factor cannot be greater than 1"),
    ({"exponential_calculation": {"bonding_target": "0"}}, "bonded target cannot be zero or negative"),
    ({"inflation_distribution": {"usage_incentives": "0.1", "staking_rewards": "0.4", "community_pool": "0.5"}},
     "incentives pool distribution is deprecated"),
    ({"mint_denom": " "}, "mint denom cannot be blank"),
])
def test_invalid_inflation_genesis_is_refused(change, message):
    with pytest.raises(ValueError, match=message):
        parse_genesis({"params": change}, "achain")


def test_invalid_epochs_genesis_is_refused():
    with pytest.raises(ValueError, match="duplicated epoch entry day"):
        epochs.parse_epochs({"epochs": [{"identifier": "day", "duration": "1s"}] * 2})
    with pytest.raises(ValueError, match="epoch duration cannot be 0"):
        epochs.parse_epochs({"epochs": [{"identifier": "x", "duration": "0s"}]})
    assert [e.identifier for e in epochs.parse_epochs(None)] == ["week", "day"]


def test_a_home_made_by_init_mints_on_day(tmp_path):
    home = Home(tmp_path / "plain")
    home.init("v", dev=False)
    doc = json.loads(home.genesis_file.read_text())
    assert doc["app_state"]["inflation"]["epoch_identifier"] == "day"
    assert [e["identifier"] for e in doc["app_state"]["epochs"]["epochs"]] == ["week", "day"]
    assert inflation.MODULE.module_accounts["inflation"][1] == ("minter",)
