"""cosmos/evm's bech32 precompile at 0x...0400 (Bech32I.sol): hexToBech32(address, string prefix) and
bech32ToHex(string), any prefix, 6,000 gas a call; a bad argument reverts with Error(string)."""

import bech32
from eth.exceptions import Revert
from eth_abi import decode as abi_decode
from eth_abi import encode as abi_encode
from eth_abi.exceptions import DecodingError
from eth_utils import keccak, to_checksum_address

ADDRESS = (0x400).to_bytes(20, "big")
GAS = 6000
_HEX_TO_BECH32 = keccak(text="hexToBech32(address,string)")[:4]
_BECH32_TO_HEX = keccak(text="bech32ToHex(string)")[:4]
_ERROR_SELECTOR = keccak(text="Error(string)")[:4]


class _Failure(Exception):
    pass


def _hex_to_bech32(args):
    address, prefix = args
    if not prefix.strip():
        raise _Failure("invalid bech32 human readable prefix (HRP). Please provide a either an account, validator "
                       "or consensus address prefix (eg: chain, chainvaloper, chainvalcons)")
    raw = bytes.fromhex(address[2:])
    encoded = bech32.bech32_encode(prefix, bech32.convertbits(raw, 8, 5))
    if encoded is None:
        raise _Failure(f"invalid bech32 human readable prefix (HRP): {prefix}")
    return abi_encode(["string"], [encoded])


def _bech32_to_hex(args):
    (text,) = args
    prefix = text.split("1", 1)[0]
    if prefix == text:
        raise _Failure(f"invalid bech32 address: {text}")
    hrp, data = bech32.bech32_decode(text)
    if hrp is None or data is None:
        raise _Failure(f"decoding bech32 failed: invalid bech32 string {text!r}")
    if hrp != prefix:
        raise _Failure(f"invalid Bech32 prefix; expected {prefix}, got {hrp}")
    raw = bech32.convertbits(data, 5, 8, False)
    if raw is None:
        raise _Failure("decoding bech32 failed: invalid padding")
    if not raw:
        raise _Failure("addresses cannot be empty: unknown address")
    if len(raw) > 255:
        raise _Failure(f"address max length is 255, got {len(raw)}: unknown address")
    # common.BytesToAddress: the last 20 bytes, left-padded.
    return abi_encode(["address"], [to_checksum_address(bytes(raw)[-20:].rjust(20, b"\0"))])


_METHODS = {_HEX_TO_BECH32: (("address", "string"), _hex_to_bech32), _BECH32_TO_HEX: (("string",), _bech32_to_hex)}


def run(computation):
    computation.consume_gas(GAS, reason="bech32 precompile")
    data = bytes(computation.msg.data)
    try:
        method = _METHODS.get(data[:4]) if len(data) >= 4 else None
        if method is None:
            raise _Failure(f"no method with id: 0x{data[:4].hex()}")
        inputs, handler = method
        try:
            args = abi_decode(list(inputs), data[4:])
        except (DecodingError, ValueError) as e:
            raise _Failure(f"invalid arguments: {e}") from None
        computation.output = handler(args)
    except _Failure as e:
        computation.output = _ERROR_SELECTOR + abi_encode(["string"], [str(e)])
        raise Revert(str(e)) from None
    return computation
