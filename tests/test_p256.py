"""RIP-7212's P256VERIFY at 0x...0100: the reference vector (geth's, from the RIP's reference implementation),
signatures of our own, the malformed inputs that answer nothing, and the precompile over eth_call on a node."""

import pytest_twisted
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from chaind.chain.modules.evm import p256
from evm_client import DEV0, rpc

# geth's core/vm/testdata/precompiles/p256Verify.json: hash, r, s, x, y; expected 1.
VECTOR = bytes.fromhex(
    "4cee90eb86eaa050036147a12d49004b6b9c72bd725d39d4785011fe190f0b4d"
    "a73bd4903f0ce3b639bbbf6e8e80d16931ff4bcf5993d58468e8fb19086e8cac"
    "36dbcd03009df8c59286b162af3bd7fcc0450c9aa81be5d10d312af6c66b1d60"
    "4aebd3099c618202fcfe16ae7770b0c49ab5eadf74b754204a3bb6060e44eff3"
    "7618b065f9832de4ca6ca971a7a1adc826d0f7c00181a5fb2ddf79ae00b4e10e")
ONE = (1).to_bytes(32, "big")
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def signed(message=b"chaind"):
    key = ec.generate_private_key(ec.SECP256R1())
    r, s = decode_dss_signature(key.sign(message, ec.ECDSA(hashes.SHA256())))
    digest = hashes.Hash(hashes.SHA256())
    digest.update(message)
    numbers = key.public_key().public_numbers()
    return digest.finalize(), r, s, numbers.x, numbers.y


def encode(*values):
    return values[0] + b"".join(v.to_bytes(32, "big") for v in values[1:])


def test_the_reference_vector_and_our_own_signatures_verify():
    assert p256.verify(VECTOR) == ONE
    h, r, s, x, y = signed()
    assert p256.verify(encode(h, r, s, x, y)) == ONE
    # The high-s twin verifies too: RIP-7212 has no malleability check.
    assert p256.verify(encode(h, r, N - s, x, y)) == ONE


def test_what_is_not_a_valid_signature_answers_nothing():
    h, r, s, x, y = signed()
    assert p256.verify(encode(h, r, s, x, y)[:-1]) == b""
    assert p256.verify(encode(h, r, s, x, y) + b"\0") == b""
    assert p256.verify(encode(bytes(32), r, s, x, y)) == b""           # another hash
    assert p256.verify(encode(h, r, s, x, y + 1)) == b""                # off the curve
    assert p256.verify(encode(h, 0, s, x, y)) == b""
    assert p256.verify(encode(h, r, N, x, y)) == b""
    assert p256.verify(encode(h, N, s, x, y)) == b""
    assert p256.verify(encode(h, r, s, 0, 0)) == b""                    # the point at infinity has no (x, y)
    assert p256.verify(b"") == b""


@pytest_twisted.inlineCallbacks
def test_eth_call_reaches_the_precompile_and_charges_its_gas(node):
    to = "0x" + p256.ADDRESS.hex()
    _, answer = yield rpc(node, "eth_call", {"from": DEV0, "to": to, "data": "0x" + VECTOR.hex()}, "latest")
    assert answer["result"] == "0x" + ONE.hex()
    _, bad = yield rpc(node, "eth_call", {"from": DEV0, "to": to, "data": "0x" + VECTOR[:-1].hex()}, "latest")
    assert bad["result"] == "0x"
    _, gas = yield rpc(node, "eth_estimateGas", {"from": DEV0, "to": to, "data": "0x" + VECTOR.hex()})
    calldata = sum(16 if b else 4 for b in VECTOR)
    assert int(gas["result"], 16) == 21000 + calldata + p256.GAS
