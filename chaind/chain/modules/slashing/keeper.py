"""slashing's keeper (x/slashing/keeper v0.50): signing infos and the missed-block bitmap in state, liveness from each
last commit, downtime slashing and jailing, the penalties evidence asks for (slash, jail, tombstone), and unjailing.

Signing infos are kept under the SDK's key 0x01 | len | consensus address as its ValidatorSigningInfo proto, so
light clients read them as the SDK's; each validator's missed blocks in the window as the SDK's bitmap of
1,024-bit chunks (0x02 | len | consensus address | chunk index; store_layout.py places both).
"""

import struct

from google.protobuf import timestamp_pb2

from chaind.chain.block import event
from chaind.chain.modules.slashing.errors import (
    MISSING_SELF_DELEGATION,
    NO_VALIDATOR_FOR_ADDRESS,
    SELF_DELEGATION_TOO_LOW,
    VALIDATOR_JAILED,
    VALIDATOR_NOT_JAILED,
    error,
)
from chaind.chain.modules.slashing.params import PARAMS_KEY
from chaind.chain.modules.slashing.params import params as read_params
from chaind.chain.modules.staking.numbers import PRECISION
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.slashing.v1beta1 import slashing_pb2
from chaind.store.keys import compose

DOUBLE_SIGN, MISSING_SIGNATURE = "double_sign", "missing_signature"
# ValidatorUpdateDelay: the power a block's set signed with was decided this many blocks before.
VALIDATOR_UPDATE_DELAY = 1

SIGNING_INFOS = compose("slashing", "si")

# Far in the future: a tombstoned validator's jail never ends (evidence's DoubleSignJailEndTime).
DOUBLE_SIGN_JAIL_END_SECONDS = 253402300799        # 9999-12-31T23:59:59Z

# MissedBlockBitmapChunkSize: a chunk is one value, as bits-and-blooms' bitset MarshalBinary writes it: the
# length in bits, then 64-bit words, each big-endian; bit i is bit i % 64 of word i // 64.
CHUNK_BITS = 1024
_CHUNK_LENGTH = struct.pack(">Q", CHUNK_BITS)


def signing_info_key(cons_address):
    return compose("slashing", "si", cons_address)


def _chunk_key(cons_address, chunk):
    return compose("slashing", "missed", cons_address, chunk.to_bytes(8, "big"))


def _bit(index):
    """(chunk index, byte of the chunk's words, mask) of window index `index`."""
    chunk, bit = divmod(index, CHUNK_BITS)
    return chunk, 8 * (bit >> 6) + 7 - ((bit & 63) >> 3), 1 << (bit & 7)


def new_signing_info(address, start_height):
    """NewValidatorSigningInfo with a jail that ended at the Unix epoch."""
    return slashing_pb2.ValidatorSigningInfo(address=address, start_height=start_height,
                                                   jailed_until=timestamp_pb2.Timestamp(seconds=0))


