"""`chaind comet reset-state` (CometBFT v0.38's, in the SDK v0.50's comet group, as cometbft and tendermint too):
the chain's store goes, the validator's signing state, snapshots and address book stay; `bootstrap-state` is refused."""

import json

from chain_driver import Chain
from cli_driver import cli, failed, ok


def test_reset_state_removes_the_store_and_keeps_the_validators_signing_state(tmp_path):
    chain = Chain(tmp_path, "home/data/chain.db")
    home = chain.home
    signed = {"height": "12", "round": 0, "step": 3}
    state = home.data_dir / "priv_validator_state.json"
    state.write_text(json.dumps(signed))
    (home.data_dir / "snapshots").mkdir()
    (home.data_dir / "snapshots" / "kept").write_text("x")
    (home.config_dir / "addrbook.json").write_text("{}")
    failed(cli("comet", "reset-state", "--home", home.path), "is the node still running?")
    assert (home.data_dir / "chain.db").exists()
    chain.close()
    out = ok(cli("tendermint", "reset-state", "--home", home.path)).stdout
    assert out == f"Removed all chain.db dir={home.data_dir / 'chain.db'}\n"
    assert sorted(p.name for p in home.data_dir.iterdir()) == ["priv_validator_state.json", "snapshots"]
    assert json.loads(state.read_text()) == signed
    assert (home.data_dir / "snapshots" / "kept").exists() and (home.config_dir / "addrbook.json").exists()
    # Again on the emptied home: nothing to remove, no error.
    assert ok(cli("cometbft", "reset-state", "--home", home.path)).stdout == ""
    chain.open()
    try:
        assert chain.app.height == 0
    finally:
        chain.close()


def test_bootstrap_state_is_refused_with_the_way_to_join_instead(tmp_path):
    chain = Chain(tmp_path, "home/data/chain.db")
    chain.close()
    failed(cli("comet", "bootstrap-state", "--height", "5", "--home", chain.home.path),
           "bootstrap-state is not served")
    assert (chain.home.data_dir / "chain.db").exists()
    listed = ok(cli("comet", "--help")).stdout
    assert "reset-state" in listed and "bootstrap-state" in listed
