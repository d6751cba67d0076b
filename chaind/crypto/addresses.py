"""One 20-byte account address, written as bech32 (`chain1...`) or as 0x hex (EIP-55)."""

import functools
import hashlib

import bech32
from eth_utils import is_hex_address, to_checksum_address


class AddressError(ValueError):
    """Raised for a string that is neither a valid bech32 nor a valid 0x address."""


_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_GENERATOR = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)
# The generators' XOR for each value of the 5 bits shifted out of the checksum: one lookup a symbol where the
# bech32 package's polymod tests the five bits one by one (an export encodes every account; that was its tenth).
_SHIFTED_OUT = tuple(functools.reduce(int.__xor__, (g for i, g in enumerate(_GENERATOR) if top >> i & 1), 0)
                     for top in range(32))


def _polymod(chk, values):
    table = _SHIFTED_OUT
    for value in values:
        chk = (chk & 0x1FFFFFF) << 5 ^ value ^ table[chk >> 25]
    return chk


@functools.lru_cache(maxsize=64)
def _prefix_state(prefix):
    """The checksum's state after the prefix's expansion (BIP-173's hrp_expand), the same for all its addresses."""
    return _polymod(1, [ord(c) >> 5 for c in prefix] + [0] + [ord(c) & 31 for c in prefix])


# The same few addresses recur in every block.
@functools.lru_cache(maxsize=16384)
def to_bech32(prefix, address):
    """BIP-173 bech32 of `address`'s bytes regrouped into 5-bit values (the last zero-padded), under `prefix`."""
    bits = len(address) * 8
    count = -(-bits // 5)
    number = int.from_bytes(address, "big") << (count * 5 - bits)
    data = [number >> shift & 31 for shift in range(count * 5 - 5, -5, -5)]
    check = _polymod(_prefix_state(prefix), data + [0] * 6) ^ 1
    return prefix + "1" + "".join([_CHARSET[d] for d in data] + [_CHARSET[check >> s & 31] for s in range(25, -5, -5)])


@functools.lru_cache(maxsize=16384)
def _decoded(text):
    """(prefix, data bytes) of a bech32 string; (None, None) when it is not one, data None when its bits
    do not regroup into bytes."""
    hrp, data = bech32.bech32_decode(text)
    if hrp is None or data is None:
        return None, None
    raw = bech32.convertbits(data, 5, 8, False)
    return hrp, None if raw is None else bytes(raw)


def from_bech32(text, prefix=None):
    hrp, raw = _decoded(text)
    if hrp is None:
        raise AddressError(f"invalid bech32 address {text!r}")
    if prefix is not None and hrp != prefix:
        raise AddressError(f"invalid bech32 prefix: expected {prefix!r}, got {hrp!r}")
    if raw is None or len(raw) != 20:
        raise AddressError(f"invalid address length in {text!r}")
    return raw


# EIP-55 costs a keccak per call, and the same few addresses recur in every block.
checksum_address = functools.lru_cache(maxsize=16384)(to_checksum_address)


def to_hex(address):
    return checksum_address(address)


def parse(text, prefix=None):
    """Bytes of an address given as bech32 or 0x hex."""
    if not isinstance(text, str):
        raise AddressError("address must be a string")
    if text.startswith(("0x", "0X")):
        if not is_hex_address(text):
            raise AddressError(f"invalid hex address {text!r}")
        return bytes.fromhex(text[2:])
    return from_bech32(text, prefix)


def module_address(name):
    """The account address of a module (fee_collector, bonded_tokens_pool ...), as the SDK derives it."""
    return hashlib.sha256(name.encode()).digest()[:20]
