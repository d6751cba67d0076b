"""ICS-23 proof verification: does a CommitmentProof show a key's value, or its absence, under a root, in the
shape a ProofSpec fixes? Decided as cosmos/ics23 go v0.11.0 (the version ibc-go v8 builds with) decides it.
"""

import hashlib
import struct

from chaind.pb.cosmos.ics23.v1 import proofs_pb2 as ics23
from chaind.store.iavl.node import uvarint

_DEFAULT_MAX_DEPTH = 128        # cosmos/ics23's bound on a proof's inner steps when its spec sets none


class ProofError(ValueError):
    """Why a proof does not hold, in cosmos/ics23's words with its wrapping ("leaf, ...", "inner, ..."): ibc-go v8
    reports only that a proof failed, ibc-go v10 on gives the reason."""


def _leaf_spec():
    return ics23.LeafOp(prefix=b"\x00", prehash_key=ics23.NO_HASH, hash=ics23.SHA256,
                        prehash_value=ics23.SHA256, length=ics23.VAR_PROTO)


# iavl's trees (cosmos/ics23 IavlSpec): an inner node's child is a length byte and its 32-byte hash.
IAVL_SPEC = ics23.ProofSpec(leaf_spec=_leaf_spec(), inner_spec=ics23.InnerSpec(
    child_order=[0, 1], min_prefix_length=4, max_prefix_length=12, child_size=33, hash=ics23.SHA256))
# CometBFT's simple Merkle tree (TendermintSpec), which the multistore's commit info is.
TENDERMINT_SPEC = ics23.ProofSpec(leaf_spec=_leaf_spec(), inner_spec=ics23.InnerSpec(
    child_order=[0, 1], min_prefix_length=1, max_prefix_length=1, child_size=32, hash=ics23.SHA256))


def verify_membership(spec, root, proof, key, value, root_calculated=False):
    """Whether `proof` (a CommitmentProof) proves that `key` holds `value` under `root`, in `spec`'s shape.
    `root_calculated`: `root` is what calculate(proof) just gave for this existence proof (verify_existence's)."""
    try:
        exist = _existence_for_key(decompress(proof), key)
        if exist is None:
            return False
        verify_existence(exist, spec, root, key, value, root_calculated)
    except ProofError:
        return False
    return True


def verify_non_membership(spec, root, proof, key):
    """Whether `proof` proves that `key` is absent under `root`: two neighbouring leaves on either side of it."""
    try:
        absent = _non_existence_for_key(decompress(proof), key)
        if absent is None:
            return False
        verify_non_existence(absent, spec, root, key)
    except ProofError:
        return False
    return True


def calculate(proof):
    """The root a CommitmentProof commits to (its first proof's, for a batch); it still has to be verified."""
    kind = proof.WhichOneof("proof")
    if kind == "exist":
        return calculate_existence(proof.exist)
    if kind == "nonexist":
        return _calculate_non_existence(proof.nonexist)
    if kind == "batch":
        if not proof.batch.entries or proof.batch.entries[0].WhichOneof("proof") is None:
            raise ProofError("batch proof has empty entry")
        first = proof.batch.entries[0]
        if first.HasField("exist"):
            return calculate_existence(first.exist)
        return _calculate_non_existence(first.nonexist)
    if kind == "compressed":
        return calculate(decompress(proof))
    raise ProofError("unrecognized proof type")


def _calculate_non_existence(absent):
    if absent.HasField("left"):
        return calculate_existence(absent.left)
    if absent.HasField("right"):
        return calculate_existence(absent.right)
    raise ProofError("nonexistence proof has empty Left and Right proof")


def calculate_existence(exist, spec=None):
    """The root an ExistenceProof hashes up to: its leaf, then each inner step."""
    if not exist.HasField("leaf"):
        raise ProofError("existence Proof needs defined LeafOp")
    try:
        result = _apply_leaf(exist.leaf, exist.key, exist.value)
    except ProofError as e:
        raise ProofError(f"leaf, {e}") from None
    for step in exist.path:
        try:
            result = _apply_inner(step, result)
        except ProofError as e:
            raise ProofError(f"inner, {e}") from None
        # A step whose output is longer than a child may be is no hash of this tree (cosmos/ics23 wraps a nil
        # error there, which Go prints as it is written here).
        if spec is not None and spec.inner_spec.child_size >= 32 and len(result) > spec.inner_spec.child_size:
            raise ProofError("inner, %!w(<nil>)")
    return result


