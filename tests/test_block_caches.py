"""What a block keeps from the blocks before (scans of its module prefixes, the validator set plan, validator
sets and their hashes by height, decoded records) changes no byte: a chain that keeps them writes the batches a
chain that works each out again writes, block by block, through validators created, bonded, evicted, jailed and
unbonded, epochs ending and a dev rewind. What a block writes out by hand is what protobuf writes."""

import importlib
import json
import random

from google.protobuf import timestamp_pb2, wrappers_pb2

import staking_msgs as m
from chain_driver import PROPOSER, Chain
from chaind.chain import devstate, merkle, valset
from chaind.chain.block import BLOCK_PROTOCOL, BlockId, Header
from chaind.chain.modules.staking import keeper as staking_keeper
from chaind.home import Home
from chaind.pb.tendermint.types import types_pb2
from chaind.pb.tendermint.version import types_pb2 as version_pb2
from staking_msgs import CHAIN

# The caches whose values a block's work takes from the blocks before.
_LRU = (staking_keeper._set_plan, valset.decoded, valset.hash_of_record,
        importlib.import_module("chaind.chain.modules.epochs.keeper").peek,
        *(importlib.import_module(f"chaind.chain.modules.{name}.params")._decoded
          for name in ("staking", "slashing")),
        importlib.import_module("chaind.chain.modules.feemarket.params").decoded)


class Twins:
    """Two chains of one genesis fed the same blocks: `kept` keeps what it keeps, `fresh` forgets it all
    before each block."""

    def __init__(self, tmp_path):
        home = Home(tmp_path / "home")
        home.init("test", dev=True)
        doc = json.loads(home.genesis_file.read_text())
        doc["app_state"]["staking"]["params"].update(max_validators=2, unbonding_time="5s")
        home.genesis_file.write_text(json.dumps(doc))
        # The home's validator signs both, as Node sets it up.
        self.kept, self.fresh = Chain(tmp_path, "kept"), Chain(tmp_path, "fresh")
        self.prefix = self.kept.genesis.bech32_prefix
        self.time_ns = self.kept.genesis.genesis_time_ns
        self.plan_hits = 0
        self.epochs_ended = 0

    def run(self, messages_by_key=(), seconds=1):
        """One block of native txs (key index, [messages]) on both chains; returns the kept chain's block."""
        raws = [self.kept.native(self.kept.keys[who], msgs) for who, msgs in messages_by_key]
        self.time_ns += seconds * 10**9
        hits = staking_keeper._set_plan.cache_info().hits
        block, puts = self.kept.app.finalize_block(raws, self.time_ns, PROPOSER)
        self.plan_hits += staking_keeper._set_plan.cache_info().hits - hits
        for cache in _LRU:
            cache.cache_clear()
        fresh = self.fresh.app
        fresh.state_cache.clear(fresh.height)
        fresh.consensus_state.forget_valsets()
        fresh_block, fresh_puts = fresh.finalize_block(raws, self.time_ns, PROPOSER)
        assert all(r.code == 0 for r in block.results), [r.log for r in block.results]
        assert puts == fresh_puts and block.record() == fresh_block.record(), block.height
        self.epochs_ended += sum(e.type == "epoch_end" for e in block.events)
        self.kept.app.commit(block, puts)
        fresh.commit(fresh_block, fresh_puts)
        self.check_sets()
        return block

    def mark(self):
        return self.kept.app.undo.mark(), self.fresh.app.undo.mark()

    def rewind(self, mark):
        """Both chains back to `mark` (a dev revert); the kept chain's sets are still the stored ones."""
        devstate.rewind(self.kept.app, mark[0])
        devstate.rewind(self.fresh.app, mark[1])
        self.time_ns = self.kept.app.head[0].time_ns
        self.check_sets()

    def check_sets(self, lowest=None):
        """The kept chain's validator sets and hashes from its parent's height (or `lowest`) to three above its
        head are the stored ones."""
        app = self.kept.app
        for height in range(lowest or max(1, app.height - 1), app.height + 4):
            stored = valset.decoded.__wrapped__(valset.record_at(app.db, height))
            assert app.validator_set(height) == stored, height
            assert app.validators_hash(height) == valset.hash_of(stored), height

    def close(self):
        self.kept.close()
        self.fresh.close()


