"""`chaind testnet` writes a new chain's block gas limit (issue 36): a network of validators must execute a full
block within its timeouts, so it does not inherit the dev template's 30,000,000."""

import json

from click.testing import CliRunner

from chaind.chain.genesis import NEW_CHAIN_MAX_GAS, Genesis, dev_template
from chaind.cli.main import main


def test_testnet_genesis_caps_a_block_at_the_new_chain_limit(tmp_path):
    out = tmp_path / "net"
    result = CliRunner().invoke(main, ["testnet", "--validators", "2", "--output", str(out)])
    assert result.exit_code == 0, result.output
    doc = json.loads((out / "node0" / "config" / "genesis.json").read_text())
    assert doc["consensus_params"]["block"]["max_gas"] == str(NEW_CHAIN_MAX_GAS)
    assert Genesis.from_document(doc).max_gas == NEW_CHAIN_MAX_GAS
    # The dev chain keeps its own (Hardhat's and Foundry's suites need mainnet-sized gas).
    assert int(dev_template()["consensus_params"]["block"]["max_gas"]) > NEW_CHAIN_MAX_GAS
