"""The sender of a signed EVM tx, recovered from the bytes py-evm decoded rather than through its objects: the
signing payload cut out of the encoding, keccak, and the same secp256k1 recovery as py-evm's key backend."""

import coincurve
import rlp
from eth.constants import SECPK1_N
from eth_hash.auto import keccak

_UINT256_MAX = 2**256 - 1
_NONCE_LIMIT = 2**64 - 1     # py-evm's validate_nonce: below 2^64-1
_HALF_N = SECPK1_N // 2

# geth's ErrInvalidSig (core/types/transaction.go): its signers' answer when crypto.ValidateSignatureValues
# refuses a tx's v, r and s.
INVALID_SIGNATURE_VALUES = "invalid transaction v, r, s values"


def validated_sender(tx, encoded):
    """The sender of py-evm's signed `tx` decoded from `encoded`, when py-evm's tx.validate() passes, tx.sender
    recovers and geth takes the signature's values; None when any may fail, so that the caller's own path (txs'
    _checked_evm: signature_values_refused, then py-evm's) words the error. The sender is
    also left in tx.sender's cache, so that the block's execution does not recover it again.

    py-evm builds the unsigned tx again and encodes it for each recovery (twice for a legacy or access-list
    tx, whose validate() recovers and verifies the signature too); its decode is strict RLP, so the items
    of `encoded` are the bytes it would encode, and the payload is a slice of them."""
    type_id = tx.type_id or 0
    if type_id == 0:
        y_parity = _legacy_fields_valid(tx)
        if y_parity is None:
            return None
        items = encoded
        chain_id = tx.chain_id
        # EIP-155: the chain id and two empty strings stand in for v, r and s (py-evm's int_to_big_endian
        # writes chain id 0 as one zero byte, not as the empty string).
        tail = b"" if chain_id is None else rlp.encode(chain_id.to_bytes(max(1, (chain_id.bit_length() + 7) // 8),
                                                                         "big")) + b"\x80\x80"
        prefix = b""
    elif type_id == 1:
        # An access-list tx's validate() is the intrinsic gas and the signature's validity (Signature(vrs),
        # recovery, and a verify, which a recovered key always passes).
        if tx.gas < tx.intrinsic_gas:
            return None
        y_parity, items, tail, prefix = tx.y_parity, encoded[1:], b"", encoded[:1]
    elif type_id == 2:
        # A dynamic-fee tx's validate() checks its fields only (the signature is tx.sender's question): with no
        # access list, whose shape is validate()'s to check, that is their bounds (the decode checked the rest).
        if tx.access_list:
            try:
                tx.validate()
            except Exception:  # noqa: BLE001 (py-evm's validate raises several kinds; any is an invalid tx)
                return None
        elif not (tx.nonce < _NONCE_LIMIT and max(tx.chain_id, tx.max_priority_fee_per_gas, tx.max_fee_per_gas,
                                                  tx.gas, tx.value) <= _UINT256_MAX):
            return None
        y_parity, items, tail, prefix = tx.y_parity, encoded[1:], b"", encoded[:1]
    else:
        return None
    r, s = tx.r, tx.s
    if not _signature_values_valid(y_parity, r, s):
        return None
    body = items[_list_header_length(items):_fourth_last_item_end(items)] + tail
    message = prefix + _list_prefix(len(body)) + body
    try:
        public_key = coincurve.PublicKey.from_signature_and_message(
            r.to_bytes(32, "big") + s.to_bytes(32, "big") + bytes((y_parity,)), keccak(message), hasher=None)
    except Exception:  # noqa: BLE001 (coincurve raises several kinds; any is a bad signature)
        return None
    sender = keccak(public_key.format(compressed=False)[1:])[12:]
    # cached_property's cache is the instance's __dict__ under the property's name.
    vars(tx)["sender"] = sender
    return sender


def signature_values_refused(tx):
    """Whether geth refuses the v, r and s of py-evm's signed `tx` before recovering its sender
    (INVALID_SIGNATURE_VALUES). A legacy tx's v that is neither 27, 28 nor EIP-155's is left to py-evm."""
    if tx.type_id:
        y_parity = tx.y_parity
    elif tx.v in (27, 28):
        y_parity = tx.v - 27
    elif tx.v >= 35:
        y_parity = (tx.v - 35) % 2
    else:
        return False
    return not _signature_values_valid(y_parity, tx.r, tx.s)


def _signature_values_valid(y_parity, r, s):
    """geth's crypto.ValidateSignatureValues as every signer since Homestead calls it, for every tx type: r and s
    from 1, r below N, s at most N/2 (EIP-2: a high s is the same signature's malleable twin), y parity 0 or 1.
    py-evm refuses a high s for a legacy tx only; eth-keys and libsecp256k1 take no r or s of 0 or of N or more."""
    return y_parity in (0, 1) and 0 < r < SECPK1_N and 0 < s <= _HALF_N


def _legacy_fields_valid(tx):
    """y_parity of a legacy tx whose Homestead validate() passes but for the signature's recovery; None when
    it may not pass (the field checks of Frontier and Homestead, v in its range, the intrinsic gas; r and s are
    _signature_values_valid's)."""
    v = tx.v
    if not (tx.nonce < _NONCE_LIMIT and tx.gas_price <= _UINT256_MAX and tx.gas <= _UINT256_MAX
            and tx.value <= _UINT256_MAX and v <= _UINT256_MAX):
        return None
    if v in (27, 28):
        y_parity = v - 27
    elif v >= 35:
        # EIP-155: v is 35 + 2 * chain id + y_parity, inside py-evm's v_min..v_max by construction.
        y_parity = (v - 35) % 2
    else:
        return None
    if tx.gas < tx.intrinsic_gas:
        return None
    return y_parity


def _list_header_length(encoded):
    """The length of the header of the RLP list `encoded`."""
    first = encoded[0]
    return 1 if first < 0xf8 else 1 + first - 0xf7


def _fourth_last_item_end(encoded):
    """Where the item before the last three (v, r, s) of the RLP list `encoded` ends."""
    ends = []
    position, end = _list_header_length(encoded), len(encoded)
    while position < end:
        first = encoded[position]
        if first < 0x80:
            position += 1
        elif first < 0xb8:
            position += 1 + first - 0x80
        elif first < 0xc0:
            size = first - 0xb7
            position += 1 + size + int.from_bytes(encoded[position + 1:position + 1 + size], "big")
        elif first < 0xf8:
            position += 1 + first - 0xc0
        else:
            size = first - 0xf7
            position += 1 + size + int.from_bytes(encoded[position + 1:position + 1 + size], "big")
        ends.append(position)
    return ends[-4]


def _list_prefix(length):
    if length < 56:
        return bytes((0xc0 + length,))
    size = length.to_bytes((length.bit_length() + 7) // 8, "big")
    return bytes((0xf7 + len(size),)) + size
