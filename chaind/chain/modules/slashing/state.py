"""slashing's state: signing infos (the SDK's key 0x01 | len | consensus address, its ValidatorSigningInfo
proto, so light clients read them as the SDK's) and each validator's missed blocks in the window, as the SDK's
bitmap of 1,024-bit chunks (0x02 | len | consensus address | chunk index; store_layout.py places both)."""

import struct

from chaind.pb.cosmos.slashing.v1beta1 import slashing_pb2
from chaind.store.keys import compose

SIGNING_INFOS = compose("slashing", "si")

# Far in the future: a tombstoned validator's jail never ends (evidence's DoubleSignJailEndTime).
DOUBLE_SIGN_JAIL_END_SECONDS = 253402300799        # 9999-12-31T23:59:59Z


def signing_info_key(cons_address):
    return compose("slashing", "si", cons_address)


def signing_info(state, cons_address):
    """The ValidatorSigningInfo proto, or None."""
    raw = state.store.get(signing_info_key(cons_address))
    return None if raw is None else slashing_pb2.ValidatorSigningInfo.FromString(raw)


def set_signing_info(state, cons_address, info):
    state.store.set(signing_info_key(cons_address), info.SerializeToString())


def signing_infos(state):
    """[(consensus address, ValidatorSigningInfo)] by address."""
    skip = len(SIGNING_INFOS) + 1
    return [(key[skip:], slashing_pb2.ValidatorSigningInfo.FromString(raw))
            for key, raw in state.store.iterate(SIGNING_INFOS)]


# MissedBlockBitmapChunkSize: a chunk is one value, as bits-and-blooms' bitset MarshalBinary writes it: the
# length in bits, then 64-bit words, each big-endian; bit i is bit i % 64 of word i // 64.
CHUNK_BITS = 1024
_CHUNK_LENGTH = struct.pack(">Q", CHUNK_BITS)


def _chunk_key(cons_address, chunk):
    return compose("slashing", "missed", cons_address, chunk.to_bytes(8, "big"))


def _bit(index):
    """(chunk index, byte of the chunk's words, mask) of window index `index`."""
    chunk, bit = divmod(index, CHUNK_BITS)
    return chunk, 8 * (bit >> 6) + 7 - ((bit & 63) >> 3), 1 << (bit & 7)


def missed(state, cons_address, index):
    """GetMissedBlockBitmapValue: whether the validator missed the block at window index `index`."""
    chunk, at, mask = _bit(index)
    raw = state.store.get(_chunk_key(cons_address, chunk))
    words = b"" if raw is None else raw[len(_CHUNK_LENGTH):]
    return at < len(words) and bool(words[at] & mask)


def set_missed(state, cons_address, index, value):
    """SetMissedBlockBitmapValue: the chunk holding `index` rewritten with that bit set or cleared."""
    chunk, at, mask = _bit(index)
    key = _chunk_key(cons_address, chunk)
    raw = state.store.get(key)
    words = bytearray(CHUNK_BITS // 8)
    if raw is not None:
        words[:len(raw) - len(_CHUNK_LENGTH)] = raw[len(_CHUNK_LENGTH):]
    words[at] = words[at] | mask if value else words[at] & ~mask
    state.store.set(key, _CHUNK_LENGTH + words)


def clear_missed(state, cons_address):
    """deleteMissedBlockBitmap: every chunk of the validator's window."""
    for key, _ in list(state.store.iterate(compose("slashing", "missed", cons_address))):
        state.store.delete(key)
