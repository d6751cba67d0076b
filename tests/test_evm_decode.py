"""The check path's EVM tx decode (chain/evm_decode.py) against py-evm's builder: the same objects for random txs
of each type, and nothing read that py-evm would refuse or read otherwise (mutated and non-canonical encodings)."""

import random

import pytest
import rlp

import random_evm_txs as gen
from chaind.chain import evm_decode
from random_evm_txs import BUILDER


def _same(fast, reference):
    """Equal as py-evm compares them, and field by field, with the same encoding cached."""
    assert type(fast) is type(reference) and fast == reference
    assert fast.encode() == reference.encode()
    inner, expected = getattr(fast, "_inner", fast), getattr(reference, "_inner", reference)
    assert [(type(a), a) for a in inner] == [(type(b), b) for b in expected]
    assert inner._cached_rlp == expected._cached_rlp


def _read_as_py_evm_does(encoded):
    """evm_decode reads `encoded` only if py-evm's builder reads it into an equal tx; what it read, or None."""
    fast = evm_decode.read(encoded)
    if fast is not None:
        _same(fast, BUILDER.decode(encoded))
    return fast


@pytest.mark.parametrize("type_id", [0, 1, 2])
def test_random_txs_decode_as_py_evm_decodes_them(type_id):
    rng = random.Random(type_id)
    for _ in range(200):
        encoded = gen.signed(rng, type_id, access=False, big=rng.random() < 0.2)
        assert _read_as_py_evm_does(encoded) is not None


def test_an_access_list_is_left_to_py_evm():
    rng = random.Random(11)
    for type_id in (1, 2):
        encoded = gen.signed(rng, type_id, access=True)
        assert evm_decode.read(encoded) is None and BUILDER.decode(encoded).access_list


def _mutations(rng, encoded):
    position = rng.randrange(len(encoded))
    yield encoded[:position] + bytes((rng.randrange(256),)) + encoded[position + 1:]
    yield encoded[:position]
    yield encoded + bytes((rng.randrange(256),))
    yield encoded[:position] + bytes((rng.randrange(256),)) + encoded[position:]
    yield encoded[:position] + encoded[position + 1:]


@pytest.mark.parametrize("type_id", [0, 1, 2])
def test_mutated_encodings_are_read_only_as_py_evm_reads_them(type_id):
    rng = random.Random(100 + type_id)
    read = refused = 0
    for _ in range(300):
        for mutated in _mutations(rng, gen.signed(rng, type_id, access=False)):
            if _read_as_py_evm_does(mutated) is not None:
                read += 1
                continue
            try:
                BUILDER.decode(mutated)
            except Exception:  # noqa: BLE001 (counting refusals of any kind)
                refused += 1
    assert read > 100 and refused > 100     # both sides of the line were tried


TO = b"\x11" * 20
REST = [b"\x01", b"\x82\x52\x08", b"\x94" + TO, b"\x80", b"\x80", b"\x1b", b"\x01", b"\x01"]   # after the nonce


def _list(items, header=None):
    """The RLP list of already encoded `items`, under a header of their length (or `header`)."""
    body = b"".join(items)
    return (header or bytes((0xc0 + len(body),))) + body


@pytest.mark.parametrize("encoded", [
    b"",
    b"\x02",
    b"\x03" + rlp.encode([1] * 14),                                         # a blob tx: py-evm's to read
    b"\x80",
    _list([b"\x82\x00\x05", *REST]),                                        # a nonce with a leading zero byte
    _list([b"\x81\x05", *REST]),                                            # a byte under 0x80 as a string
    _list([b"\x01", *REST[:4], b"\xb8\x03abc", *REST[5:]]),                 # 3 bytes of data in the long form
    _list([b"\x01", *REST], header=b"\xf8" + bytes((len(b"".join(REST)) + 1,))),   # a short list's long form
    _list([b"\x01", *REST], header=bytes((0xc0 + len(b"".join(REST)),))),    # the length a byte short
    _list([b"\x01", *REST], header=bytes((0xc2 + len(b"".join(REST)),))),    # a byte long
    _list([b"\x01", *REST]) + b"\x00",                                      # a byte after the tx
    _list([b"\x01", *REST[:2], b"\x93" + TO[:19], *REST[3:]]),              # a 19-byte `to`
    _list([b"\x01", *REST[:-1]]),                                            # a field short
    _list([b"\x01", *REST, b"\x01"]),                                        # a field more
    _list([b"\x01", b"\xc0", *REST[1:]]),                                    # a list for the gas price
    _list([b"\x01", *REST[:4], b"\xc1\x01", *REST[5:]]),                     # a list for the data
    b"\x02" + rlp.encode([9000, 1, 1, 1, 21000, TO, 0, b"", b"", 0, 1, 1]),  # a string for the access list
    b"\x02" + rlp.encode([9000, 1, 1, 1, 21000, TO, 0, b"", [], 0, 1, 1])[:-1],
    b"\x01" + rlp.encode([9000, 1, 1, 21000, TO, 0, b"", [[TO, []]], 0, 1, 1]),
])
def test_encodings_it_does_not_read_go_to_py_evm(encoded):
    assert evm_decode.read(encoded) is None


def test_the_encodings_above_but_canonical_are_read():
    assert _read_as_py_evm_does(_list([b"\x01", *REST])) is not None
    assert _read_as_py_evm_does(_list([b"\x05", *REST[:4], b"\x83abc", *REST[5:]])) is not None
    assert _read_as_py_evm_does(b"\x02" + rlp.encode([9000, 1, 1, 1, 21000, TO, 0, b"", [], 0, 1, 1])) is not None


def test_decode_is_the_builders_answer_for_what_it_does_not_read():
    def answer(decode, encoded):
        try:
            return decode(encoded)
        except Exception as e:  # noqa: BLE001 (comparing whatever each decoder raises)
            return type(e), str(e)
    rng = random.Random(12)
    for encoded in (gen.signed(rng, 2, access=True), _list([b"\x82\x00\x05", *REST]), b"\x02", b""):
        assert answer(evm_decode.decode, encoded) == answer(BUILDER.decode, encoded)
