"""A chain of ICS-23 proofs along a Merkle path, checked as ibc-go v8's 23-commitment checks a MerkleProof: a key in
a module store (IAVL), that store's root in the multistore's commit info (the simple tree), up to an app hash.

The *_v2 checks are ibc-go v10's on (commitment/v2 paths of bytes), which cosmos/evm's ICS02 precompile runs: the
same verdicts, other texts, which carry cosmos/ics23's reason.
"""

import attrs

from chaind.store import ics23

CODESPACE = "commitment"
# ibc-go's modules/core/23-commitment/types/errors.go.
INVALID_PROOF = 2
INVALID_PREFIX = 3
INVALID_MERKLE_PROOF = 4
_REGISTERED = {INVALID_PROOF: "invalid proof", INVALID_PREFIX: "invalid prefix",
               INVALID_MERKLE_PROOF: "invalid merkle proof"}

# A Cosmos SDK chain's stores, lowest first: what ibc-go's GetSDKSpecs gives a client of such a chain.
SDK_SPECS = (ics23.IAVL_SPEC, ics23.TENDERMINT_SPEC)

# How ibc-go names the CommitmentProof cases in its texts (Go's %T of the oneof wrappers).
_GO_TYPES = {"exist": "*ics23.CommitmentProof_Exist", "nonexist": "*ics23.CommitmentProof_Nonexist",
             "batch": "*ics23.CommitmentProof_Batch", "compressed": "*ics23.CommitmentProof_Compressed",
             None: "<nil>"}


@attrs.frozen
class CommitmentError(Exception):
    """A commitment failure as ibc-go reports it: code in the `commitment` codespace, and its wrapped text."""

    code: int
    detail: str

    @property
    def codespace(self):
        return CODESPACE

    def __str__(self):
        return f"{self.detail}: {_REGISTERED[self.code]}"


def apply_prefix(prefix, path):
    """The Merkle path of `path` (keys from the store down) under a counterparty's key prefix (its store name)."""
    if not prefix:
        raise CommitmentError(INVALID_PREFIX, "prefix can't be empty")
    return (_key(prefix), *(_key(key) for key in path))


def verify_membership(specs, root, proofs, path, value):
    """Raises CommitmentError unless `proofs` (CommitmentProofs, lowest store first) show that the key `path`
    names (store keys, root first) holds `value` under the app hash `root`."""
    path = tuple(_key(key) for key in path)
    _check_arguments(specs, root, proofs, path)
    if not value:
        raise CommitmentError(INVALID_PROOF, "empty value in membership proof")
    _verify_chained_membership(root, specs, proofs, path, value, 0)


def verify_non_membership(specs, root, proofs, path):
    """Raises CommitmentError unless `proofs` show that the key `path` names is absent from its store, and that
    store's root is committed up to `root`."""
    path = tuple(_key(key) for key in path)
    _check_arguments(specs, root, proofs, path)
    kind = proofs[0].WhichOneof("proof")
    if kind == "exist":
        raise CommitmentError(INVALID_PROOF, "got ExistenceProof in VerifyNonMembership. If this is unexpected, "
                                             "please ensure that proof was queried with the correct key.")
    if kind != "nonexist":
        raise CommitmentError(INVALID_PROOF, f"expected proof type: {_GO_TYPES['exist']}, got: {_GO_TYPES[kind]}")
    try:
        subroot = ics23.calculate(proofs[0])
    except ics23.ProofError as e:
        raise CommitmentError(INVALID_PROOF, "could not calculate root for proof index 0, merkle tree is likely "
                                             f"empty. {e}") from None
    key = path[-1]
    if not ics23.verify_non_membership(specs[0], subroot, proofs[0], key):
        raise CommitmentError(INVALID_PROOF, f"could not verify absence of key {_text(key)}. Please ensure that the "
                                             "path is correct.")
    _verify_chained_membership(root, specs, proofs, path, subroot, 1)


def verify_membership_v2(specs, root, proofs, path, value):
    """verify_membership in ibc-go v10's texts."""
    path = tuple(_key(key) for key in path)
    _check_arguments_v2(specs, root, proofs, path)
    if not value:
        raise CommitmentError(INVALID_PROOF, "empty value in membership proof")
    _verify_chained_membership_v2(root, specs, proofs, path, value, 0)


