"""Protobuf's wire format written by hand, for the few messages made once a block or more (a header's fields, a
vote's sign bytes, a commit's signatures): building the messages cost more than what is done with them."""

import functools

# A hash's length, and most numbers of a header or vote, take one byte: anvil_mine makes thousands a call.
_ONE_BYTE_VARINTS = tuple(bytes((n,)) for n in range(0x80))


def varint(n):
    """A non-negative number as a varint."""
    if n < 0x80:
        return _ONE_BYTE_VARINTS[n]
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def varint_field(tag, value):
    """A varint field (int32, int64, uint32, enum) after its `tag` byte; a negative number is its 64-bit two's
    complement, and zero is not written (proto3)."""
    return tag + varint(value & 0xFFFFFFFFFFFFFFFF) if value else b""


def bytes_field(tag, value, always=False):
    """A length-delimited field (bytes, string as UTF-8, a message) after its `tag` byte; empty is not written,
    unless `always` (a message field that is set)."""
    return tag + varint(len(value)) + value if value or always else b""


def timestamp(time_ns):
    """google.protobuf.Timestamp of `time_ns` (nanoseconds since the epoch, possibly negative)."""
    seconds, nanos = divmod(time_ns, 10**9)
    return _seconds_field(seconds) + varint_field(b"\x10", nanos)


@functools.lru_cache(maxsize=64)
def _seconds_field(seconds):
    """A Timestamp's seconds: the same for every block of a second (anvil_mine makes thousands a second)."""
    return varint_field(b"\x08", seconds)