def verify_existence(exist, spec, root, key, value, root_calculated=False):
    """Raises ProofError unless `exist` is in `spec`'s shape and proves key -> value under root. `root_calculated`:
    `root` is calculate_existence(exist) (the caller's, without a spec), so the steps are not hashed again: only the
    spec's bound on each step's output, the one check a spec adds to that calculation, is applied."""
    check_against_spec(exist, spec)
    if key != exist.key:
        raise ProofError("provided key doesn't match proof")
    if value != exist.value:
        raise ProofError("provided value doesn't match proof")
    try:
        if root_calculated:
            _check_step_outputs(exist, spec)
            calculated = root
        else:
            calculated = calculate_existence(exist, spec)
    except ProofError as e:
        raise ProofError(f"error calculating root, {e}") from None
    if calculated != root:
        raise ProofError("calculated root doesn't match provided root")


def _check_step_outputs(exist, spec):
    """calculate_existence's spec check on a proof whose steps all hashed: a step's output is its hash's digest."""
    if spec.inner_spec.child_size < 32:
        return
    for step in exist.path:
        if _DIGEST_SIZES[step.hash] > spec.inner_spec.child_size:
            raise ProofError("inner, %!w(<nil>)")


def verify_non_existence(absent, spec, root, key):
    """Raises ProofError unless the neighbours of `absent` are proven under root and `key` falls between them."""
    left = absent.left if absent.HasField("left") else None
    right = absent.right if absent.HasField("right") else None
    for side, found in (("left", left), ("right", right)):
        if found is not None:
            try:
                verify_existence(found, spec, root, found.key, found.value)
            except ProofError as e:
                raise ProofError(f"{side} proof, {e}") from None
    if left is None and right is None:
        raise ProofError("both left and right proofs missing")
    compared = _key_for_comparison(spec, key)
    if right is not None and compared >= _key_for_comparison(spec, right.key):
        raise ProofError("key is not left of right proof")
    if left is not None and compared <= _key_for_comparison(spec, left.key):
        raise ProofError("key is not right of left proof")
    inner = spec.inner_spec
    if left is None:
        if not _is_left_most(inner, right.path):
            raise ProofError("left proof missing, right proof must be left-most")
    elif right is None:
        if not _is_right_most(inner, left.path):
            raise ProofError("right proof missing, left proof must be right-most")
    elif not _is_left_neighbor(inner, list(left.path), list(right.path)):
        raise ProofError("right proof missing, left proof must be right-most")    # sic: cosmos/ics23's text


def check_against_spec(exist, spec):
    """Raises ProofError unless the leaf and every step of `exist` have the shape `spec` fixes."""
    if not exist.HasField("leaf"):
        raise ProofError("existence Proof needs defined LeafOp")
    try:
        # Whether the spec is IAVL's, asked once for the leaf and every step.
        iavl = _is_iavl(spec)
        _check_leaf(exist.leaf, spec, iavl)
    except ProofError as e:
        raise ProofError(f"leaf, {e}") from None
    depth = len(exist.path)
    if spec.min_depth > 0 and depth < spec.min_depth:
        raise ProofError(f"innerOps depth too short: {depth}")
    if depth > (spec.max_depth or _DEFAULT_MAX_DEPTH):
        raise ProofError(f"innerOps depth too long: {depth}")
    shape = _InnerShape(spec)
    for layer, step in enumerate(exist.path, start=1):
        try:
            _check_inner(step, shape, layer, iavl)
        except ProofError as e:
            raise ProofError(f"inner, {e}") from None