def verify_non_membership_v2(specs, root, proofs, path):
    """verify_non_membership in ibc-go v10's texts."""
    path = tuple(_key(key) for key in path)
    _check_arguments_v2(specs, root, proofs, path)
    try:
        subroot = ics23.calculate(proofs[0])
    except ics23.ProofError as e:
        raise CommitmentError(INVALID_PROOF, "could not calculate root for proof index 0, merkle tree is likely "
                                             f"empty. {e}") from None
    if proofs[0].WhichOneof("proof") != "nonexist":
        raise CommitmentError(INVALID_PROOF, "commitment proof must be non-existence proof for verifying "
                                             "non-membership. got: *ics23.CommitmentProof")
    key = path[-1]
    try:
        ics23.verify_non_existence(proofs[0].nonexist, specs[0], subroot, key)
    except ics23.ProofError as e:
        raise CommitmentError(INVALID_PROOF, f"failed to verify non-membership proof with key {_text(key)}: "
                                             f"{e}") from None
    _verify_chained_membership_v2(root, specs, proofs, path, subroot, 1)


def _check_arguments_v2(specs, root, proofs, path):
    if not proofs:
        raise CommitmentError(INVALID_MERKLE_PROOF, "proof must not be empty")
    _check_arguments(specs, root, proofs, path)


def _verify_chained_membership_v2(root, specs, proofs, path, value, start):
    subroot = value
    for i in range(start, len(proofs)):
        try:
            subroot = ics23.calculate(proofs[i])
        except ics23.ProofError as e:
            raise CommitmentError(INVALID_PROOF, f"could not calculate proof root at index {i}, merkle tree may be "
                                                 f"empty. {e}") from None
        key = path[len(path) - 1 - i]
        kind = proofs[i].WhichOneof("proof")
        if kind != "exist":
            # ibc-go's arguments are swapped there: Go prints the proof's memory address where its type is here.
            raise CommitmentError(INVALID_PROOF, f"commitment proof must be existence proof. got: int at index "
                                                 f"&{{{_GO_TYPES[kind]}}}")
        try:
            ics23.verify_existence(proofs[i].exist, specs[i], subroot, key, value, root_calculated=True)
        except ics23.ProofError as e:
            raise CommitmentError(INVALID_PROOF, f"failed to verify membership proof at index {i}: {e}") from None
        value = subroot
    _check_root(root, subroot)


def _check_arguments(specs, root, proofs, path):
    if not proofs:
        raise CommitmentError(INVALID_MERKLE_PROOF, "proof cannot be empty")
    if not root:
        raise CommitmentError(INVALID_MERKLE_PROOF, "root cannot be empty")
    if len(specs) != len(proofs):
        raise CommitmentError(INVALID_MERKLE_PROOF, f"length of specs: {len(specs)} not equal to length of proof: "
                                                    f"{len(proofs)}")
    for i, spec in enumerate(specs):
        if spec is None:
            raise CommitmentError(INVALID_PROOF, f"spec at position {i} is nil")
    if len(path) != len(specs):
        raise CommitmentError(INVALID_PROOF, f"path length {len(path)} not same as proof {len(specs)}")


def _verify_chained_membership(root, specs, proofs, path, value, start):
    """From proof `start` up, each proof shows the value below it (the key's value, then each subroot) under the
    next subroot, and the last subroot is `root`."""
    subroot = value
    for i in range(start, len(proofs)):
        kind = proofs[i].WhichOneof("proof")
        if kind == "nonexist":
            keys = " ".join(_text(key) for key in path)
            raise CommitmentError(INVALID_PROOF, f"chained membership proof contains nonexistence proof at index {i}. "
                                                 "If this is unexpected, please ensure that proof was queried from a "
                                                 "height that contained the value in store and was queried with the "
                                                 f"correct key. The key used: {{[{keys}]}}")
        if kind != "exist":
            raise CommitmentError(INVALID_PROOF, f"expected proof type: {_GO_TYPES['exist']}, got: {_GO_TYPES[kind]}")
        try:
            subroot = ics23.calculate(proofs[i])
        except ics23.ProofError as e:
            raise CommitmentError(INVALID_PROOF, f"could not calculate proof root at index {i}, merkle tree may be "
                                                 f"empty. {e}") from None
        # Proofs go from the lowest store up; the path's keys from the top down.
        key = path[len(path) - 1 - i]
        if not ics23.verify_membership(specs[i], subroot, proofs[i], key, value, root_calculated=True):
            raise CommitmentError(INVALID_PROOF, "chained membership proof failed to verify membership of value: "
                                                 f"{value.hex().upper()} in subroot {subroot.hex().upper()} at index "
                                                 f"{i}. Please ensure the path and value are both correct.")
        value = subroot
    _check_root(root, subroot)


def _check_root(root, subroot):
    if subroot != root:
        raise CommitmentError(INVALID_PROOF, f"proof did not commit to expected root: {root.hex().upper()}, got: "
                                             f"{subroot.hex().upper()}. Please ensure proof was submitted with correct "
                                             "proofHeight and to the correct chain.")


def _key(key):
    return key.encode() if isinstance(key, str) else bytes(key)


def _text(key):
    return key.decode("utf-8", "replace")
