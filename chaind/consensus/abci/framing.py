"""CometBFT's socket framing: each message is an unsigned varint byte length, then that many bytes.

(libs/protoio's delimited reader and writer, as abci/types/messages.go uses them.)
"""

MAX_VARINT_BYTES = 10     # a uint64 takes at most ten 7-bit groups


class FrameError(ValueError):
    """A stream that cannot be read as frames; the message says why. The connection is closed."""


def encode_uvarint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def frame(payload):
    return encode_uvarint(len(payload)) + payload


class FrameReader:
    """Cuts a byte stream into message payloads; a frame longer than `max_bytes` is a FrameError."""

    def __init__(self, max_bytes):
        self.max_bytes = max_bytes
        self._buffer = bytearray()

    def feed(self, data):
        """Add received bytes; returns the payloads they complete, in order."""
        self._buffer += data
        payloads = []
        while True:
            found = self._length()
            if found is None:
                return payloads
            length, start = found
            if len(self._buffer) < start + length:
                return payloads
            payloads.append(bytes(self._buffer[start:start + length]))
            del self._buffer[:start + length]

    def drop(self):
        """Forget the unfinished frame (its connection is closing)."""
        self._buffer = bytearray()

    def pending(self):
        """Bytes of a frame begun and not finished (a truncated message, when the peer hangs up)."""
        return len(self._buffer)

    def _length(self):
        n = shift = 0
        for i, byte in enumerate(self._buffer[:MAX_VARINT_BYTES]):
            n |= (byte & 0x7F) << shift
            if not byte & 0x80:
                if n > self.max_bytes:
                    raise FrameError(f"message of {n} bytes exceeds the limit of {self.max_bytes} "
                                     f"([abci] max-message-bytes)")
                return n, i + 1
            shift += 7
        if len(self._buffer) >= MAX_VARINT_BYTES:
            raise FrameError("message length is not a valid varint (more than 10 bytes)")
        return None
