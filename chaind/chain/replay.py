"""Replay a stored chain from genesis into a fresh store and check every block comes out the same.

An operator's proof that the state on disk is what the blocks say: each block's txs are executed
again, with its time and proposer, on a new App over an empty LevelDB, and its header hash and app
hash are compared with the stored ones.
"""

import attrs

from chaind.chain.app import App, DecidedBlock
from chaind.chain.devstate import amended_from
from chaind.chain.options import AppOptions
from chaind.store.db import Database


@attrs.frozen
class Mismatch:
    height: int
    field: str
    stored: bytes
    replayed: bytes
    dev_amended: int = None     # the first height dev methods changed in place, when they did by this one

    def __str__(self):
        why = "" if self.dev_amended is None else (
            f": dev methods (anvil_set*, anvil_mine, anvil_loadState, ...) changed this chain's state in place from "
            f"height {self.dev_amended} on, which no tx records, so its blocks do not replay")
        return (f"height {self.height}: {self.field} differs: stored {self.stored.hex().upper()}, "
                f"replayed {self.replayed.hex().upper()}{why}")


@attrs.frozen
class ReplayReport:
    first_height: int
    last_height: int
    mismatch: Mismatch = None

    @property
    def ok(self):
        return self.mismatch is None


def replay_chain(source, target_path, vote_key=None, validator_address=b"", up_to=None, progress=None):
    """Re-execute `source`'s (an App) blocks into a new store at `target_path`; a ReplayReport.

    vote_key and validator_address must be the validator's that signed the chain (the commits
    each header hashes are signed again). Stops at the first block that differs.
    """
    genesis = source.genesis
    last = source.height if up_to is None else min(up_to, source.height)
    db = Database(target_path)
    try:
        # The plans the chain applied ran their handlers: the replay needs the same ones. One binary replays the
        # whole history: it has the handlers of plans still ahead, rightly.
        first = genesis.initial_height
        # The replay starts from the genesis record the chain was made with (its app hash differs on old chains).
        target = App(db, genesis, AppOptions(vote_key=vote_key, validator_address=validator_address,
                                             upgrade_handlers=source.options.upgrade_handlers,
                                             refuse_early_upgrades=False,
                                             genesis_app_hash=source.block_at(first - 1)[1].app_hash))
        for height in range(first, last + 1):
            header, meta = source.block_at(height)
            raws = [source.tx_at(height, i) for i in range(meta.num_txs)]
            # A header this node made hashes to its block hash; one CometBFT decided (socket mode) lacks
            # the fields FinalizeBlock does not carry, and its hash is taken as CometBFT gave it.
            last_commit, misbehavior, evidence = source.consensus_info(height)
            decided = None if header.hash() == meta.hash else \
                DecidedBlock(height, meta.hash, header.next_validators_hash, misbehavior, last_commit)
            committed, puts = target.finalize_block(raws, header.time_ns, header.proposer_address, decided,
                                                    evidence=evidence if decided is None else ())
            for field, stored, replayed in (("block hash", meta.hash, committed.hash),
                                            ("app hash", meta.app_hash, committed.meta.app_hash)):
                if stored != replayed:
                    amended = amended_from(source.db)
                    return ReplayReport(first, height, Mismatch(height, field, stored, replayed,
                                                                amended if amended is not None and amended <= height
                                                                else None))
            target.commit(committed, puts)
            if progress is not None:
                progress(height, last)
        return ReplayReport(first, last)
    finally:
        db.close()
