"""chaind/store/ics23.py and commitment.py, our verifier of ICS-23 proofs: the node's own abci_query proofs (a key
in an IAVL store, that store's root in the commit info) verify up to the app hash, present and absent; every
tampered proof is refused, with ibc-go's codes and texts; and @confio/ics23 (npm) reaches the same verdict on each.
"""

import base64
import json
import subprocess
import urllib.request

import attrs
import pytest
import pytest_twisted

from chaind.pb.cosmos.ics23.v1 import proofs_pb2 as ics23_pb
from chaind.store import commitment, ics23
from helpers import comet, in_thread, url

BANK_BALANCE = b"\x02"


@attrs.frozen
class Proven:
    """One abci_query answer with its proof: the key in store `store`, its value (b"" when absent), the two
    CommitmentProofs (IAVL, then the commit info's simple tree) and the app hash they commit to."""

    store: str
    key: bytes
    value: bytes
    proofs: tuple
    app_hash: bytes


def mine(node):
    request = urllib.request.Request(url(node), data=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "evm_mine",
                                                                  "params": []}).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=20) as response:
        assert "error" not in json.loads(response.read())


def balance_key(address, denom):
    return BANK_BALANCE + bytes([len(address)]) + address + denom.encode()


def query(node, store, key, height):
    answer = comet(node, "abci_query", path=f"/store/{store}/key", data=key.hex(), height=str(height),
                   prove=True)["result"]["response"]
    assert answer["code"] == 0, answer
    ops = answer["proofOps"]["ops"]
    assert [op["type"] for op in ops] == ["ics23:iavl", "ics23:simple"]
    proofs = tuple(ics23_pb.CommitmentProof.FromString(base64.b64decode(op["data"])) for op in ops)
    value = base64.b64decode(answer["value"] or "")
    return Proven(store, key, value, proofs, node.app.block_at(height)[1].app_hash)


@pytest.fixture
def proven(node):
    """Proofs at height 2 of the dev chain: a present balance, absent keys in the middle, before the first and
    after the last key of the bank store."""
    keys = node.home.dev_keys()
    denom = node.app.genesis.base_denom

    def ask():
        while node.app.height < 3:      # height 2's app hash is in header 3; the test chain makes no empty blocks
            mine(node)
        return {"present": query(node, "bank", balance_key(keys[1].address, denom), 2),
                "neighbour": query(node, "bank", balance_key(keys[2].address, denom), 2),
                "absent": query(node, "bank", balance_key(b"\x42" * 20, denom), 2),
                "first": query(node, "bank", b"\x00", 2),
                "last": query(node, "bank", b"\xff\xff", 2)}
    return pytest_twisted.blockon(in_thread(ask))


def test_the_nodes_proofs_verify_up_to_the_app_hash(proven):
    present = proven["present"]
    assert present.value and int(present.value) > 0
    commitment.verify_membership(commitment.SDK_SPECS, present.app_hash, present.proofs, ["bank", present.key],
                                 present.value)
    for name in ("absent", "first", "last"):
        absent = proven[name]
        assert absent.value == b"" and absent.proofs[0].WhichOneof("proof") == "nonexist"
        commitment.verify_non_membership(commitment.SDK_SPECS, absent.app_hash, absent.proofs, ["bank", absent.key])
    # The ends of the store: no left neighbour before the first key, no right one after the last.
    assert not proven["first"].proofs[0].nonexist.HasField("left")
    assert not proven["last"].proofs[0].nonexist.HasField("right")
    # Each level alone, as ibc-go's chain of proofs checks it.
    store_root = present.proofs[1].exist.value
    assert ics23.verify_membership(ics23.IAVL_SPEC, store_root, present.proofs[0], present.key, present.value)
    assert ics23.verify_membership(ics23.TENDERMINT_SPEC, present.app_hash, present.proofs[1], b"bank", store_root)
    assert ics23.calculate(present.proofs[0]) == store_root


def _copy(proof):
    return ics23_pb.CommitmentProof.FromString(proof.SerializeToString())


def _tamper(proof, change):
    tampered = _copy(proof)
    change(tampered)
    return tampered


def _flip(data, at):
    at %= len(data)
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1:]