def spec_equals(a, b):
    """cosmos/ics23's SpecEquals: the fields that fix how leaves and inner nodes hash (it ignores the rest)."""
    return (a.leaf_spec.hash == b.leaf_spec.hash and a.leaf_spec.prehash_key == b.leaf_spec.prehash_key
            and a.leaf_spec.prehash_value == b.leaf_spec.prehash_value and a.leaf_spec.length == b.leaf_spec.length
            and a.inner_spec.hash == b.inner_spec.hash
            and a.inner_spec.min_prefix_length == b.inner_spec.min_prefix_length
            and a.inner_spec.max_prefix_length == b.inner_spec.max_prefix_length
            and a.inner_spec.child_size == b.inner_spec.child_size
            and len(a.inner_spec.child_order) == len(b.inner_spec.child_order))


def decompress(proof):
    """A compressed batch proof with its steps looked up again; any other proof as it is."""
    if proof.WhichOneof("proof") != "compressed":
        return proof
    lookup = proof.compressed.lookup_inners
    entries = []
    for entry in proof.compressed.entries:
        if entry.HasField("exist"):
            entries.append(ics23.BatchEntry(exist=_decompress_existence(entry.exist, lookup)))
        elif entry.HasField("nonexist"):
            absent = entry.nonexist
            entries.append(ics23.BatchEntry(nonexist=ics23.NonExistenceProof(
                key=absent.key,
                left=_decompress_existence(absent.left, lookup) if absent.HasField("left") else None,
                right=_decompress_existence(absent.right, lookup) if absent.HasField("right") else None)))
        else:
            entries.append(ics23.BatchEntry())
    return ics23.CommitmentProof(batch=ics23.BatchProof(entries=entries))


def _decompress_existence(exist, lookup):
    try:
        path = [lookup[index] for index in exist.path]
    except IndexError:
        raise ProofError("compressed proof names a step its lookup table lacks") from None
    return ics23.ExistenceProof(key=exist.key, value=exist.value, leaf=exist.leaf, path=path)


def _existence_for_key(proof, key):
    kind = proof.WhichOneof("proof")
    if kind == "exist":
        return proof.exist if proof.exist.key == key else None
    if kind == "batch":
        for entry in proof.batch.entries:
            if entry.HasField("exist") and entry.exist.key == key:
                return entry.exist
    return None


def _non_existence_for_key(proof, key):
    def around(absent):
        return ((not absent.HasField("left") or absent.left.key < key)
                and (not absent.HasField("right") or absent.right.key > key))

    kind = proof.WhichOneof("proof")
    if kind == "nonexist":
        return proof.nonexist if around(proof.nonexist) else None
    if kind == "batch":
        for entry in proof.batch.entries:
            if entry.HasField("nonexist") and around(entry.nonexist):
                return entry.nonexist
    return None


def _key_for_comparison(spec, key):
    if not spec.prehash_key_before_comparison:
        return key
    try:
        return _hash_or_noop(spec.leaf_spec.prehash_key, key)
    except ProofError:
        return b""      # cosmos/ics23 drops the hashing error and compares an empty key


# The leaf and inner steps.

def _apply_leaf(op, key, value):
    if not key:
        raise ProofError("leaf op needs key")
    if not value:
        raise ProofError("leaf op needs value")
    try:
        prepared_key = _length(op.length, _hash_or_noop(op.prehash_key, key))
    except ProofError as e:
        raise ProofError(f"prehash key, {e}") from None
    try:
        prepared_value = _length(op.length, _hash_or_noop(op.prehash_value, value))
    except ProofError as e:
        raise ProofError(f"prehash value, {e}") from None
    return _hash(op.hash, op.prefix + prepared_key + prepared_value)


def _apply_inner(op, child):
    if not child:
        raise ProofError("inner op needs child value")
    return _hash(op.hash, op.prefix + child + op.suffix)


def _check_leaf(op, spec, iavl):
    leaf = spec.leaf_spec
    if iavl:
        _check_iavl_prefix(op.prefix, op.hash, 0)
    if op.hash != leaf.hash:
        raise ProofError(f"unexpected HashOp: {op.hash}")
    if op.prehash_key != leaf.prehash_key:
        raise ProofError(f"unexpected PrehashKey: {op.prehash_key}")
    if op.prehash_value != leaf.prehash_value:
        raise ProofError(f"unexpected PrehashValue: {op.prehash_value}")
    if op.length != leaf.length:
        raise ProofError(f"unexpected LengthOp: {op.length}")
    if not op.prefix.startswith(leaf.prefix):
        raise ProofError(f"leaf Prefix doesn't start with {leaf.prefix.hex().upper()}")


