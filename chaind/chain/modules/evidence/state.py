"""evidence's state: the equivocations handled, by hash (the SDK's key 0x00 | hash, an Any of Equivocation)."""

import hashlib

from google.protobuf import any_pb2

from chaind.pb.cosmos.evidence.v1beta1 import evidence_pb2
from chaind.store.keys import compose

EQUIVOCATION_URL = "/cosmos.evidence.v1beta1.Equivocation"
EVIDENCE = compose("evidence", "ev")


def hash_of(equivocation):
    """Equivocation.Hash(): SHA-256 of its proto encoding."""
    return hashlib.sha256(equivocation.SerializeToString()).digest()


def set_evidence(state, equivocation):
    packed = any_pb2.Any(type_url=EQUIVOCATION_URL, value=equivocation.SerializeToString())
    state.store.set(compose("evidence", "ev", hash_of(equivocation)), packed.SerializeToString())


def evidence(state, evidence_hash):
    """The stored Any, or None."""
    raw = state.store.get(compose("evidence", "ev", evidence_hash))
    return None if raw is None else any_pb2.Any.FromString(raw)


def all_evidence(state):
    """[(hash, Any)] by hash."""
    skip = len(EVIDENCE) + 1
    return [(key[skip:], any_pb2.Any.FromString(raw)) for key, raw in state.store.iterate(EVIDENCE)]


def equivocation(height, time_ns, power, consensus_address):
    e = evidence_pb2.Equivocation(height=height, power=power, consensus_address=consensus_address)
    e.time.seconds, e.time.nanos = divmod(time_ns, 10**9)
    return e