def membership_cases(proven):
    """(name, store proof, key, value, root) for the IAVL level: the true one first, then tampered ones."""
    present, neighbour = proven["present"], proven["neighbour"]
    proof, key, value = present.proofs[0], present.key, present.value
    root = present.proofs[1].exist.value
    exist = proof.exist
    inner = len(exist.path) - 1
    top_prefix = exist.path[inner].prefix

    def set_leaf_prefix(p, prefix):
        p.exist.leaf.prefix = prefix

    def set_inner(p, index, prefix=None, suffix=None):
        if prefix is not None:
            p.exist.path[index].prefix = prefix
        if suffix is not None:
            p.exist.path[index].suffix = suffix

    def drop_step(p):
        del p.exist.path[0]

    def add_step(p):
        p.exist.path.append(ics23_pb.InnerOp(hash=ics23_pb.SHA256, prefix=exist.path[-1].prefix,
                                             suffix=exist.path[-1].suffix))

    return [
        ("true", proof, key, value, root),
        ("value changed", proof, key, value + b"0", root),
        ("value of another key", proof, key, neighbour.value + b"1", root),
        ("proof of another key", neighbour.proofs[0], key, value, root),
        ("key changed", _tamper(proof, lambda p: setattr(p.exist, "key", key + b"x")), key + b"x", value, root),
        ("leaf version flipped", _tamper(proof, lambda p: set_leaf_prefix(p, _flip(exist.leaf.prefix, 2))),
         key, value, root),
        ("leaf prefix lengthened", _tamper(proof, lambda p: set_leaf_prefix(p, exist.leaf.prefix + b"\x00")),
         key, value, root),
        ("leaf hashed with SHA-512", _tamper(proof, lambda p: setattr(p.exist.leaf, "hash", ics23_pb.SHA512)),
         key, value, root),
        ("inner prefix flipped", _tamper(proof, lambda p: set_inner(p, inner, prefix=_flip(top_prefix, -1))),
         key, value, root),
        ("inner suffix lengthened", _tamper(proof, lambda p: set_inner(p, 0, suffix=exist.path[0].suffix + b"\x00")),
         key, value, root),
        ("a step dropped", _tamper(proof, drop_step), key, value, root),
        ("a step repeated", _tamper(proof, add_step), key, value, root),
        ("another root", proof, key, value, _flip(root, 0)),
        ("an empty proof", ics23_pb.CommitmentProof(), key, value, root),
    ]


def non_membership_cases(proven):
    """(name, store proof, key, root) for absence at the IAVL level: the true ones, then tampered ones."""
    absent, first, present = proven["absent"], proven["first"], proven["present"]
    proof, key = absent.proofs[0], absent.key
    root = absent.proofs[1].exist.value
    nonexist = proof.nonexist

    def widen(p):
        # A right neighbour further right: its proof holds, but it is no neighbour of the left one.
        p.nonexist.right.CopyFrom(_further_right(proven))

    def drop_left(p):
        p.nonexist.ClearField("left")

    def drop_right(p):
        p.nonexist.ClearField("right")

    def swap(p):
        p.nonexist.left.CopyFrom(nonexist.right)
        p.nonexist.right.CopyFrom(nonexist.left)

    return [
        ("true", proof, key, root),
        ("true, before the first key", first.proofs[0], first.key, first.proofs[1].exist.value),
        ("a present key", proof, nonexist.left.key, root),
        ("a key outside the neighbours", proof, b"\x03", root),
        ("right neighbour too far", _tamper(proof, widen), key, root),
        ("left neighbour dropped", _tamper(proof, drop_left), key, root),
        ("right neighbour dropped", _tamper(proof, drop_right), key, root),
        ("neighbours swapped", _tamper(proof, swap), key, root),
        ("membership proof instead", present.proofs[0], key, root),
        ("another root", proof, key, _flip(root, 5)),
    ]


def _further_right(proven):
    """The existence proof two keys right of the absent key's left neighbour."""
    right = proven["absent"].proofs[0].nonexist.right
    for candidate in ("present", "neighbour"):
        proof = proven[candidate].proofs[0].exist
        if proof.key > right.key:
            return proof
    pytest.fail("the dev chain has no balance right of the absent key's right neighbour")


def test_tampered_store_proofs_are_refused(proven):
    memberships = membership_cases(proven)
    assert [ics23.verify_membership(ics23.IAVL_SPEC, root, proof, key, value)
            for _, proof, key, value, root in memberships] == [True] + [False] * (len(memberships) - 1)
    absences = non_membership_cases(proven)
    assert [ics23.verify_non_membership(ics23.IAVL_SPEC, root, proof, key)
            for _, proof, key, root in absences] == [True, True] + [False] * (len(absences) - 2)


def test_an_iavl_step_below_its_layer_or_with_a_stray_byte_is_refused_whatever_it_hashes_to(proven):
    exist = proven["present"].proofs[0].exist
    with pytest.raises(ics23.ProofError, match="wrong value in IAVL leaf op"):
        low = ics23_pb.ExistenceProof()
        low.CopyFrom(exist)
        low.path[0].prefix = b"\x00" + low.path[0].prefix[1:]    # height 0 at layer 1
        ics23.check_against_spec(low, ics23.IAVL_SPEC)
    with pytest.raises(ics23.ProofError, match="invalid op"):
        stray = ics23_pb.ExistenceProof()
        stray.CopyFrom(exist)
        stray.path[0].prefix += b"\x00"
        ics23.check_against_spec(stray, ics23.IAVL_SPEC)
    ics23.check_against_spec(exist, ics23.IAVL_SPEC)


