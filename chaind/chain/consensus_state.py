"""What CometBFT's state keeps by height: the validator set that signs each block and its consensus params.

Both are records in the store (valset.py, modules/consensus); the ones a head asks for are kept in memory.
"""

import threading

from chaind.chain import valset
from chaind.chain.modules import consensus

KEPT_SETS = 8               # validator set records kept by height (the block reads its parent's, its own, the next)
KEPT_PARAMS = 64            # consensus params kept by height


class ConsensusState:
    """The validator sets and consensus params of `db`'s blocks; `blocks` (a BlockStore) gives the head."""

    def __init__(self, db, genesis, blocks):
        self.db = db
        self.blocks = blocks
        # The consensus params before any block records its own (chain/modules/consensus), and those looked up.
        self.genesis_params = consensus.of_document(genesis.document).SerializeToString()
        self._params = {}
        self._valsets, self._valsets_lock = {}, threading.Lock()    # {height: record} (_valset_record)

    def validator_set(self, height):
        """The validator set (valset.SetValidator, CometBFT's order) that signs block `height`;
        known up to the head's height + 2."""
        return valset.decoded(self._valset_record(height))

    def validators_hash(self, height):
        return valset.hash_of_record(self._valset_record(height))

    def consensus_params(self, height):
        """The ConsensusParams (do not mutate) block `height` runs with, as CometBFT's state holds them: genesis'
        until a block's MsgUpdateParams changes them, then the new ones from the block after it on; known up to
        the head's height + 1."""
        found = self._params.get(height)
        if found is None:
            raw = consensus.raw_at(self.db, height) or self.genesis_params
            found = self._params[height] = consensus.decoded(raw)
            if len(self._params) > KEPT_PARAMS:
                self._params.pop(next(iter(self._params)))
        return found

    def block_gas_limit(self, height):
        """Block `height`'s gas limit: its consensus params' max_gas (-1: MaxUint64, as Evmos' BlockGasLimit)."""
        return consensus.gas_limit(self.consensus_params(height))

    def consensus_hash(self, height):
        return consensus.hash_of(self.consensus_params(height))

    def committed(self, height, puts):
        """Block `height` is committed with `puts`: keep what the next blocks will ask for."""
        self._carry_valsets(height, puts)
        self._params = _params_after(self._params, height, puts)

    def forget_valsets(self):
        with self._valsets_lock:
            self._valsets = {}

    def forget(self):
        """The chain was rewritten under us (a dev revert or load): nothing read before may be kept."""
        self._params = {}
        self.forget_valsets()

    def _valset_record(self, height):
        """The record of the set of block `height`. A block writes the set two heights above it, so the sets up
        to the head's height + 2 never change but by a rewrite of the chain (forget): those are kept."""
        kept = self._valsets        # replaced, never changed in place
        found = kept.get(height)
        if found is None:
            final = self.blocks.height + 2     # the head before the read: a block committed meanwhile only adds one
            found = valset.record_at(self.db, height)
            if height <= final:
                self._keep_valset(kept, height, found)
        return found

    def _keep_valset(self, kept, height, record):
        with self._valsets_lock:
            # Not into the sets of a chain rewritten since `kept` was taken.
            if self._valsets is kept:
                recent = list(kept.items())[1 - KEPT_SETS:] if len(kept) >= KEPT_SETS else kept.items()
                self._valsets = {**dict(recent), height: record}

    def _carry_valsets(self, height, puts):
        """Block `height` is committed with `puts`: the set of height + 2 is the one it wrote, or else the one
        of height + 1 (no other block writes it)."""
        kept = self._valsets
        record = puts.get(valset.key(height + 2))
        if record is None:
            record = kept.get(height + 1)
        if record is not None:
            self._keep_valset(kept, height + 2, record)


def _params_after(cache, height, puts):
    """The consensus params looked up (height -> ConsensusParams) worth keeping once block `height` is committed
    with `puts`: its own, which are the next height's too unless the block records new ones. That spares each
    block's check_tx a store seek for them; the rest goes, as the cache is bounded by what one head asks for."""
    params = cache.get(height)
    if params is None or consensus.key(height + 1) in puts:
        return {}
    return {height: params, height + 1: params}
