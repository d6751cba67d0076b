"""RIP-7212's P256VERIFY precompile at 0x...0100: a secp256r1 signature check for 3,450 gas.

Input: hash, r, s, x, y (32 bytes each). Output: 32-byte 1 when the signature is valid, nothing otherwise
(any other length, a point off the curve, r or s out of range); the gas is charged either way.
"""

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, encode_dss_signature

ADDRESS = (0x100).to_bytes(20, "big")
GAS = 3450
_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
_VALID = (1).to_bytes(32, "big")


def verify(data):
    """The precompile's output for `data`: 32-byte 1, or b""."""
    if len(data) != 160:
        return b""
    digest = data[:32]
    r, s, x, y = (int.from_bytes(data[i:i + 32], "big") for i in range(32, 160, 32))
    if not (0 < r < _N and 0 < s < _N):
        return b""
    try:
        key = ec.EllipticCurvePublicNumbers(x, y, ec.SECP256R1()).public_key()
        key.verify(encode_dss_signature(r, s), digest, ec.ECDSA(Prehashed(hashes.SHA256())))
    except (ValueError, InvalidSignature):
        return b""
    return _VALID


def p256_verify(computation):
    computation.consume_gas(GAS, reason="P256VERIFY Precompile")
    computation.output = verify(computation.msg.data)
    return computation