def test_the_chain_of_proofs_fails_with_ibc_gos_codes_and_texts(proven):
    present, absent = proven["present"], proven["absent"]
    specs, path = commitment.SDK_SPECS, ["bank", present.key]

    def failure(call, *args):
        with pytest.raises(commitment.CommitmentError) as raised:
            call(*args)
        return raised.value.code, str(raised.value)

    code, text = failure(commitment.verify_membership, specs, present.app_hash, (), path, present.value)
    assert (code, text) == (4, "proof cannot be empty: invalid merkle proof")
    code, text = failure(commitment.verify_membership, specs, b"", present.proofs, path, present.value)
    assert (code, text) == (4, "root cannot be empty: invalid merkle proof")
    code, text = failure(commitment.verify_membership, specs[:1], present.app_hash, present.proofs, path,
                         present.value)
    assert (code, text) == (4, "length of specs: 1 not equal to length of proof: 2: invalid merkle proof")
    code, text = failure(commitment.verify_membership, specs, present.app_hash, present.proofs, ["bank"],
                         present.value)
    assert (code, text) == (2, "path length 1 not same as proof 2: invalid proof")
    code, text = failure(commitment.verify_membership, specs, present.app_hash, present.proofs, path, b"")
    assert (code, text) == (2, "empty value in membership proof: invalid proof")
    code, text = failure(commitment.verify_membership, specs, present.app_hash, present.proofs, path, b"1")
    assert code == 2 and text.startswith("chained membership proof failed to verify membership of value: 31 in "
                                         "subroot ") and text.endswith(" at index 0. Please ensure the path and "
                                                                       "value are both correct.: invalid proof")
    code, text = failure(commitment.verify_membership, specs, present.app_hash, present.proofs, ["acc", present.key],
                         present.value)
    assert code == 2 and "at index 1." in text
    wrong_root = bytes(32)
    code, text = failure(commitment.verify_membership, specs, wrong_root, present.proofs, path, present.value)
    assert (code, text) == (2, f"proof did not commit to expected root: {'00' * 32}, got: "
                               f"{present.app_hash.hex().upper()}. Please ensure proof was submitted with correct "
                               "proofHeight and to the correct chain.: invalid proof")
    code, text = failure(commitment.verify_non_membership, specs, present.app_hash, present.proofs, path)
    assert (code, text) == (2, "got ExistenceProof in VerifyNonMembership. If this is unexpected, please ensure "
                               "that proof was queried with the correct key.: invalid proof")
    code, text = failure(commitment.verify_non_membership, specs, absent.app_hash, absent.proofs,
                         ["bank", present.key])
    # Go prints the key's bytes as they are; a text here takes them as UTF-8, any that are not replaced.
    assert (code, text) == (2, f"could not verify absence of key {present.key.decode('utf-8', 'replace')}. Please "
                               "ensure that the path is correct.: invalid proof")
    code, text = failure(commitment.verify_membership, specs, absent.app_hash, absent.proofs, ["bank", absent.key],
                         b"1")
    assert code == 2 and text.startswith("chained membership proof contains nonexistence proof at index 0.")
    assert commitment.apply_prefix(b"ibc", ["clients/07-tendermint-0/clientState"]) == \
        (b"ibc", b"clients/07-tendermint-0/clientState")
    assert failure(commitment.apply_prefix, b"", ["x"]) == (3, "prefix can't be empty: invalid prefix")


@pytest.mark.external
def test_confio_ics23_reaches_the_same_verdict_on_every_case(proven, ics23_client):
    cases, ours = [], []
    for name, proof, key, value, root in membership_cases(proven):
        cases.append({"name": name, "spec": "iavl", "root": root.hex(), "proof": proof.SerializeToString().hex(),
                      "key": key.hex(), "value": value.hex()})
        ours.append(ics23.verify_membership(ics23.IAVL_SPEC, root, proof, key, value))
    for name, proof, key, root in non_membership_cases(proven):
        cases.append({"name": name, "spec": "iavl", "root": root.hex(), "proof": proof.SerializeToString().hex(),
                      "key": key.hex(), "value": None})
        ours.append(ics23.verify_non_membership(ics23.IAVL_SPEC, root, proof, key))
    present = proven["present"]
    simple = present.proofs[1]
    store_root = simple.exist.value
    for name, store, root in (("true", b"bank", present.app_hash), ("store renamed", b"bonk", present.app_hash),
                              ("another root", b"bank", _flip(present.app_hash, 31))):
        cases.append({"name": f"commit info: {name}", "spec": "tendermint", "root": root.hex(),
                      "proof": simple.SerializeToString().hex(), "key": store.hex(), "value": store_root.hex()})
        ours.append(ics23.verify_membership(ics23.TENDERMINT_SPEC, root, simple, store, store_root))
    run = subprocess.run(["node", str(ics23_client / "judge.js")], input=json.dumps({"cases": cases}),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    theirs = json.loads(run.stdout)
    assert [(case["name"], verdict) for case, verdict in zip(cases, ours, strict=True)] == \
        [(case["name"], verdict) for case, verdict in zip(cases, theirs, strict=True)]
    assert ours.count(True) == 4
