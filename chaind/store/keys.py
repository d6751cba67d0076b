"""The key layout of the node's LevelDB, in one place.

Heights and indexes are fixed-width big-endian so that keys sort numerically.
"""

import functools
import struct

HEAD = b"m:head"                # last committed height
PRUNED_BELOW = b"m:pruned"      # lowest height whose state is still kept
STATE_FORMAT = b"m:format"      # the state layout the data directory was written with (chain/app.py)
GENESIS = b"m:genesis"          # the genesis document the chain started from
DEV_AMENDED = b"m:dev-amended"  # first height whose state dev methods changed in place (no tx records it)
RESTORING = b"m:restoring"      # a state-sync restore is writing (its height): a node opened with it starts over

BLOCK = b"b:"                   # height -> block record (header, hash, meta)
BLOCK_BY_HASH = b"bh:"          # block hash -> height
TX = b"t:"                      # height, index -> raw tx bytes
RESULT = b"r:"                  # height, index -> tx result record
TX_BY_HASH = b"th:"             # native tx hash -> height, index
EVM_TX_BY_HASH = b"eh:"         # EVM tx hash -> height, index
EVM_NODE = b"s:"                # py-evm trie node / code hash -> bytes
EVM_PREIMAGE = b"sp:"           # keccak of a storage slot or a contract's address -> it, as geth's preimages (export)
VERSIONED = b"v:"               # native module key, inverted height -> value
TX_EVENT = b"xt:"               # event tag, value, height, index -> b"" (indexed tx event attributes)
BLOCK_EVENT = b"xb:"            # event tag, value, height -> b"" (indexed block event attributes)
IAVL_NODE = b"in:"              # store name (length-prefixed), node hash -> IAVL node record
IAVL_ORPHAN = b"io:"            # height, store name -> hashes of the store's nodes in no tree from that height on
COMMIT_INFO = b"ci:"            # height -> the multistore's store roots after that block (store/multistore.py)
VALIDATOR_SET = b"vs:"          # inverted height -> the validator set from that height on (written on change)
CONSENSUS_PARAMS = b"cp:"        # inverted height -> the consensus params from that height on (written on change)
EVIDENCE = b"ev:"               # committed duplicate-vote evidence hash -> height of the block that carries it

_HEIGHT = struct.Struct(">Q")
_POS = struct.Struct(">QI")
_MAX = 2**64 - 1


def height_bytes(height):
    return _HEIGHT.pack(height)


def height_of(raw):
    return _HEIGHT.unpack(raw)[0]


def position_bytes(height, index):
    return _POS.pack(height, index)


def position_of(raw):
    return _POS.unpack(raw)


def inverted_height(height):
    """Newest first: versions of one key sort from the highest height down."""
    return _HEIGHT.pack(_MAX - height)


def block_key(height):
    return BLOCK + height_bytes(height)


def tx_key(height, index):
    return TX + position_bytes(height, index)


def result_key(height, index):
    return RESULT + position_bytes(height, index)


def compose(*parts):
    """A module key from parts, each length-prefixed so no key is a prefix of another."""
    out = []
    for part in parts:
        if part.__class__ is str:
            out.append(_word(part))
            continue
        if len(part) > 255:
            raise ValueError("key part longer than 255 bytes")
        out.append(_LENGTH[len(part)])
        out.append(part)
    return b"".join(out)


_LENGTH = [bytes((n,)) for n in range(256)]


def part(raw):
    """compose(raw) of one bytes part (an address after a composed prefix: every block builds hundreds)."""
    if len(raw) > 255:
        raise ValueError("key part longer than 255 bytes")
    return _LENGTH[len(raw)] + raw


def decompose(key):
    """The parts of a composed key (or of its tail after a composed prefix), as bytes."""
    parts, i = [], 0
    while i < len(key):
        n = key[i]
        parts.append(key[i + 1:i + 1 + n])
        i += 1 + n
    return parts


@functools.lru_cache(maxsize=4096)
def _word(text):
    # Modules' key words ("balance", "val") recur on every read: encode each once.
    return compose(text.encode())


# The block coinbase a dev node set (anvil_setCoinbase), a native key so that replays see it too.
DEV_COINBASE = compose("dev", "coinbase")