class SlashingKeeper:
    """x/slashing's keeper, built once from staking's keeper (whose penalties it applies) and the chain's bech32
    prefix. Reads take a state (a view or a block's context); writes take a block's context and return the events
    they caused (staking's burns and hooks included)."""

    def __init__(self, bech32_prefix, staking):
        self.staking = staking
        self.valcons_prefix = bech32_prefix + "valcons"

    def valcons(self, cons_address):
        return to_bech32(self.valcons_prefix, cons_address)

    def params(self, state):
        """Read from the state at each call: a passed proposal changes them within a block."""
        return read_params(state)

    def set_params(self, ctx, p):
        ctx.store.set(PARAMS_KEY, p.proto().SerializeToString())

    # -- signing infos and missed blocks -------------------------------------------------------

    def signing_info(self, state, cons_address):
        """The ValidatorSigningInfo proto, or None."""
        raw = state.store.get(signing_info_key(cons_address))
        return None if raw is None else slashing_pb2.ValidatorSigningInfo.FromString(raw)

    def set_signing_info(self, ctx, cons_address, info):
        ctx.store.set(signing_info_key(cons_address), info.SerializeToString())

    def signing_infos(self, state):
        """[(consensus address, ValidatorSigningInfo)] by address."""
        skip = len(SIGNING_INFOS) + 1
        return [(key[skip:], slashing_pb2.ValidatorSigningInfo.FromString(raw))
                for key, raw in state.store.iterate(SIGNING_INFOS)]

    def missed(self, state, cons_address, index):
        """GetMissedBlockBitmapValue: whether the validator missed the block at window index `index`."""
        chunk, at, mask = _bit(index)
        raw = state.store.get(_chunk_key(cons_address, chunk))
        words = b"" if raw is None else raw[len(_CHUNK_LENGTH):]
        return at < len(words) and bool(words[at] & mask)

    def set_missed(self, ctx, cons_address, index, value):
        """SetMissedBlockBitmapValue: the chunk holding `index` rewritten with that bit set or cleared."""
        chunk, at, mask = _bit(index)
        key = _chunk_key(cons_address, chunk)
        raw = ctx.store.get(key)
        words = bytearray(CHUNK_BITS // 8)
        if raw is not None:
            words[:len(raw) - len(_CHUNK_LENGTH)] = raw[len(_CHUNK_LENGTH):]
        words[at] = words[at] | mask if value else words[at] & ~mask
        ctx.store.set(key, _CHUNK_LENGTH + words)

    def clear_missed(self, ctx, cons_address):
        """deleteMissedBlockBitmap: every chunk of the validator's window."""
        for key, _ in list(ctx.store.iterate(compose("slashing", "missed", cons_address))):
            ctx.store.delete(key)

    # -- liveness ------------------------------------------------------------------------------

    def handle_signature(self, ctx, p, vote):
        """HandleValidatorSignatureWithParams, at the params `p` the begin blocker read: move the validator's
        window on by this vote; past the window's start, too many misses slash it by slash_fraction_downtime and
        jail it for downtime_jail_duration. Returns events."""
        cons = vote.address
        v = self.staking.summary_by_cons(ctx, cons)
        if v is None or v.jailed:
            return []
        info = self.signing_info(ctx, cons)
        if info is None:
            # The SDK fails the block on a bonded validator it has no signing info for; one bonded by this
            # chain always has one (AfterValidatorBonded), so this is a validator removed meanwhile.
            return []
        index = info.index_offset % p.signed_blocks_window
        info.index_offset += 1
        previous = self.missed(ctx, cons, index)
        missed = vote.missed
        if missed and not previous:
            self.set_missed(ctx, cons, index, True)
            info.missed_blocks_counter += 1
        elif previous and not missed:
            self.set_missed(ctx, cons, index, False)
            info.missed_blocks_counter -= 1
        address = self.valcons(cons)
        events = []
        if missed:
            events.append(event("liveness", ("address", address), ("missed_blocks", str(info.missed_blocks_counter)),
                                ("height", str(ctx.height))))
        max_missed = p.signed_blocks_window - p.min_signed_blocks()
        if ctx.height > info.start_height + p.signed_blocks_window and info.missed_blocks_counter > max_missed:
            distribution_height = ctx.height - VALIDATOR_UPDATE_DELAY - 1
            burned, slashed = self.staking.slash(ctx, self.staking.params(ctx), cons, distribution_height, vote.power,
                                                 p.slash_fraction_downtime)
            events += slashed
            events.append(event("slash", ("address", address), ("power", str(vote.power)),
                                ("reason", MISSING_SIGNATURE), ("jailed", address), ("burned_coins", str(burned))))
            self.staking.jail(ctx, cons)
            until = ctx.time_ns + p.downtime_jail_duration_ns
            info.jailed_until.seconds, info.jailed_until.nanos = divmod(until, 10**9)
            # Reset, so that the validator is not slashed again at once once it bonds again (the start
            # height moves on then, in AfterValidatorBonded).
            info.missed_blocks_counter = 0
            self.clear_missed(ctx, cons)
        self.set_signing_info(ctx, cons, info)
        return events

    # -- penalties evidence asks for -------------------------------------------------------------

    def slash_with_reason(self, ctx, cons, fraction, power, distribution_height, reason):
        """Returns events."""
        burned, events = self.staking.slash(ctx, self.staking.params(ctx), cons, distribution_height, power, fraction)
        events.append(event("slash", ("address", self.valcons(cons)), ("power", str(power)), ("reason", reason),
                            ("burned_coins", str(burned))))
        return events

    def jail(self, ctx, cons):
        """Returns events."""
        self.staking.jail(ctx, cons)
        return [event("slash", ("jailed", self.valcons(cons)))]

    def jail_until(self, ctx, cons, seconds, nanos=0):
        info = self.signing_info(ctx, cons)
        info.jailed_until.seconds, info.jailed_until.nanos = seconds, nanos
        self.set_signing_info(ctx, cons, info)

    def tombstone(self, ctx, cons):
        info = self.signing_info(ctx, cons)
        if info.tombstoned:
            raise ValueError("cannot tombstone validator that is already tombstoned")
        info.tombstoned = True
        self.set_signing_info(ctx, cons, info)

    # -- MsgUnjail -----------------------------------------------------------------------------

    def unjail(self, ctx, operator):
        """Keeper.Unjail: a jailed validator whose self-delegation still meets its minimum, not tombstoned,
        whose jail time has passed, goes back to the bonded set at the next end block (no events)."""
        v = self.staking.validator(ctx, operator)
        if v is None:
            raise error(NO_VALIDATOR_FOR_ADDRESS)
        shares = self.staking.delegation(ctx, operator, operator)
        if shares is None:
            raise error(MISSING_SELF_DELEGATION)
        tokens = v.tokens_from_shares(shares) // PRECISION
        if tokens < v.min_self_delegation:
            raise error(SELF_DELEGATION_TOO_LOW, f"{tokens} less than {v.min_self_delegation}")
        if not v.jailed:
            raise error(VALIDATOR_NOT_JAILED)
        info = self.signing_info(ctx, v.cons_address)
        if info is not None:
            if info.tombstoned:
                raise error(VALIDATOR_JAILED)
            if ctx.time_ns < info.jailed_until.seconds * 10**9 + info.jailed_until.nanos:
                raise error(VALIDATOR_JAILED)
        self.staking.unjail(ctx, v.cons_address)