class _InnerShape:
    """What _check_inner compares each step with, read from the spec once for all the steps of a proof."""

    __slots__ = ("hash", "leaf_prefix", "min_prefix", "max_prefix", "child_size")

    def __init__(self, spec):
        inner = spec.inner_spec
        self.hash = inner.hash
        self.leaf_prefix = spec.leaf_spec.prefix
        self.min_prefix = inner.min_prefix_length
        self.max_prefix = inner.max_prefix_length + (len(inner.child_order) - 1) * inner.child_size
        self.child_size = inner.child_size


def _check_inner(op, shape, layer, iavl):
    op_hash, prefix = op.hash, op.prefix
    if op_hash != shape.hash:
        raise ProofError(f"unexpected HashOp: {op_hash}")
    if iavl:
        _check_iavl_prefix(prefix, op_hash, layer)
    if prefix.startswith(shape.leaf_prefix):
        raise ProofError(f"inner Prefix starts with {shape.leaf_prefix.hex().upper()}")
    if len(prefix) < shape.min_prefix:
        raise ProofError(f"innerOp prefix too short ({len(prefix)})")
    if len(prefix) > shape.max_prefix:
        raise ProofError(f"innerOp prefix too long ({len(prefix)})")
    if shape.child_size <= 0:
        raise ProofError("spec.InnerSpec.ChildSize must be >= 1")
    if len(op.suffix) % shape.child_size:
        raise ProofError("InnerOp suffix malformed")


def _is_iavl(spec):
    return spec_equals(spec, IAVL_SPEC)


def _check_iavl_prefix(prefix, hash_op, layer):
    """An IAVL step's prefix: height (at least its layer), size and version as non-negative varints, then nothing
    (a leaf), or an inner node's length byte, with the left child's hash and length byte when the path goes right."""
    pos, values = 0, []
    for _ in range(3):
        value, pos = _read_varint(prefix, pos)
        if value < 0:
            raise ProofError("wrong value in IAVL leaf op")
        values.append(value)
    if values[0] < layer:
        raise ProofError("wrong value in IAVL leaf op")
    rest = len(prefix) - pos
    if layer == 0:
        if rest:
            raise ProofError("invalid op")
    elif rest not in (1, 34) or hash_op != ics23.SHA256:
        raise ProofError("invalid op")


def _read_varint(data, pos):
    """Go's binary.ReadVarint: a zigzag-encoded signed base-128 number of at most 10 bytes."""
    unsigned, shift = 0, 0
    for i in range(10):
        if pos >= len(data):
            raise ProofError("unexpected EOF" if i else "EOF")
        byte = data[pos]
        pos += 1
        if byte < 0x80:
            if i == 9 and byte > 1:
                break
            unsigned |= byte << shift
            return (-(unsigned >> 1) - 1 if unsigned & 1 else unsigned >> 1), pos
        unsigned |= (byte & 0x7F) << shift
        shift += 7
    raise ProofError("binary: varint overflows a 64-bit integer")


def _hash_or_noop(op, data):
    return data if op == ics23.NO_HASH else _hash(op, data)


def _new_hash(name, data):
    try:
        return hashlib.new(name, data).digest()
    except ValueError:
        raise ProofError(f"{name} is not available in this Python's hashlib") from None


_HASHES = {
    ics23.SHA256: lambda data: hashlib.sha256(data).digest(),
    ics23.SHA512: lambda data: hashlib.sha512(data).digest(),
    ics23.RIPEMD160: lambda data: _new_hash("ripemd160", data),
    ics23.BITCOIN: lambda data: _new_hash("ripemd160", hashlib.sha256(data).digest()),
    ics23.SHA512_256: lambda data: _new_hash("sha512_256", data),
    ics23.BLAKE2B_512: lambda data: hashlib.blake2b(data, digest_size=64).digest(),
    ics23.BLAKE2S_256: lambda data: hashlib.blake2s(data, digest_size=32).digest(),
}


