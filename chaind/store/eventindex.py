"""The event index behind tx_search: the indexed attributes of tx events as LevelDB keys.

A key is prefix, tag, value (each length-prefixed), then the position, so `tag = value` is one
prefix range and every other operator reads only the keys of its tag.
"""

import struct

from chaind.store import keys

_TAG = struct.Struct(">H")
_VALUE = struct.Struct(">I")
RESERVED = frozenset({"tx.hash", "tx.height", "tm.event", "block.height"})


def tag_prefix(prefix, tag):
    tag = tag.encode()
    return prefix + _TAG.pack(len(tag)) + tag


def value_prefix(prefix, tag, value):
    value = value.encode()
    return tag_prefix(prefix, tag) + _VALUE.pack(len(value)) + value


def tx_entries(height, index, events):
    """Index keys of one tx's events: every attribute marked for indexing, under "type.key"."""
    position = keys.position_bytes(height, index)
    return {value_prefix(keys.TX_EVENT, tag, value) + position: b""
            for tag, value in _indexed(events)}


def _indexed(events):
    for e in events:
        for key, value, index in e.attributes:
            tag = f"{e.type}.{key}"
            # The reserved tags are answered from the chain's own records; an app event cannot shadow them.
            if index and e.type and key and tag not in RESERVED:
                yield tag, value


def lookup_equal(db, prefix, tag, value):
    """Positions (the raw trailing bytes) of entries with exactly `tag` = `value`."""
    start = value_prefix(prefix, tag, value)
    return {key[len(start):] for key in db.keys(start)}


def scan_tag(db, prefix, tag, accept):
    """Positions of entries of `tag` whose value `accept(value)` takes; reads this tag's keys only."""
    start = tag_prefix(prefix, tag)
    found, cached = set(), {}
    for key in db.keys(start):
        length = _VALUE.unpack_from(key, len(start))[0]
        begin = len(start) + _VALUE.size
        raw = key[begin:begin + length]
        ok = cached.get(raw)
        if ok is None:
            ok = cached[raw] = accept(raw.decode())
        if ok:
            found.add(key[begin + length:])
    return found
