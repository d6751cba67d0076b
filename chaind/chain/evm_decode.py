"""A signed EVM tx decoded into py-evm's own objects without pyrlp's generic deserializer, which costs most of a
tx's decode; an encoding this does not read (any doubt about it) goes through py-evm's builder, which words why."""

from eth.vm.forks.berlin.transactions import AccessListTransaction
from eth.vm.forks.london.transactions import DynamicFeeTransaction
from eth.vm.forks.prague import PragueVM

_BUILDER = PragueVM.get_transaction_builder()
# Each type's py-evm class, its field count and where its `to`, `data` and access list are; the other fields
# are integers.
_LEGACY = (_BUILDER.legacy_signed, 9, 3, 5, None)
_TYPED = {1: (AccessListTransaction, 11, 4, 6, 7), 2: (DynamicFeeTransaction, 12, 5, 7, 8)}


def decode(encoded):
    """py-evm's signed tx of `encoded`, as its builder decodes it (raising what the builder raises)."""
    return read(encoded) or _BUILDER.decode(encoded)


def read(encoded):
    """What py-evm's builder decodes `encoded` into (an equal tx), or None for an encoding that is not a canonical
    legacy, access-list or dynamic-fee tx without an access list, which py-evm's builder must answer."""
    if not encoded:
        return None
    type_id = encoded[0]
    if type_id >= 0xc0:
        (cls, count, to_at, data_at, access_at), payload = _LEGACY, encoded
    elif type_id in _TYPED:
        (cls, count, to_at, data_at, access_at), payload = _TYPED[type_id], encoded[1:]
    else:
        return None
    items = _items(payload)
    if items is None or len(items) != count:
        return None
    values = []
    for index, (is_list, item) in enumerate(items):
        if index == access_at:
            # An empty access list, as CountableList decodes it; any other takes py-evm's decode.
            if not is_list or item:
                return None
            values.append(())
        elif is_list:
            return None
        elif index == data_at:
            values.append(item)
        elif index == to_at:
            if len(item) not in (0, 20):
                return None
            values.append(item)
        elif item[:1] == b"\0":
            return None           # big_endian_int refuses a leading zero byte
        else:
            values.append(int.from_bytes(item, "big"))
    tx = cls(*values)
    # What rlp.decode leaves on the object it decodes: its encoding, which tx.encode() then returns.
    tx._cached_rlp = payload
    return tx if type_id >= 0xc0 else _BUILDER.typed_transaction(type_id, tx)


def _items(data):
    """[(is a list, payload bytes)] of the items of the RLP list `data`, which must be canonical RLP (as pyrlp's
    strict decode wants it) and end where `data` ends; None otherwise."""
    size = len(data)
    found = _header(data, 0, size) if size else None
    if found is None:
        return None
    is_list, position, end = found
    if not is_list or end != size:
        return None
    items = []
    while position < end:
        found = _header(data, position, end)
        if found is None:
            return None
        is_list, start, position = found
        items.append((is_list, data[start:position]))
    return items


def _header(data, position, limit):
    """(is a list, payload start, payload end) of the item at `position`, which must end by `limit`; None for a
    non-canonical header (a single byte under 0x80 written as a string, a long form for a short payload, a
    length with a leading zero) or one past the limit."""
    first = data[position]
    if first < 0x80:
        start, end, is_list = position, position + 1, False
    elif first < 0xb8:
        start, end, is_list = position + 1, position + 1 + first - 0x80, False
        if end - start == 1 and (end > limit or data[start] < 0x80):
            return None
    elif first < 0xc0 or first >= 0xf8:
        is_list = first >= 0xf8
        size = first - (0xf7 if is_list else 0xb7)
        start = position + 1 + size
        if start > limit or data[position + 1] == 0:
            return None
        length = int.from_bytes(data[position + 1:start], "big")
        if length < 56:
            return None
        end = start + length
    else:
        start, end, is_list = position + 1, position + 1 + first - 0xc0, True
    return None if end > limit else (is_list, start, end)
