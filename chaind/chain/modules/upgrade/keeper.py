"""upgrade's keeper and state: the one scheduled plan, the height each plan was applied at, and the module versions."""

import hashlib

from chaind.pb.cosmos.upgrade.v1beta1 import upgrade_pb2
from chaind.store.keys import compose

PLAN = compose("upgrade", "plan")
DONE = compose("upgrade", "done")
VERSIONS = compose("upgrade", "versions")

# The consensus version of each module this chain runs (its ConsensusVersion() in the SDK v0.50 / Evmos v20
# code it follows); a module not listed is at 1. x/upgrade stores them at genesis, and a handler may move them.
CONSENSUS_VERSIONS = {"auth": 5, "bank": 4, "crisis": 2, "distribution": 3, "gov": 5, "staking": 5, "upgrade": 3,
                      "params": 1, "consensus": 1, "slashing": 4, "evidence": 1, "feegrant": 2, "authz": 2,
                      "vesting": 1, "nft": 1, "evm": 8, "feemarket": 5, "erc20": 4, "epochs": 1, "inflation": 3}


def _done_key(name):
    # A plan's name has no length limit: its key holds the name's hash.
    return compose("upgrade", "done", hashlib.sha256(name.encode()).digest())


class UpgradeKeeper:
    """x/upgrade's keeper: reads take a state (a view or a block's context), writes a block's context."""

    def plan(self, state):
        """The scheduled Plan, or None."""
        raw = state.store.get(PLAN)
        return None if raw is None else upgrade_pb2.Plan.FromString(raw)

    def set_plan(self, ctx, p):
        ctx.store.set(PLAN, p.SerializeToString())

    def clear_plan(self, ctx):
        ctx.store.delete(PLAN)

    def done_height(self, state, name):
        """The height plan `name` was applied at; 0 if never."""
        raw = state.store.get(_done_key(name))
        return int(raw) if raw else 0

    def set_done(self, ctx, name, height):
        ctx.store.set(_done_key(name), str(height).encode())

    def module_versions(self, state):
        """{module name: consensus version}, as stored."""
        return {key[len(VERSIONS) + 1:].decode(): int(raw) for key, raw in state.store.iterate(VERSIONS)}

    def set_module_versions(self, ctx, versions):
        for name in self.module_versions(ctx).keys() - versions.keys():
            ctx.store.delete(compose("upgrade", "versions", name.encode()))
        for name, version in versions.items():
            ctx.store.set(compose("upgrade", "versions", name.encode()), str(version).encode())
