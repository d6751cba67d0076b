"""The event index behind tx_search and block_search: indexed event attributes as LevelDB keys.

A key is prefix, tag, value (each length-prefixed), then the position (a tx's height and index, or a
block's height), so `tag = value` is one prefix range and every other operator reads only the keys of its tag.
"""

import functools
import struct

from chaind.store import keys

_TAG = struct.Struct(">H")
_VALUE = struct.Struct(">I")
RESERVED = frozenset({"tx.hash", "tx.height", "tm.event", "block.height"})


@functools.lru_cache(maxsize=4096)
def tag_prefix(prefix, tag):
    tag = tag.encode()
    return prefix + _TAG.pack(len(tag)) + tag


def value_prefix(prefix, tag, value):
    value = value.encode()
    return tag_prefix(prefix, tag) + _VALUE.pack(len(value)) + value


def tx_entries(height, index, events):
    """Index keys of one tx's events: every attribute marked for indexing, under "type.key"."""
    return _entries(keys.TX_EVENT, keys.position_bytes(height, index), events)


def block_entries(height, events):
    """Index keys of a block's own events (block.height needs none: every committed height has a block)."""
    return _entries(keys.BLOCK_EVENT, keys.height_bytes(height), events)


def _entries(prefix, position, events):
    """{value_prefix(prefix, tag, value) + position: b""} of each indexed attribute (hundreds a block, of a few
    event types: each type's and key's part of the key is looked up once, and only the value is encoded each
    time)."""
    found, heads = {}, {}
    pack = _VALUE.pack
    for e in events:
        by_key = heads.get(e.type)
        if by_key is None:
            by_key = heads[e.type] = {}
        for key, value, index in e.attributes:
            if index:
                head = by_key.get(key, _MISSING)
                if head is _MISSING:
                    head = by_key[key] = _tag_head(prefix, e.type, key)
                if head is not None:
                    value = value.encode()
                    found[head + pack(len(value)) + value + position] = b""
    return found


_MISSING = object()


@functools.lru_cache(maxsize=4096)
def _tag_head(prefix, type_, key):
    """tag_prefix of "type.key", or None for an attribute the index leaves out: the reserved tags are answered
    from the chain's own records, so an app event cannot shadow them."""
    tag = f"{type_}.{key}"
    if not (type_ and key) or tag in RESERVED:
        return None
    return tag_prefix(prefix, tag)


def lookup_equal(db, prefix, tag, value, start=None, stop=None):
    """Positions (the raw trailing bytes) of entries with exactly `tag` = `value`; `start`/`stop`
    bound the positions read (inclusive, exclusive: position bytes sort as heights do)."""
    head = value_prefix(prefix, tag, value)
    if start is None and stop is None:
        return {key[len(head):] for key in db.keys(head)}
    low = head + (start or b"")
    high = head + stop if stop is not None else head + b"\xff" * 16
    return {key[len(head):] for key in db.keys_between(low, high)}


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