def _hash(op, data):
    hasher = _HASHES.get(op)
    if hasher is None:
        raise ProofError(f"unsupported hashop: {op}")
    return hasher(data)


_DIGEST_SIZES = {ics23.SHA256: 32, ics23.SHA512: 64, ics23.RIPEMD160: 20, ics23.BITCOIN: 20, ics23.SHA512_256: 32,
                 ics23.BLAKE2B_512: 64, ics23.BLAKE2S_256: 32}

_FIXED_LENGTHS = {ics23.FIXED32_BIG: ">I", ics23.FIXED32_LITTLE: "<I", ics23.FIXED64_BIG: ">Q",
                  ics23.FIXED64_LITTLE: "<Q"}


def _length(op, data):
    if op == ics23.NO_PREFIX:
        return data
    if op == ics23.VAR_PROTO:
        return uvarint(len(data)) + data
    if op == ics23.REQUIRE_32_BYTES:
        if len(data) != 32:
            raise ProofError(f"data was {len(data)} bytes, not 32")
        return data
    if op == ics23.REQUIRE_64_BYTES:
        if len(data) != 64:
            raise ProofError(f"data was {len(data)} bytes, not 64")
        return data
    packing = _FIXED_LENGTHS.get(op)
    if packing is not None:
        return struct.pack(packing, len(data)) + data
    raise ProofError(f"unsupported lengthop: {op}")


# Neighbours: which child of its parent a step is, read from how many children's bytes pad its prefix and suffix.

def _position(order, branch):
    if branch < 0 or branch >= len(order) or branch not in order:
        raise ProofError(f"invalid branch: {branch}")
    return list(order).index(branch)


def _padding(inner, branch):
    index = _position(inner.child_order, branch)
    prefix = index * inner.child_size
    suffix = (len(inner.child_order) - 1 - index) * inner.child_size
    return prefix + inner.min_prefix_length, prefix + inner.max_prefix_length, suffix


def _has_padding(op, padding):
    least, most, suffix = padding
    return least <= len(op.prefix) <= most and len(op.suffix) == suffix


def _order_from_padding(inner, op):
    for branch in range(len(inner.child_order)):
        if _has_padding(op, _padding(inner, branch)):
            return branch
    raise ProofError("cannot find any valid spacing for this node")


def _left_branches_are_empty(inner, op):
    try:
        index = _order_from_padding(inner, op)
    except ProofError:
        return False
    if index == 0:
        return False
    start = len(op.prefix) - index * inner.child_size
    if start < 0:
        return False
    for i in range(index):
        at = start + _position(inner.child_order, i) * inner.child_size
        if op.prefix[at:at + inner.child_size] != inner.empty_child:
            return False
    return True


def _right_branches_are_empty(inner, op):
    try:
        index = _order_from_padding(inner, op)
    except ProofError:
        return False
    count = len(inner.child_order) - 1 - index
    if count == 0 or len(op.suffix) != count * inner.child_size:
        return False
    for i in range(count):
        at = _position(inner.child_order, i) * inner.child_size
        if op.suffix[at:at + inner.child_size] != inner.empty_child:
            return False
    return True


def _is_left_most(inner, path):
    padding = _padding(inner, 0)
    return all(_has_padding(step, padding) or _left_branches_are_empty(inner, step) for step in path)


def _is_right_most(inner, path):
    padding = _padding(inner, len(inner.child_order) - 1)
    return all(_has_padding(step, padding) or _right_branches_are_empty(inner, step) for step in path)


def _is_left_neighbor(inner, left, right):
    """Whether `right` is the next path after `left`: below their common steps, left's step is the child just
    before right's, left goes right-most from there and right left-most."""
    while True:
        if not left or not right:
            raise ProofError("left and right paths share every step")
        top_left, top_right = left.pop(), right.pop()
        if top_left.prefix != top_right.prefix or top_left.suffix != top_right.suffix:
            break
    if _order_from_padding(inner, top_right) != _order_from_padding(inner, top_left) + 1:
        return False
    return _is_right_most(inner, left) and _is_left_most(inner, right)
