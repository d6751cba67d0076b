"""CONTRIBUTING's keeper shape for staking, slashing, distribution and evidence: each module's keeper is one object
its record builds once, from the keepers it takes, and every block, message and query goes through that object."""

import staking_msgs as m
from chain_driver import Chain, ok
from chaind.chain.modules import distribution, evidence, slashing, staking

KEEPERS = {"staking": staking.StakingKeeper, "slashing": slashing.SlashingKeeper,
           "distribution": distribution.DistributionKeeper, "evidence": evidence.EvidenceKeeper}


def test_staking_slashing_distribution_and_evidence_keep_one_keeper_each(tmp_path):
    chain = Chain(tmp_path, "db")
    try:
        built = dict(chain.app.keepers)
        for name, cls in KEEPERS.items():
            assert type(built[name]) is cls, name
        assert built["staking"].bank is built["bank"]
        assert built["slashing"].staking is built["staking"]
        assert built["evidence"].staking is built["staking"] and built["evidence"].slashing is built["slashing"]
        # Built before staking's, distribution's keeper finds staking's among the keepers when it needs it.
        assert built["distribution"].staking is built["staking"]
        assert built["distribution"].bank is built["bank"] and built["distribution"].auth is built["auth"]
        operator = chain.genesis.validators[0].operator
        delegator = chain.keys[1].address
        prefix = chain.genesis.bech32_prefix
        chain.block([])
        # A delegation runs staking's keeper and, through its hooks, distribution's.
        ok(chain.block([chain.native(chain.keys[1], [m.delegate(prefix, delegator, operator, 5 * m.CHAIN)])]))
        chain.block([])
        view = chain.app.view()
        assert all(chain.app.keepers[name] is built[name] for name in KEEPERS)
        assert built["staking"].delegation(view, delegator, operator) == 5 * m.CHAIN * 10**18
        assert built["distribution"].starting_info(view, operator, delegator) is not None
        [v] = built["staking"].validators(view)
        assert built["slashing"].signing_info(view, v.cons_address).index_offset >= 1   # its liveness window moved
        assert built["evidence"].all_evidence(view) == []
    finally:
        chain.close()
