"""etc/chaind.toml documents every setting with its real default; bad config is a clear error."""

import pytest

from chaind import config
from chaind.resources import etc_file


def test_shipped_config_equals_defaults():
    assert config.load(etc_file("chaind.toml")) == config.Settings()


@pytest.mark.parametrize("text, message", [
    ("[nope]\nx = 1\n", "unknown config section [nope]"),
    ("[chain]\nblock-speed = 1\n", "unknown key 'block-speed' in [chain]"),
    ("[chain]\nblock-interval = \"fast\"\n", "[chain] block-interval must be float"),
    ("[chain\n", "config"),
    ("[storage]\nleveldb-cache-mb = 0\n", "[storage] leveldb-cache-mb must be at least 1, got 0"),
    ("[storage]\niavl-cache-nodes = 10\n", "[storage] iavl-cache-nodes must be at least 1000, got 10"),
    ("[storage]\nsubspace-max-keys = 0\n", "[storage] subspace-max-keys must be at least 1, got 0"),
    ("[storage]\nstate-cache-keys = -1\n", "[storage] state-cache-keys must be at least 0, got -1"),
    ("[node]\ngc-young-threshold = -5\n", "[node] gc-young-threshold must be at least 0, got -5"),
])
def test_bad_config_is_a_clear_error(text, message):
    with pytest.raises(config.ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        config.load(text=text)


def test_dev_home_enables_debug_and_a_plain_home_does_not(tmp_path):
    from chaind.home import Home

    dev = config.load(Home(tmp_path / "dev").init("dev", dev=True).config_file)
    plain = config.load(Home(tmp_path / "plain").init("plain", chain_id="mychain_7-1").config_file)
    assert dev.json_rpc.api == "eth,net,web3,txpool,debug,dev"
    assert plain.json_rpc.api == config.Settings().json_rpc.api