def test_a_chain_that_keeps_writes_what_one_that_forgets_writes(tmp_path):
    twins = Twins(tmp_path)
    try:
        operator, second, third = (twins.kept.keys[i].address for i in (0, 2, 3))
        keys = [m.new_consensus_key()[1] for _ in range(3)]
        twins.run()
        for _ in range(3):
            twins.run()
        # A validator created and bonded in its block; then power changes, the set's and the plan's.
        assert twins.run([(2, [m.create(twins.prefix, second, keys[0], 300 * CHAIN)])]).validator_updates
        twins.run()
        assert twins.run([(1, [m.delegate(twins.prefix, twins.kept.keys[1].address, operator, 5 * CHAIN)])]) \
            .validator_updates
        # A third validator, beyond max_validators: unbonded until it outweighs the second, which leaves.
        assert not twins.run([(3, [m.create(twins.prefix, third, keys[1], 200 * CHAIN,
                                            min_self=str(100 * CHAIN))])]).validator_updates
        twins.run()
        mark = twins.mark()
        assert len(twins.run([(3, [m.delegate(twins.prefix, third, third, 150 * CHAIN)])]).validator_updates) == 2
        twins.run()
        # Below its minimum: jailed, out of the set; the second comes back from unbonding.
        assert len(twins.run([(3, [m.undelegate(twins.prefix, third, third, 260 * CHAIN)])]).validator_updates) == 2
        twins.run()
        # Past the unbonding time (and an epoch end): matured unbondings, the jailed one unbonded.
        twins.run(seconds=12)
        for _ in range(12):
            twins.run()
        # Rewound (a dev revert): the heights above the mark get other sets than the ones read before.
        twins.rewind(mark)
        assert twins.run([(2, [m.delegate(twins.prefix, second, second, 50 * CHAIN)])]).validator_updates
        twins.run()
        # A short rewind: the set the undone block made, read at the heights above the mark, is not kept.
        mark = twins.mark()
        assert twins.run([(2, [m.delegate(twins.prefix, second, second, 7 * CHAIN)])]).validator_updates
        twins.run()
        twins.rewind(mark)
        assert twins.run([(2, [m.delegate(twins.prefix, second, second, 9 * CHAIN)])]).validator_updates
        for _ in range(3):
            twins.run()
        twins.check_sets(lowest=1)
        # Most blocks left the validators alone: their plan was the one worked out before.
        assert twins.plan_hits >= 15
        assert twins.epochs_ended >= 3
    finally:
        twins.close()


def test_the_header_hash_is_the_merkle_root_of_its_protobuf_fields():
    """Header.hash writes its fields out by hand: the same bytes protobuf gives, at defaults, negative times and
    every length, so the same hash as CometBFT's Header.Hash()."""
    rng = random.Random(9)

    def some_bytes():
        return rng.choice((b"", rng.randbytes(rng.choice((1, 20, 32, 127, 128, 300)))))

    def number(bits):
        return rng.choice((0, 1, 127, 128, 2**bits - 1, rng.randrange(2**bits)))

    for case in range(300):
        header = Header(
            chain_id=rng.choice(("", "chaind_9000-1", "x" * 200)), height=number(63),
            time_ns=rng.choice((0, -62135596800 * 10**9, rng.randrange(-2**62, 2**62), 10**9, 999)),
            last_block_id=BlockId(some_bytes(), number(32), some_bytes()), last_commit_hash=some_bytes(),
            data_hash=some_bytes(), validators_hash=some_bytes(), next_validators_hash=some_bytes(),
            consensus_hash=some_bytes(), app_hash=some_bytes(), last_results_hash=some_bytes(),
            evidence_hash=some_bytes(), proposer_address=some_bytes(), version_app=number(64))
        seconds, nanos = divmod(header.time_ns, 10**9)
        fields = [
            version_pb2.Consensus(block=BLOCK_PROTOCOL, app=header.version_app),
            wrappers_pb2.StringValue(value=header.chain_id), wrappers_pb2.Int64Value(value=header.height),
            timestamp_pb2.Timestamp(seconds=seconds, nanos=nanos),
            types_pb2.BlockID(hash=header.last_block_id.hash, part_set_header=types_pb2.PartSetHeader(
                total=header.last_block_id.parts_total, hash=header.last_block_id.parts_hash)),
            *[wrappers_pb2.BytesValue(value=getattr(header, name)) for name in (
                "last_commit_hash", "data_hash", "validators_hash", "next_validators_hash", "consensus_hash",
                "app_hash", "last_results_hash", "evidence_hash", "proposer_address")]]
        assert header.hash() == merkle.root([f.SerializeToString() for f in fields]), case
