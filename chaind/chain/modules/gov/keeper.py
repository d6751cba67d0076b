"""gov's keeper and state: params, the constitution, proposals and their deposit/voting queues, deposits and votes.

Proposals, deposits and votes are kept as their v1 protobuf bytes (what the queries answer).
"""

import functools

from chaind.chain import authority
from chaind.pb.cosmos.gov.v1 import gov_pb2
from chaind.store.keys import compose

GOV = authority.GOV

_PARAMS = compose("gov", "params")
_CONSTITUTION = compose("gov", "constitution")
_NEXT_ID = compose("gov", "next")


def _id(n):
    return n.to_bytes(8, "big")


def _proposal_key(pid):
    return compose("gov", "prop", _id(pid))


def _queue_key(queue, time_ns, pid):
    return compose("gov", queue, _id(max(time_ns, 0)), _id(pid))


def _voting_key(pid):
    return compose("gov", "voting", _id(pid))


def _deposit_key(pid, depositor=b""):
    return compose("gov", "dep", _id(pid), depositor) if depositor else compose("gov", "dep", _id(pid))


def _vote_key(pid, voter=b""):
    return compose("gov", "vote", _id(pid), voter) if voter else compose("gov", "vote", _id(pid))


def time_reach(view):
    """The module record's time_reach: proposals are queued at the block's time plus the deposit period
    (inactive) or a voting period (active)."""
    return _reach_of(view.store.get(_PARAMS))


@functools.lru_cache(maxsize=16)
def _reach_of(raw):
    # Asked for each tx an automining node is sent (the producer's latest block time): decoded once per record.
    p = gov_pb2.Params.FromString(raw)
    return max(p.max_deposit_period.ToNanoseconds(), p.voting_period.ToNanoseconds(),
               p.expedited_voting_period.ToNanoseconds())


class GovKeeper:
    """x/gov's keeper: reads take a state (a view or a block's context), writes a block's context."""

    def params(self, state):
        return gov_pb2.Params.FromString(state.store.get(_PARAMS))

    def set_params(self, ctx, p):
        ctx.store.set(_PARAMS, p.SerializeToString())

    def constitution(self, state):
        return (state.store.get(_CONSTITUTION) or b"").decode()

    def set_constitution(self, ctx, text):
        ctx.store.set(_CONSTITUTION, text.encode())

    def next_proposal_id(self, state):
        raw = state.store.get(_NEXT_ID)
        return int.from_bytes(raw, "big") if raw else 1

    def set_next_proposal_id(self, ctx, pid):
        ctx.store.set(_NEXT_ID, _id(pid))

    def proposal(self, state, pid):
        raw = state.store.get(_proposal_key(pid))
        return None if raw is None else gov_pb2.Proposal.FromString(raw)

    def proposals(self, state):
        return [gov_pb2.Proposal.FromString(raw) for _, raw in state.store.iterate(compose("gov", "prop"))]

    def set_proposal(self, ctx, p):
        """SetProposal: also keeps the voting-period set (VotingPeriodProposals) in step with the status."""
        ctx.store.set(_proposal_key(p.id), p.SerializeToString())
        if p.status == gov_pb2.PROPOSAL_STATUS_VOTING_PERIOD:
            ctx.store.set(_voting_key(p.id), b"\x01")
        else:
            ctx.store.delete(_voting_key(p.id))

    def delete_proposal(self, ctx, p):
        """DeleteProposal: the proposal, its queue entry and its voting-period mark."""
        if p.HasField("voting_end_time"):
            ctx.store.delete(_queue_key("active", p.voting_end_time.ToNanoseconds(), p.id))
        ctx.store.delete(_queue_key("inactive", p.deposit_end_time.ToNanoseconds(), p.id))
        ctx.store.delete(_voting_key(p.id))
        ctx.store.delete(_proposal_key(p.id))

    def activate_voting_period(self, ctx, p, now_ns):
        """ActivateVotingPeriod: the proposal votes from `now_ns` for its voting period, queued by its end."""
        params = self.params(ctx)
        period = params.expedited_voting_period if p.expedited else params.voting_period
        p.voting_start_time.FromNanoseconds(now_ns)
        p.voting_end_time.FromNanoseconds(now_ns + period.ToNanoseconds())
        p.status = gov_pb2.PROPOSAL_STATUS_VOTING_PERIOD
        self.set_proposal(ctx, p)
        self.dequeue(ctx, "inactive", p.deposit_end_time.ToNanoseconds(), p.id)
        self.enqueue(ctx, "active", p.voting_end_time.ToNanoseconds(), p.id)

    def in_voting_period(self, state, pid):
        return state.store.get(_voting_key(pid)) is not None

    def enqueue(self, ctx, queue, time_ns, pid):
        """queue: "inactive" (deposit period, by deposit end) or "active" (voting period, by voting end)."""
        ctx.store.set(_queue_key(queue, time_ns, pid), b"")

    def dequeue(self, ctx, queue, time_ns, pid):
        ctx.store.delete(_queue_key(queue, time_ns, pid))

    def due(self, state, queue, now_ns):
        """Ids in `queue` whose time is at or before now, in time order (PrefixUntilPairRange)."""
        out = []
        for key, _ in state.store.iterate(compose("gov", queue)):
            time_ns = int.from_bytes(key[-17:-9], "big")
            if time_ns > now_ns:
                break
            out.append(int.from_bytes(key[-8:], "big"))
        return out

    def deposit(self, state, pid, depositor):
        raw = state.store.get(_deposit_key(pid, depositor))
        return None if raw is None else gov_pb2.Deposit.FromString(raw)

    def deposits(self, state, pid):
        """[(depositor bytes, Deposit)] of a proposal, by depositor address."""
        return [(key[-20:], gov_pb2.Deposit.FromString(raw)) for key, raw in state.store.iterate(_deposit_key(pid))]

    def set_deposit(self, ctx, pid, depositor, d):
        ctx.store.set(_deposit_key(pid, depositor), d.SerializeToString())

    def delete_deposit(self, ctx, pid, depositor):
        ctx.store.delete(_deposit_key(pid, depositor))

    def vote(self, state, pid, voter):
        raw = state.store.get(_vote_key(pid, voter))
        return None if raw is None else gov_pb2.Vote.FromString(raw)

    def votes(self, state, pid):
        """[(voter bytes, Vote)] of a proposal, by voter address."""
        return [(key[-20:], gov_pb2.Vote.FromString(raw)) for key, raw in state.store.iterate(_vote_key(pid))]

    def set_vote(self, ctx, pid, voter, v):
        ctx.store.set(_vote_key(pid, voter), v.SerializeToString())

    def delete_vote(self, ctx, pid, voter):
        ctx.store.delete(_vote_key(pid, voter))
