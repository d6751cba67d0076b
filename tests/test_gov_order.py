"""gov ends blocks before staking, as in the SDK (crisis, gov, staking): a passed proposal lowering max_validators
takes the extra validator out of the set in the proposal's own block."""


import gov_msgs as g
import staking_msgs
from chain_driver import ok
from chaind.chain import registry
from gov_driver import address, run, submit
from gov_driver import make_chain as make_gov_chain


def make_chain(tmp_path):
    """The gov chain of conftest's `chain` fixture, its invariants checked at every block (deposits held by gov,
    a second validator, its removal: all hold)."""
    c = make_gov_chain(tmp_path)
    c.reopen(check_invariants_every=1)
    return c


def test_end_blockers_run_crisis_gov_staking_first():
    names = [m.name for m in registry.end_block_order(registry.MODULES)]
    assert names[:3] == ["crisis", "gov", "staking"]


def test_a_passed_max_validators_change_applies_in_its_own_block(chain):
    _, pubkey = staking_msgs.new_consensus_key()
    created = ok(run(chain, [(2, [staking_msgs.create(chain.prefix, address(chain, 2), pubkey, 10**18)])]))
    assert (pubkey, 1) in list(created.validator_updates)      # bonded: two validators
    ok(submit(chain, messages=[g.staking_params_msg(chain.prefix, max_validators=1)]))
    ok(run(chain, [(0, [(g.VOTE, g.vote(chain.prefix, address(chain, 0), 1, g.YES))])]))
    block = run(chain, [], after_s=20)
    assert ("proposal_result", "proposal_passed") in [(k, v) for e in block.events for k, v, _ in e.attributes]
    assert (pubkey, 0) in list(block.validator_updates)
