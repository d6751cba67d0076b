"""cosmos.gov.v1beta1.Query: the v1 state seen through the legacy types, as the SDK's legacy querier converts it
(a proposal's content is its MsgExecLegacyContent's, else its one message; weights and tally params LegacyDec)."""

from google.protobuf import timestamp_pb2

from chaind import errors
from chaind.chain import legacy_dec
from chaind.chain.modules.gov.legacy import EXEC_LEGACY
from chaind.chain.modules.gov.query import GovQuery
from chaind.chain.queries import query
from chaind.pb.cosmos.gov.v1 import tx_pb2 as v1_tx
from chaind.pb.cosmos.gov.v1beta1 import gov_pb2, query_pb2, query_pb2_grpc

_ZERO_TIME = timestamp_pb2.Timestamp(seconds=-62135596800)   # Go's zero time.Time, what a nil one marshals as


def tally_result(v1):
    return gov_pb2.TallyResult(yes=v1.yes_count or "0", abstain=v1.abstain_count or "0", no=v1.no_count or "0",
                               no_with_veto=v1.no_with_veto_count or "0")


def proposal(p):
    """ConvertToLegacyProposal; raises ChainError when the proposal has not exactly one message."""
    if len(p.messages) != 1:
        raise errors.failed("can't convert a gov/v1 Proposal to gov/v1beta1 Proposal when amount of proposal "
                            "messages not exactly one: invalid type")
    content = p.messages[0]
    if content.type_url == EXEC_LEGACY:
        content = v1_tx.MsgExecLegacyContent.FromString(content.value).content
    out = gov_pb2.Proposal(proposal_id=p.id, content=content, status=p.status,
                           final_tally_result=tally_result(p.final_tally_result), total_deposit=p.total_deposit)
    out.submit_time.CopyFrom(p.submit_time)
    out.deposit_end_time.CopyFrom(p.deposit_end_time)
    out.voting_start_time.CopyFrom(p.voting_start_time if p.HasField("voting_start_time") else _ZERO_TIME)
    out.voting_end_time.CopyFrom(p.voting_end_time if p.HasField("voting_end_time") else _ZERO_TIME)
    return out


def vote(v):
    options = [gov_pb2.WeightedVoteOption(option=o.option, weight=str(legacy_dec.parse(o.weight))) for o in v.options]
    single = len(v.options) == 1 and legacy_dec.parse(v.options[0].weight) == legacy_dec.ONE
    return gov_pb2.Vote(proposal_id=v.proposal_id, voter=v.voter, options=options,
                        option=v.options[0].option if single else 0)


def deposit(d):
    return gov_pb2.Deposit(proposal_id=d.proposal_id, depositor=d.depositor, amount=d.amount)


def _dec_bytes(text):
    return str(legacy_dec.parse(text)).encode()


class GovQueryV1Beta1(GovQuery, query_pb2_grpc.QueryServicer):
    @query(inline=True)
    def Proposal(self, request, view):
        return query_pb2.QueryProposalResponse(proposal=proposal(self.existing(view, request.proposal_id)))

    @query
    def Proposals(self, request, view):
        found, page = self.proposals_page(request, view)
        return query_pb2.QueryProposalsResponse(proposals=[proposal(p) for p in found], pagination=page)

    @query(inline=True)
    def Vote(self, request, view):
        return query_pb2.QueryVoteResponse(vote=vote(self.one_vote(request, view)))

    @query
    def Votes(self, request, view):
        found, page = self.votes_page(request, view)
        return query_pb2.QueryVotesResponse(votes=[vote(v) for v in found], pagination=page)

    @query(inline=True)
    def Params(self, request, view):
        p = self.keeper.params(view)
        response = query_pb2.QueryParamsResponse()
        # gogoproto non-nullable: the groups not asked for are there, empty.
        for group in (response.voting_params, response.deposit_params, response.tally_params):
            group.SetInParent()
        if request.params_type == "deposit":
            response.deposit_params.min_deposit.extend(p.min_deposit)
            response.deposit_params.max_deposit_period.CopyFrom(p.max_deposit_period)
        elif request.params_type == "voting":
            response.voting_params.voting_period.CopyFrom(p.voting_period)
        elif request.params_type == "tallying":
            response.tally_params.CopyFrom(gov_pb2.TallyParams(
                quorum=_dec_bytes(p.quorum), threshold=_dec_bytes(p.threshold),
                veto_threshold=_dec_bytes(p.veto_threshold)))
        else:
            raise errors.invalid_argument(f"{request.params_type} is not a valid parameter type")
        return response

    @query(inline=True)
    def Deposit(self, request, view):
        return query_pb2.QueryDepositResponse(deposit=deposit(self.one_deposit(request, view)))

    @query
    def Deposits(self, request, view):
        found, page = self.deposits_page(request, view)
        return query_pb2.QueryDepositsResponse(deposits=[deposit(d) for d in found], pagination=page)

    @query
    def TallyResult(self, request, view):
        return query_pb2.QueryTallyResultResponse(tally=tally_result(self.tally_of(request, view)))
