"""ibc-go v10's MerkleProof checks (store/commitment.py's *_v2, which cosmos/evm's ICS02 precompile runs) on proofs of
a real chain's ibc store: the verdicts of ibc-go v8's checks, in v10's texts, which carry cosmos/ics23's reason in its
own words and wrapping; and cosmos/ics23's bound of 128 inner steps when a spec sets none."""

import time

import pytest

import ibc_chains as ic
import ibc_client_msgs as m
from chaind.pb.cosmos.ics23.v1 import proofs_pb2
from chaind.pb.ibc.core.commitment.v1 import commitment_pb2
from chaind.store import commitment, ics23
from light_headers import SECOND, key, signed_header, validator_set

STORED = b"clients/07-tendermint-0/clientState"
ABSENT = b"clients/07-tendermint-9/clientState"


@pytest.fixture(scope="module")
def proven(tmp_path_factory):
    """(app hash, value at STORED, its proofs, the proofs of ABSENT) of a chain holding a client."""
    chain = ic.IbcChain(tmp_path_factory.mktemp("chain"), "chainb_9001-1")
    try:
        clock = chain.genesis.genesis_time_ns + ic.S
        vals = validator_set([key(i) for i in range(4)])
        third = signed_header(10, time.time_ns() - 100 * SECOND, vals, vals, None)
        chain.block(clock)
        assert chain.block(clock + ic.S, [m.create(chain.relayer, m.client_state(10), m.consensus_state(third))]) \
            .code == 0
        height = chain.height
        value, proof = chain.proof(STORED.decode(), height)
        _, absence = chain.proof(ABSENT.decode(), height)
        chain.block(clock + 2 * ic.S)
        root = chain.app.block_at(height + 1)[0].app_hash
    finally:
        chain.close()
    return root, value, proofs_of(proof), proofs_of(absence)


def proofs_of(raw):
    return list(commitment_pb2.MerkleProof.FromString(raw).proofs)


def refusal(check, *args):
    with pytest.raises(commitment.CommitmentError) as caught:
        check(commitment.SDK_SPECS, *args)
    return caught.value.code, str(caught.value)


def test_the_v2_checks_take_what_the_v8_checks_take(proven):
    root, value, proofs, absence = proven
    for verify in (commitment.verify_membership, commitment.verify_membership_v2):
        verify(commitment.SDK_SPECS, root, proofs, (b"ibc", STORED), value)
    for verify in (commitment.verify_non_membership, commitment.verify_non_membership_v2):
        verify(commitment.SDK_SPECS, root, absence, (b"ibc", ABSENT))


def test_a_wrong_value_or_key_is_refused_with_ics23_s_reason(proven):
    root, value, proofs, absence = proven
    path = (b"ibc", STORED)
    assert refusal(commitment.verify_membership_v2, root, proofs, path, value + b"x") == (
        2, "failed to verify membership proof at index 0: provided value doesn't match proof: invalid proof")
    assert refusal(commitment.verify_membership_v2, root, proofs, (b"ibc", ABSENT), value) == (
        2, "failed to verify membership proof at index 0: provided key doesn't match proof: invalid proof")
    assert refusal(commitment.verify_membership_v2, root, proofs, (b"acc", STORED), value) == (
        2, "failed to verify membership proof at index 1: provided key doesn't match proof: invalid proof")
    assert refusal(commitment.verify_membership_v2, bytes(32), proofs, path, value)[1].startswith(
        f"proof did not commit to expected root: {'00' * 32}, got: ")
    # v8's texts of the same refusal stay as a relayer gets them.
    assert refusal(commitment.verify_membership, root, proofs, path, value + b"x")[1].startswith(
        "chained membership proof failed to verify membership of value: ")
    assert refusal(commitment.verify_membership_v2, root, [], path, value) == (
        4, "proof must not be empty: invalid merkle proof")


def test_absence_and_presence_proofs_are_told_apart_in_v2_s_words(proven):
    root, value, proofs, absence = proven
    assert refusal(commitment.verify_non_membership_v2, root, proofs, (b"ibc", STORED)) == (
        2, "commitment proof must be non-existence proof for verifying non-membership. got: *ics23.CommitmentProof: "
           "invalid proof")
    assert refusal(commitment.verify_non_membership_v2, root, absence, (b"ibc", STORED)) == (
        2, f"failed to verify non-membership proof with key {STORED.decode()}: key is not right of left proof: "
           "invalid proof")
    assert refusal(commitment.verify_membership_v2, root, absence, (b"ibc", ABSENT), value) == (
        2, "commitment proof must be existence proof. got: int at index &{*ics23.CommitmentProof_Nonexist}: "
           "invalid proof")


def test_a_tampered_step_is_refused_with_the_wrapped_reason(proven):
    root, value, proofs, absence = proven
    leaf = proofs_pb2.CommitmentProof()
    leaf.CopyFrom(proofs[0])
    leaf.exist.leaf.prefix = b"\x01\x02\x02"          # an IAVL leaf of height -1
    assert refusal(commitment.verify_membership_v2, root, [leaf, proofs[1]], (b"ibc", STORED), value) == (
        2, "failed to verify membership proof at index 0: leaf, wrong value in IAVL leaf op: invalid proof")
    neighbour = proofs_pb2.CommitmentProof()
    neighbour.CopyFrom(absence[0])
    name = "left" if neighbour.nonexist.HasField("left") else "right"
    getattr(neighbour.nonexist, name).value += b"x"
    with pytest.raises(ics23.ProofError, match=f"^{name} proof, calculated root doesn't match provided root$"):
        ics23.verify_non_existence(neighbour.nonexist, ics23.IAVL_SPEC, ics23.calculate(absence[0]), ABSENT)
    # A step whose hash is longer than a child (SHA-512 in a tree of 33-byte children): Go wraps a nil error.
    wide = proofs_pb2.ExistenceProof()
    wide.CopyFrom(proofs[0].exist)
    wide.path[0].hash = proofs_pb2.SHA512
    with pytest.raises(ics23.ProofError, match=r"^inner, %!w\(<nil>\)$"):
        ics23.calculate_existence(wide, ics23.IAVL_SPEC)


def test_a_proof_deeper_than_128_steps_breaks_a_spec_without_a_bound(proven):
    _, _, proofs, _ = proven
    assert ics23.TENDERMINT_SPEC.max_depth == 0
    exist = proofs_pb2.ExistenceProof()
    exist.CopyFrom(proofs[1].exist)
    ics23.check_against_spec(exist, ics23.TENDERMINT_SPEC)
    while len(exist.path) <= 128:
        exist.path.append(exist.path[0])
    with pytest.raises(ics23.ProofError, match="^innerOps depth too long: 129$"):
        ics23.check_against_spec(exist, ics23.TENDERMINT_SPEC)
