"""A membership check whose root the caller has just calculated from the proof (commitment.py's chained checks) hashes
the proof once: its verdict and reason are those of the check that hashes it again, the spec's bound on a step's
output among them."""

import pytest

from chaind.pb.cosmos.ics23.v1 import proofs_pb2
from chaind.store import ics23


def _spec(inner_hash, child_size):
    return proofs_pb2.ProofSpec(leaf_spec=ics23.TENDERMINT_SPEC.leaf_spec, inner_spec=proofs_pb2.InnerSpec(
        child_order=[0, 1], min_prefix_length=1, max_prefix_length=1, child_size=child_size, hash=inner_hash))


def _proof(inner_hash, child_size=32, steps=2):
    exist = proofs_pb2.ExistenceProof(key=b"key", value=b"value", leaf=ics23.TENDERMINT_SPEC.leaf_spec)
    for i in range(steps):
        exist.path.append(proofs_pb2.InnerOp(hash=inner_hash, prefix=b"\x01", suffix=bytes([i]) * child_size))
    return proofs_pb2.CommitmentProof(exist=exist)


def _verdicts(spec, proof, key, value):
    """(verdict, reason) of verify_existence hashing again and of it taking calculate()'s root, on that root."""
    root = ics23.calculate(proof)
    found = []
    for calculated in (False, True):
        try:
            ics23.verify_existence(proof.exist, spec, root, key, value, root_calculated=calculated)
            found.append((True, None))
        except ics23.ProofError as e:
            found.append((False, str(e)))
        assert ics23.verify_membership(spec, root, proof, key, value, root_calculated=calculated) is found[-1][0]
    return found


@pytest.mark.parametrize(("inner_hash", "child_size", "expected"), [
    (proofs_pb2.SHA256, 32, (True, None)),
    (proofs_pb2.SHA512, 64, (True, None)),
    # A step's output longer than a child: cosmos/ics23 wraps a nil error.
    (proofs_pb2.SHA512, 32, (False, "error calculating root, inner, %!w(<nil>)")),
    (proofs_pb2.BLAKE2B_512, 33, (False, "error calculating root, inner, %!w(<nil>)")),
    # Children under 32 bytes are not bounded (as cosmos/ics23).
    (proofs_pb2.SHA512, 20, (True, None)),
])
def test_the_bound_on_a_steps_output_is_kept(inner_hash, child_size, expected):
    assert _verdicts(_spec(inner_hash, child_size), _proof(inner_hash, child_size), b"key", b"value") == [expected] * 2


@pytest.mark.parametrize(("key", "value", "reason"), [
    (b"other", b"value", None),                                     # no existence proof of this key
    (b"key", b"other", "provided value doesn't match proof"),
])
def test_a_wrong_key_or_value_is_refused_alike(key, value, reason):
    verdicts = _verdicts(_spec(proofs_pb2.SHA256, 32), _proof(proofs_pb2.SHA256), key, value)
    if reason is None:
        assert verdicts == [(False, "provided key doesn't match proof")] * 2
    else:
        assert verdicts == [(False, reason)] * 2


def test_a_step_out_of_the_specs_shape_is_refused_before_any_root():
    proof = _proof(proofs_pb2.SHA256)
    proof.exist.path[1].prefix = b"\x00"            # an inner step that looks like a leaf
    assert _verdicts(_spec(proofs_pb2.SHA256, 32), proof, b"key", b"value") == \
        [(False, "inner, inner Prefix starts with 00")] * 2
