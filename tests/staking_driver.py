"""x/staking's chain driven block by block without a node: the home's validator signing every block, blocks of
native txs one second apart (optionally at a given time), results read."""

import json

from chain_driver import PROPOSER, Chain
from chaind.home import Home

# Evmos v20's provision for period 0 with its default params (x/inflation/v1/keeper/genesis_test.go).
FIRST_PROVISION = 282534246575342465753425


def make_chain(tmp_path, **params):
    home = Home(tmp_path / "home")
    home.init("test", dev=True)
    if params:
        doc = json.loads(home.genesis_file.read_text())
        doc["app_state"]["staking"]["params"].update(params)
        home.genesis_file.write_text(json.dumps(doc))
    chain = Chain(tmp_path, "db")       # the node's validator signs, as Node sets it up
    chain.operator = chain.genesis.validators[0].operator
    chain.prefix = chain.genesis.bech32_prefix
    run(chain, [])
    return chain


def run(chain, messages_by_key, time_ns=None):
    """One block of native txs, each (key index, [messages]); returns the committed block."""
    raws = [chain.native(chain.keys[who], msgs) for who, msgs in messages_by_key]
    height = chain.app.height + 1
    block, puts = chain.app.finalize_block(raws, time_ns or chain.genesis.genesis_time_ns + height * 10**9, PROPOSER)
    chain.app.commit(block, puts)
    return block


