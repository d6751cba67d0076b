"""The Cosmos SDK's K-of-N multisig key (LegacyAminoPubKey): its amino bytes and address, and the
CompactBitArray that says which members signed.

Address = SHA-256 of the key's amino binary encoding, first 20 bytes (x/crypto/keys/multisig).
"""

import hashlib

from chaind.crypto import keys

PUBKEY_URL = "/cosmos.crypto.multisig.LegacyAminoPubKey"
AMINO_NAME = "tendermint/PubKeyMultisigThreshold"
# Amino names of the member keys a multisig may hold (Evmos' eth_secp256k1, the SDK's secp256k1).
MEMBER_AMINO_NAMES = {keys.ETH_SECP256K1: "ethermint/PubKeyEthSecp256k1", keys.SECP256K1: "tendermint/PubKeySecp256k1"}


def amino_prefix(name):
    """go-amino's 4 prefix bytes of a registered type name: its SHA-256 past zero bytes and 3 disambiguation bytes."""
    digest = hashlib.sha256(name.encode()).digest().lstrip(b"\0")[3:].lstrip(b"\0")
    return digest[:4]


def _uvarint(n):
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def amino_bytes(threshold, members):
    """Amino binary of a LegacyAminoPubKey: prefix, threshold (field 1), each member as an amino interface (field 2).

    `members` are (key type, 33-byte compressed key); a member's amino form is its prefix then its length-prefixed key.
    """
    out = bytearray(amino_prefix(AMINO_NAME))
    out += b"\x08" + _uvarint(threshold)
    for key_type, key in members:
        member = amino_prefix(MEMBER_AMINO_NAMES[key_type]) + _uvarint(len(key)) + key
        out += b"\x12" + _uvarint(len(member)) + member
    return bytes(out)


def address(threshold, members):
    return hashlib.sha256(amino_bytes(threshold, members)).digest()[:20]


def bit_array(size, indexes):
    """(extra_bits_stored, elems) of a CompactBitArray of `size` bits with `indexes` set (bit 0 = MSB of byte 0)."""
    elems = bytearray((size + 7) // 8)
    for i in indexes:
        elems[i >> 3] |= 1 << (7 - i % 8)
    return size % 8, bytes(elems)


def bit_array_size(extra_bits_stored, elems):
    if extra_bits_stored == 0:
        return len(elems) * 8
    return (len(elems) - 1) * 8 + extra_bits_stored if elems else 0


def set_bits(extra_bits_stored, elems):
    """The set indexes of a CompactBitArray, in order."""
    size = bit_array_size(extra_bits_stored, elems)
    return [i for i in range(size) if elems[i >> 3] & (1 << (7 - i % 8))]
