"""evidence's keeper (x/evidence/keeper): the equivocations handled, by hash (the SDK's key 0x00 | hash, an Any of
Equivocation), and their punishment through slashing (infraction.go)."""

import hashlib

from google.protobuf import any_pb2
from twisted.logger import Logger

from chaind.chain.modules.slashing import DOUBLE_SIGN, DOUBLE_SIGN_JAIL_END_SECONDS, VALIDATOR_UPDATE_DELAY
from chaind.chain.modules.staking import UNBONDED
from chaind.pb.cosmos.evidence.v1beta1 import evidence_pb2
from chaind.store.keys import compose

log = Logger()

EQUIVOCATION_URL = "/cosmos.evidence.v1beta1.Equivocation"
EVIDENCE = compose("evidence", "ev")


def hash_of(equivocation):
    """Equivocation.Hash(): SHA-256 of its proto encoding."""
    return hashlib.sha256(equivocation.SerializeToString()).digest()


def equivocation(height, time_ns, power, consensus_address):
    e = evidence_pb2.Equivocation(height=height, power=power, consensus_address=consensus_address)
    e.time.seconds, e.time.nanos = divmod(time_ns, 10**9)
    return e


class EvidenceKeeper:
    """x/evidence's keeper, built once from staking's and slashing's keepers. Reads take a state (a view or a
    block's context); writes take a block's context and return the events they caused."""

    def __init__(self, staking, slashing):
        self.staking = staking
        self.slashing = slashing

    def set_evidence(self, ctx, equivocation):
        packed = any_pb2.Any(type_url=EQUIVOCATION_URL, value=equivocation.SerializeToString())
        ctx.store.set(compose("evidence", "ev", hash_of(equivocation)), packed.SerializeToString())

    def evidence(self, state, evidence_hash):
        """The stored Any, or None."""
        raw = state.store.get(compose("evidence", "ev", evidence_hash))
        return None if raw is None else any_pb2.Any.FromString(raw)

    def all_evidence(self, state):
        """[(hash, Any)] by hash."""
        skip = len(EVIDENCE) + 1
        return [(key[skip:], any_pb2.Any.FromString(raw)) for key, raw in state.store.iterate(EVIDENCE)]

    def handle_equivocation(self, ctx, m, evidence_params):
        """handleEquivocationEvidence: evidence of a validator unknown, unbonded, too old (by the block's consensus
        params' `evidence_params`) or already tombstoned is ignored; otherwise slash at the height the
        infraction's power was decided, jail, tombstone, keep it. Returns events."""
        cons = m.address
        v = self.staking.validator_by_cons(ctx, cons)
        if v is None or v.status == UNBONDED:
            return []
        max_age = evidence_params.max_age_duration
        max_age_ns = max_age.seconds * 10**9 + max_age.nanos
        if ctx.time_ns - m.time_ns > max_age_ns and ctx.height - m.height > evidence_params.max_age_num_blocks:
            log.info("ignored equivocation; evidence too old (height {height})", height=m.height)
            return []
        slashing = self.slashing
        info = slashing.signing_info(ctx, cons)
        if info is None or info.tombstoned:
            return []
        events = slashing.slash_with_reason(ctx, cons, slashing.params(ctx).slash_fraction_double_sign, m.power,
                                            m.height - VALIDATOR_UPDATE_DELAY, DOUBLE_SIGN)
        if not self.staking.validator_by_cons(ctx, cons).jailed:
            events += slashing.jail(ctx, cons)
        slashing.jail_until(ctx, cons, DOUBLE_SIGN_JAIL_END_SECONDS)
        slashing.tombstone(ctx, cons)
        self.set_evidence(ctx, equivocation(m.height, m.time_ns, m.power, slashing.valcons(cons)))
        return events
