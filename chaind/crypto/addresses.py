"""One 20-byte account address, written as bech32 (`chain1...`) or as 0x hex (EIP-55)."""

import functools
import hashlib

import bech32
from eth_utils import is_hex_address, to_checksum_address


class AddressError(ValueError):
    """Raised for a string that is neither a valid bech32 nor a valid 0x address."""


# bech32's checksum is pure Python (about 0.1 ms), and the same few addresses recur in every block.
@functools.lru_cache(maxsize=16384)
def to_bech32(prefix, address):
    data = bech32.convertbits(address, 8, 5)
    return bech32.bech32_encode(prefix, data)


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
