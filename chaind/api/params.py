"""Parsing JSON-RPC params as geth does: hex quantities, data, addresses and block parameters."""

import functools
import re

from chaind import errors

_HEX = re.compile(r"^0[xX][0-9a-fA-F]*$")
BLOCK_TAGS = ("latest", "earliest", "pending", "safe", "finalized")


def is_hex(value):
    return bool(_HEX.match(value))


def arg(params, index, required=True, default=None):
    if index < len(params) and params[index] is not None:
        return params[index]
    if required:
        raise errors.invalid_argument(f"missing value for required argument {index}")
    return default


def at_most(params, count):
    if len(params) > count:
        raise errors.invalid_argument(f"too many arguments, want at most {count}")


def quantity(value, index, name="hex number"):
    if not isinstance(value, str) or not _HEX.match(value) or len(value) == 2:
        raise errors.invalid_argument(f"invalid argument {index}: hex string without 0x prefix"
                             if isinstance(value, str) and not value.startswith(("0x", "0X"))
                             else f"invalid argument {index}: cannot unmarshal {value!r} into a {name}")
    if len(value) > 3 and value[2] == "0":
        raise errors.invalid_argument(f"invalid argument {index}: hex number with leading zero digits")
    if len(value) > 66:
        raise errors.invalid_argument(f"invalid argument {index}: hex number > 256 bits")
    return int(value, 16)


def data(value, index):
    if not isinstance(value, str) or not _HEX.match(value):
        raise errors.invalid_argument(f"invalid argument {index}: hex string without 0x prefix")
    if len(value) % 2:
        raise errors.invalid_argument(f"invalid argument {index}: hex string of odd length")
    return bytes.fromhex(value[2:])


def fixed(value, index, size, type_name):
    raw = data(value, index)
    if len(raw) != size:
        raise errors.invalid_argument(f"invalid argument {index}: hex string has length {len(value) - 2}, "
                             f"want {size * 2} for {type_name}")
    return raw


def address(value, index):
    if value.__class__ is str:
        found = _address_bytes(value)
        if found is not None:
            return found
    return fixed(value, index, 20, "common.Address")


# Clients ask about the same addresses again and again; a well-formed one is remembered (a bounded few).
@functools.lru_cache(maxsize=4096)
def _address_bytes(text):
    if len(text) != 42 or not _HEX.match(text):
        return None
    return bytes.fromhex(text[2:])


def block_hash(value, index):
    return fixed(value, index, 32, "common.Hash")


def block_number(value, index, chain):
    """A height from a number or tag; `pending` reads the latest committed state."""
    if value in ("latest", "pending", "safe", "finalized"):
        return chain.height
    if value == "earliest":
        return chain.genesis.initial_height - 1
    if not isinstance(value, str):
        raise errors.invalid_argument(f"invalid argument {index}: block number must be a hex string or a tag")
    return quantity(value, index, "BlockNumber")


def block_number_or_hash(value, index, chain):
    """EIP-1898: a number, a tag, or {"blockNumber"} / {"blockHash", "requireCanonical"}."""
    if value == "latest":       # most reads
        return chain.height
    if isinstance(value, dict):
        has_number, has_hash = "blockNumber" in value, "blockHash" in value
        if has_number and has_hash:
            raise errors.invalid_argument(f"invalid argument {index}: cannot specify both BlockHash and BlockNumber, "
                                 "choose one or the other")
        if has_hash:
            height = chain.height_of_hash(block_hash(value["blockHash"], index))
            if height is None:
                raise errors.not_found("header for hash not found")
            return height
        if has_number:
            return block_number(value["blockNumber"], index, chain)
        raise errors.invalid_argument(f"invalid argument {index}: must specify either BlockHash or BlockNumber")
    if isinstance(value, str) and len(value) == 66 and _HEX.match(value):
        height = chain.height_of_hash(bytes.fromhex(value[2:]))
        if height is None:
            raise errors.not_found("header for hash not found")
        return height
    return block_number(value, index, chain)
