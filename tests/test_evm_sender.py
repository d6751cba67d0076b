"""The check path's EVM sender (chain/evm_sender.py) against py-evm's own: random txs of every type, malformed
signatures and fields get py-evm's sender, hash or error through txs.wrap_evm, or geth's for values it refuses."""

import random

import attrs
import coincurve
import pytest
import rlp
from eth.constants import SECPK1_N

import high_s
import random_evm_txs as gen
from chaind.chain import errors, evm_sender, txs
from random_evm_txs import BUILDER, CHAIN_ID, GAS

# Evmos' ante handler wraps a sender's error in the SDK's ErrorInvalidSigner (code 24); INVALID_VALUES is geth's
# error for the values crypto.ValidateSignatureValues refuses, so wrapped, and its txpool's answer.
INVALID_SIGNER = "tx intended signer does not match the given signer"
INVALID_VALUES = errors.TxError(errors.SDK, 24, "couldn't retrieve sender address from the ethereum transaction: "
                                f"invalid transaction v, r, s values: {INVALID_SIGNER}",
                                "invalid sender: invalid transaction v, r, s values")
HALF_N = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0


def _reference(encoded):
    """py-evm's own decode, validate() and sender, as the check path had them: (tx, sender or the TxError)."""
    tx = BUILDER.decode(encoded)
    try:
        tx.validate()
        return tx, tx.sender
    except Exception as e:  # noqa: BLE001 (the reference: whatever py-evm raises)
        return tx, errors.TxError(errors.SDK, 24, f"couldn't retrieve sender address from the ethereum transaction: "
                                  f"{e}: {INVALID_SIGNER}", "invalid sender")


def _geth_refuses_values(tx):
    """Whether geth's signer refuses the tx's v, r, s (ValidateSignatureValues, homestead): a typed tx's y parity,
    or a legacy tx's v of 27/28 or EIP-155's (another v is a chain id question, left to py-evm's wording)."""
    if tx.type_id:
        parity = tx.y_parity
    elif tx.v in (27, 28) or tx.v >= 35:
        parity = 0
    else:
        return False
    return parity not in (0, 1) or not (1 <= tx.r < SECPK1_N and 1 <= tx.s <= HALF_N)


def _wrapped(encoded):
    try:
        return txs.wrap_evm(encoded, CHAIN_ID, "achain")
    except errors.TxError as e:
        return e


def _assert_same(encoded):
    """The sender, or the error, that py-evm's path gives `encoded`."""
    tx, expected = _reference(encoded)
    refused = _geth_refuses_values(tx)
    fast = evm_sender.validated_sender(BUILDER.decode(encoded), encoded)
    assert fast == (expected if isinstance(expected, bytes) and not refused else None)
    wrapped = _wrapped(encoded)
    # Exceptions compare by identity: their fields are what must be the same.
    if tx.nonce >= 2**64 or tx.gas >= 2**64:
        # MsgEthereumTx holds neither: refused as geth's decode refuses it, before the signature.
        assert wrapped.log.startswith("rlp: input string too long for uint64, decoding into (types.")
    elif refused:
        # geth's answer, before py-evm's checks of the other fields as geth's txpool checks the signer first.
        assert attrs.astuple(wrapped) == attrs.astuple(INVALID_VALUES)
        return INVALID_VALUES
    elif isinstance(expected, errors.TxError):
        assert attrs.astuple(wrapped) == attrs.astuple(expected)
    elif tx.chain_id is not None and tx.chain_id != CHAIN_ID:
        assert attrs.astuple(wrapped) == attrs.astuple(errors.invalid_chain_id(
            f"invalid chain id for signer: have {tx.chain_id} want {CHAIN_ID}"))
    else:
        assert wrapped.sender == expected
        assert wrapped.evm_hash == tx.hash
        assert wrapped.evm == tx
        # Execution reads the sender from the cache the check path filled, not from a second recovery.
        assert vars(wrapped.evm)["sender"] == expected
    return expected


@pytest.mark.parametrize("type_id", [0, 1, 2])
def test_random_signed_txs_get_py_evms_sender(type_id):
    rng = random.Random(18 + type_id)
    accepted = 0
    for _ in range(150):
        chain_id = rng.choice([CHAIN_ID, CHAIN_ID, 1, 0, 2**64])
        fields = gen.fields(rng, type_id, chain_id)
        legacy_chain_id = rng.choice([None, chain_id]) if type_id == 0 else None
        v, r, s = gen.signature(rng, type_id, fields, legacy_chain_id)
        accepted += isinstance(_assert_same(gen.encode(type_id, fields, v, r, s)), bytes)
    assert accepted > 60       # most are valid: the fast path is what they took


@pytest.mark.parametrize("type_id", [0, 1, 2])
def test_out_of_range_fields_are_py_evms_answer(type_id):
    rng = random.Random(1800 + type_id)
    for _ in range(100):
        fields = gen.fields(rng, type_id, big=True)
        v, r, s = gen.signature(rng, type_id, fields, rng.choice([None, CHAIN_ID]) if type_id == 0 else None)
        _assert_same(gen.encode(type_id, fields, v, r, s))


def _not_an_x_coordinate():
    """An r with no curve point: no signature with it recovers."""
    x = 5
    while True:
        try:
            coincurve.PublicKey(b"\x02" + x.to_bytes(32, "big"))
        except Exception:  # noqa: BLE001 (coincurve's refusal of a non-point, of whatever kind)
            return x
        x += 1


