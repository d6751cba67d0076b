"""Gov's end block tallying one proposal with 10,000 voting delegators over 100 bonded validators
(issue 16's bar: under 1 s), on an App over a temp LevelDB.

Usage: python bench/gov_tally.py [--delegators N] [--validators N]   (prints figures, asserts nothing)
"""

import argparse
import os
import tempfile
import time
from pathlib import Path

import attrs

from chaind.chain import legacy_dec, registry
from chaind.chain.app import App
from chaind.chain.genesis import Genesis
from chaind.chain.module import Module
from chaind.chain.module_genesis import ModuleGenesis
from chaind.chain.modules import gov
from chaind.chain.modules.staking import BONDED, BONDED_POOL, PRECISION, Validator
from chaind.chain.modules.staking.keys import val_key
from chaind.crypto.addresses import to_bech32
from chaind.home import Home
from chaind.pb.cosmos.gov.v1 import gov_pb2
from chaind.store.db import Database
from results import Result, run_script

S = 10**9
STAKE = 10**22     # per seeded validator: the genesis validator (1,000 chain) stays a small share


def seed(validators, delegators):
    """A module whose genesis adds the validators, the delegators and proposal 1 (all of them voted)."""

    def init_genesis(app, ctx, _):
        prefix, staking, gov_keeper = app.genesis.bech32_prefix, app.keepers["staking"], app.keepers["gov"]
        operators = [(0xA000 + i).to_bytes(20, "big") for i in range(validators)]
        for i, operator in enumerate(operators):
            v = Validator(operator, os.urandom(32), {"moniker": f"v{i}"}, 0, 0, 0, ctx.time_ns, 1,
                          tokens=STAKE, shares=STAKE * PRECISION, status=BONDED)
            staking.set_validator(ctx, v)
            staking.set_delegation(ctx, operator, operator, v.shares)
            app.keepers["bank"].mint(ctx, BONDED_POOL, "achain", STAKE)
        p = gov_pb2.Proposal(id=1, status=gov_pb2.PROPOSAL_STATUS_VOTING_PERIOD, title="bench", summary="bench",
                             final_tally_result=gov_pb2.TallyResult())
        p.submit_time.FromNanoseconds(ctx.time_ns)
        p.deposit_end_time.FromNanoseconds(ctx.time_ns + S)
        p.voting_start_time.FromNanoseconds(ctx.time_ns)
        p.voting_end_time.FromNanoseconds(ctx.time_ns + 2 * S)
        gov_keeper.set_proposal(ctx, p)
        gov_keeper.enqueue(ctx, "active", p.voting_end_time.ToNanoseconds(), 1)
        gov_keeper.set_next_proposal_id(ctx, 2)
        options = (gov_pb2.VOTE_OPTION_YES, gov_pb2.VOTE_OPTION_NO, gov_pb2.VOTE_OPTION_ABSTAIN)
        one = legacy_dec.format(legacy_dec.ONE)
        for i in range(delegators):
            delegator = (0xD0000 + i).to_bytes(20, "big")
            validator = operators[i % validators]
            v = Validator.from_record(ctx.store.get(val_key(validator)))
            shares = STAKE // 100 * PRECISION
            v.tokens += STAKE // 100
            v.shares += shares
            staking.set_validator(ctx, v)
            staking.set_delegation(ctx, delegator, validator, shares)
            app.keepers["bank"].mint(ctx, BONDED_POOL, "achain", STAKE // 100)
            vote = gov_pb2.Vote(proposal_id=1, voter=to_bech32(prefix, delegator), options=[
                gov_pb2.WeightedVoteOption(option=options[i % 3], weight=one)])
            gov_keeper.set_vote(ctx, 1, delegator, vote)
        for operator in operators[: validators // 2]:
            gov_keeper.set_vote(ctx, 1, operator, gov_pb2.Vote(proposal_id=1, voter=to_bech32(prefix, operator),
                                                               options=[gov_pb2.WeightedVoteOption(
                                                                   option=gov_pb2.VOTE_OPTION_YES, weight=one)]))

    return Module(name="bench_seed", genesis=ModuleGenesis(default=lambda context: {},
                                                           validate=lambda section, context: None,
                                                           init=init_genesis))


def measure(args):
    tmp = Path(tempfile.mkdtemp(prefix="bench-gov-"))
    home = Home(tmp / "home")
    home.init("bench", dev=True)
    genesis = Genesis.load(home.genesis_file)
    timings = []

    def timed_end_block(app, ctx):
        started = time.perf_counter()
        gov.MODULE.end_block(app, ctx)
        timings.append(time.perf_counter() - started)

    modules = [attrs.evolve(m, end_block=timed_end_block) if m.name == "gov" else m for m in registry.MODULES]
    started = time.perf_counter()
    db = Database(tmp / "db")
    app = App(db, genesis, modules=modules + [seed(args.validators, args.delegators)])
    print(f"genesis with {args.validators} validators, {args.delegators} voting delegators: "
          f"{time.perf_counter() - started:.1f} s")
    for after in (1, 3):
        committed, puts = app.finalize_block([], genesis.genesis_time_ns + after * S, b"\x01" * 20)
        app.commit(committed, puts)
    p = app.keepers["gov"].proposal(app.view(), 1)
    assert p.status == gov_pb2.PROPOSAL_STATUS_PASSED, p.status
    print(f"gov end block, nothing due: {timings[0] * 1000:.1f} ms")
    print(f"gov end block tallying proposal 1: {timings[1] * 1000:.0f} ms (bar: < 1000 ms); "
          f"yes {p.final_tally_result.yes_count}, no {p.final_tally_result.no_count}")
    db.close()
    return [Result("gov.tally_end_block", f"gov end block, {args.delegators} voters over {args.validators} "
                   "validators", "ms", round(timings[1] * 1000, 1), target=1000, higher=False, issue=16)]


def parser():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--delegators", type=int, default=10000)
    p.add_argument("--validators", type=int, default=100)
    return p


if __name__ == "__main__":
    run_script(parser(), measure)
