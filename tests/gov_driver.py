"""x/gov's chain driven block by block without a node (chain_driver's Chain with a clock): blocks of native
txs a second apart, proposals submitted, results read."""

import gov_msgs as g
from chain_driver import PROPOSER, Chain
from chaind.home import Home

S = 10**9


def make_chain(tmp_path):
    home = Home(tmp_path / "home")
    home.init("test", dev=True)
    c = Chain(tmp_path, "db")       # the node's validator signs, as Node sets it up
    c.prefix = c.genesis.bech32_prefix
    c.clock = c.genesis.genesis_time_ns
    run(c, [])
    return c


def run(chain, messages_by_key, after_s=1):
    """One block `after_s` seconds after the last, of native txs, each (key index, [(type url, msg)])."""
    raws = [chain.native(chain.keys[who], msgs, gas=400000) for who, msgs in messages_by_key]
    chain.clock += after_s * S
    block, puts = chain.app.finalize_block(raws, chain.clock, PROPOSER)
    chain.app.commit(block, puts)
    return block


def attrs(events, type_):
    return [dict((k, v) for k, v, _ in e.attributes) for e in events if e.type == type_]


def address(chain, who):
    return chain.keys[who].address


def submit(chain, who=1, deposit=10, messages=None, **kw):
    messages = [g.staking_params_msg(chain.prefix)] if messages is None else messages
    return run(chain, [(who, [(g.SUBMIT, g.submit(chain.prefix, address(chain, who), messages, deposit, **kw))])])


def through_gov(chain, *messages):
    """A proposal of `messages`, voted yes by the validator; the block that ends it."""
    run(chain, [(1, [(g.SUBMIT, g.submit(chain.prefix, address(chain, 1), list(messages)))])])
    pid = chain.app.keepers["gov"].next_proposal_id(chain.app.view()) - 1
    run(chain, [(0, [(g.VOTE, g.vote(chain.prefix, address(chain, 0), pid, g.YES))])])
    ended = run(chain, [], after_s=20)
    return {k: v for e in ended.events if e.type == "active_proposal" for k, v, _ in e.attributes}
