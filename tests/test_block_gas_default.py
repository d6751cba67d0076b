"""The block gas limit a new chain's genesis gets (issue 36): `chaind init`'s is NEW_CHAIN_MAX_GAS, sized from the
slowest gas's measured rate (README says the number and the command), the dev chain's stays 30,000,000."""

import json
import pathlib

from chaind.chain.genesis import NEW_CHAIN_MAX_GAS, Genesis
from chaind.home import Home

README = pathlib.Path(__file__).resolve().parent.parent / "README.rst"


def _max_gas(home):
    return int(json.loads(home.genesis_file.read_text())["consensus_params"]["block"]["max_gas"])


def test_a_new_chain_caps_its_blocks_and_the_dev_chain_keeps_mainnet_sized_ones(tmp_path):
    new = Home(tmp_path / "new").init("me")
    dev = Home(tmp_path / "dev").init("me", dev=True)
    assert _max_gas(new) == NEW_CHAIN_MAX_GAS == 3_000_000
    assert _max_gas(dev) == 30_000_000
    assert Genesis.load(dev.genesis_file).max_gas == 30_000_000


def test_readme_gives_the_default_and_the_command_that_measures_it():
    text = README.read_text()
    notes = text[text.index("- **Block gas limit**"):]
    notes = " ".join(notes[:notes.index("\n\n")].split())
    assert f'max_gas = "{NEW_CHAIN_MAX_GAS}"' in notes and "bench/evm_speed.py --block-gas" in notes
