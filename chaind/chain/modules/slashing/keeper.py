"""slashing's keeper (x/slashing/keeper v0.50): liveness from each last commit, downtime slashing and jailing,
the penalties evidence asks for (slash, jail, tombstone), and unjailing."""

from google.protobuf import timestamp_pb2

from chaind.chain.block import event
from chaind.chain.modules import staking
from chaind.chain.modules.slashing import state
from chaind.chain.modules.slashing.errors import (
    MISSING_SELF_DELEGATION,
    NO_VALIDATOR_FOR_ADDRESS,
    SELF_DELEGATION_TOO_LOW,
    VALIDATOR_JAILED,
    VALIDATOR_NOT_JAILED,
    error,
)
from chaind.chain.modules.slashing.params import params
from chaind.chain.modules.staking import slash as staking_slash
from chaind.chain.modules.staking.keeper import Keeper as StakingKeeper
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.slashing.v1beta1 import slashing_pb2

DOUBLE_SIGN, MISSING_SIGNATURE = "double_sign", "missing_signature"
# ValidatorUpdateDelay: the power a block's set signed with was decided this many blocks before.
VALIDATOR_UPDATE_DELAY = 1


def new_signing_info(address, start_height):
    """NewValidatorSigningInfo with a jail that ended at the Unix epoch."""
    return slashing_pb2.ValidatorSigningInfo(address=address, start_height=start_height,
                                                   jailed_until=timestamp_pb2.Timestamp(seconds=0))


class Keeper:
    """One block's slashing changes; events gather in self.events (staking's burns and hooks included)."""

    def __init__(self, app, ctx):
        self.app = app
        self.ctx = ctx
        self.params = params(ctx)
        self.staking = StakingKeeper(app, ctx)
        self.events = []

    def valcons(self, cons_address):
        return to_bech32(self.app.genesis.bech32_prefix + "valcons", cons_address)

    def _flush_staking(self):
        self.events += self.staking.events
        self.staking.events = []

    # -- liveness ------------------------------------------------------------------------------

    def handle_signature(self, vote):
        """HandleValidatorSignatureWithParams: move the validator's window on by this vote; past the window's
        start, too many misses slash it by slash_fraction_downtime and jail it for downtime_jail_duration."""
        ctx, p = self.ctx, self.params
        cons = vote.address
        v = staking.summary_by_cons(ctx, cons)
        if v is None or v.jailed:
            return
        info = state.signing_info(ctx, cons)
        if info is None:
            # The SDK fails the block on a bonded validator it has no signing info for; one bonded by this
            # chain always has one (AfterValidatorBonded), so this is a validator removed meanwhile.
            return
        index = info.index_offset % p.signed_blocks_window
        info.index_offset += 1
        previous = state.missed(ctx, cons, index)
        missed = vote.missed
        if missed and not previous:
            state.set_missed(ctx, cons, index, True)
            info.missed_blocks_counter += 1
        elif previous and not missed:
            state.set_missed(ctx, cons, index, False)
            info.missed_blocks_counter -= 1
        address = self.valcons(cons)
        if missed:
            self.events.append(event("liveness", ("address", address),
                                     ("missed_blocks", str(info.missed_blocks_counter)),
                                     ("height", str(ctx.height))))
        max_missed = p.signed_blocks_window - p.min_signed_blocks()
        if ctx.height > info.start_height + p.signed_blocks_window and info.missed_blocks_counter > max_missed:
            distribution_height = ctx.height - VALIDATOR_UPDATE_DELAY - 1
            burned = staking_slash.slash(self.staking, cons, distribution_height, vote.power,
                                         p.slash_fraction_downtime)
            self._flush_staking()
            self.events.append(event("slash", ("address", address), ("power", str(vote.power)),
                                     ("reason", MISSING_SIGNATURE), ("jailed", address),
                                     ("burned_coins", str(burned))))
            staking_slash.jail(self.staking, cons)
            until = ctx.time_ns + p.downtime_jail_duration_ns
            info.jailed_until.seconds, info.jailed_until.nanos = divmod(until, 10**9)
            # Reset, so that the validator is not slashed again at once once it bonds again (the start
            # height moves on then, in AfterValidatorBonded).
            info.missed_blocks_counter = 0
            state.clear_missed(ctx, cons)
        state.set_signing_info(ctx, cons, info)

    # -- penalties evidence asks for -------------------------------------------------------------

    def slash_with_reason(self, cons, fraction, power, distribution_height, reason):
        burned = staking_slash.slash(self.staking, cons, distribution_height, power, fraction)
        self._flush_staking()
        self.events.append(event("slash", ("address", self.valcons(cons)), ("power", str(power)),
                                 ("reason", reason), ("burned_coins", str(burned))))

    def jail(self, cons):
        staking_slash.jail(self.staking, cons)
        self.events.append(event("slash", ("jailed", self.valcons(cons))))

    def jail_until(self, cons, seconds, nanos=0):
        info = state.signing_info(self.ctx, cons)
        info.jailed_until.seconds, info.jailed_until.nanos = seconds, nanos
        state.set_signing_info(self.ctx, cons, info)

    def tombstone(self, cons):
        info = state.signing_info(self.ctx, cons)
        if info.tombstoned:
            raise ValueError("cannot tombstone validator that is already tombstoned")
        info.tombstoned = True
        state.set_signing_info(self.ctx, cons, info)

    # -- MsgUnjail -----------------------------------------------------------------------------

    def unjail(self, operator):
        """Keeper.Unjail: a jailed validator whose self-delegation still meets its minimum, not tombstoned,
        whose jail time has passed, goes back to the bonded set at the next end block."""
        ctx = self.ctx
        v = staking.validator(ctx, operator)
        if v is None:
            raise error(NO_VALIDATOR_FOR_ADDRESS)
        shares = staking.delegation(ctx, operator, operator)
        if shares is None:
            raise error(MISSING_SELF_DELEGATION)
        tokens = v.tokens_from_shares(shares) // staking.PRECISION
        if tokens < v.min_self_delegation:
            raise error(SELF_DELEGATION_TOO_LOW, f"{tokens} less than {v.min_self_delegation}")
        if not v.jailed:
            raise error(VALIDATOR_NOT_JAILED)
        info = state.signing_info(ctx, v.cons_address)
        if info is not None:
            if info.tombstoned:
                raise error(VALIDATOR_JAILED)
            if ctx.time_ns < info.jailed_until.seconds * 10**9 + info.jailed_until.nanos:
                raise error(VALIDATOR_JAILED)
        staking_slash.unjail(self.staking, v.cons_address)
        self._flush_staking()