@pytest.mark.parametrize("type_id", [0, 1, 2])
def test_bad_signatures_are_py_evms_errors(type_id):
    rng = random.Random(180 + type_id)
    for legacy_chain_id in ((None, CHAIN_ID) if type_id == 0 else (None,)):
        fields = gen.fields(rng, type_id)
        fields[GAS[type_id]] = 10**6           # enough gas for any data
        v, r, s = gen.signature(rng, type_id, fields, legacy_chain_id)
        base = v - (v - 35) % 2 if v >= 35 else 27 if type_id == 0 else 0
        flipped = base + 1 - (v - base)
        cases = [
            (flipped, r, SECPK1_N - s),             # the same signature with a high s
            (flipped, r, s),                        # the wrong parity: another sender, or none
            (v, 0, s), (v, r, 0), (v, SECPK1_N, s), (v, r, SECPK1_N), (v, 2**256 - 1, s), (v, r, 2**256),
            (v, _not_an_x_coordinate(), s), (v, r, SECPK1_N // 2), (v, r, SECPK1_N // 2 + 1),
            (base + 2, r, s), (base + 7, r, s), (2**256, r, s), (29, r, s), (34, r, s), (26, r, s), (0, r, s),
            (1, r, s), (2, r, s), (255, r, s), (256, r, s),
        ]
        for case in cases:
            _assert_same(gen.encode(type_id, fields, *case))


def _high_s_twins(rng):
    """(type, a low-s encoding, its high-s twin) for each type."""
    for type_id in (0, 1, 2):
        fields = gen.fields(rng, type_id)
        fields[GAS[type_id]] = 10**6
        fields[0 if type_id == 0 else 1] = 7                # a nonce below 2^64
        low = gen.encode(type_id, fields, *gen.signature(rng, type_id, fields, CHAIN_ID if type_id == 0 else None))
        if BUILDER.decode(low).s > HALF_N:
            continue        # the random key signed with a high s: the twin is the low one
        yield type_id, low, high_s.twin(low)


def test_a_high_s_is_refused_for_every_type():
    """py-evm recovers a typed tx's high-s signature (only a legacy tx's validate() refuses one); geth refuses it
    for every type (crypto.ValidateSignatureValues with homestead), and so does the check path, with geth's text
    for the legacy tx as well."""
    seen = set()
    for seed in range(7, 12):
        for type_id, low, high in _high_s_twins(random.Random(seed)):
            seen.add(type_id)
            sender = _assert_same(low)
            assert isinstance(sender, bytes)
            if type_id:
                assert BUILDER.decode(high).sender == sender      # py-evm alone would take it
            assert _assert_same(high) is INVALID_VALUES
            assert evm_sender.validated_sender(BUILDER.decode(high), high) is None
            assert evm_sender.signature_values_refused(BUILDER.decode(high))
            assert not evm_sender.signature_values_refused(BUILDER.decode(low))
    assert seen == {0, 1, 2}


def test_a_high_s_envelope_is_refused_by_the_decode_of_every_path():
    """A MsgEthereumTx envelope (broadcast_tx_*, CheckTx, a decided block's txs) carrying a high-s tx of any type
    gets the error eth_sendRawTransaction gets."""
    seen = set()
    for type_id, low, high in _high_s_twins(random.Random(8)):
        seen.add(type_id)
        envelope = txs.wrap_evm(low, CHAIN_ID, "achain").raw
        with pytest.raises(errors.TxError) as refused:
            txs.decode(high_s.envelope(envelope, high), CHAIN_ID, {})
        assert attrs.astuple(refused.value) == attrs.astuple(INVALID_VALUES)
        assert txs.decode(high_s.envelope(envelope, low), CHAIN_ID, {}).sender == _reference(low)[1]
    assert seen == {0, 1, 2}


def test_intrinsic_gas_below_is_py_evms_error():
    rng = random.Random(3)
    for type_id in (0, 1):
        fields = gen.fields(rng, type_id)
        fields[GAS[type_id]] = 20999
        v, r, s = gen.signature(rng, type_id, fields, CHAIN_ID if type_id == 0 else None)
        assert "Insufficient gas" in _assert_same(gen.encode(type_id, fields, v, r, s)).log


def test_unprotected_legacy_tx_has_no_chain_id():
    rng = random.Random(4)
    fields = gen.fields(rng, 0)
    fields[2] = 10**6
    v, r, s = gen.signature(rng, 0, fields)
    wrapped = txs.wrap_evm(gen.encode(0, fields, v, r, s), CHAIN_ID, "achain")
    assert wrapped.evm.chain_id is None and wrapped.sender == _reference(gen.encode(0, fields, v, r, s))[1]


def test_unsupported_types_are_refused_before_the_signature():
    rng = random.Random(5)
    fields = gen.fields(rng, 2)
    fields[5] = rng.randbytes(20)
    blob = b"\x03" + rlp.encode([*fields, 1, [], 0, 1, 1])               # max fee per blob gas, blob hashes
    set_code = b"\x04" + rlp.encode([*fields, [[CHAIN_ID, rng.randbytes(20), 0, 0, 1, 1]], 0, 1, 1])
    for type_id, encoded in ((3, blob), (4, set_code)):
        assert _wrapped(encoded).log == f"transaction type {type_id} not supported: tx parse error"


def test_the_envelope_of_a_decoded_block_tx_gets_the_same_sender():
    rng = random.Random(6)
    for type_id in (0, 1, 2):
        fields = gen.fields(rng, type_id)
        fields[GAS[type_id]] = 10**6
        v, r, s = gen.signature(rng, type_id, fields, CHAIN_ID if type_id == 0 else None)
        wrapped = txs.wrap_evm(gen.encode(type_id, fields, v, r, s), CHAIN_ID, "achain")
        decoded = txs.decode(wrapped.raw, CHAIN_ID, {})
        assert (decoded.sender, decoded.evm_hash, decoded.hash) == (wrapped.sender, wrapped.evm_hash, wrapped.hash)
