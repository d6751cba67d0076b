"""cosmos.gov.v1.Query: constitution, proposals, votes, deposits, tallies and params, as x/gov's gRPC querier
answers them."""

from chaind import errors
from chaind.chain.modules.gov.tally import empty_result, tally
from chaind.chain.queries import Reader, address_bytes, paginate, query
from chaind.pb.cosmos.gov.v1 import gov_pb2, query_pb2, query_pb2_grpc

ENDED = (gov_pb2.PROPOSAL_STATUS_PASSED, gov_pb2.PROPOSAL_STATUS_REJECTED, gov_pb2.PROPOSAL_STATUS_FAILED)


def id_key(pid):
    return pid.to_bytes(8, "big")


class GovQuery(Reader, query_pb2_grpc.QueryServicer):
    def __init__(self, app):
        super().__init__(app)
        self.prefix = app.genesis.bech32_prefix

    @property
    def keeper(self):
        return self.app.keepers["gov"]

    def address(self, text, empty_message):
        if not text:
            raise errors.invalid_argument(empty_message)
        try:
            return address_bytes(text, self.prefix)
        except ValueError as e:
            raise errors.invalid_argument(str(e)) from None

    @staticmethod
    def proposal_id(pid):
        if pid == 0:
            raise errors.invalid_argument("proposal id can not be 0")
        return pid

    def existing(self, view, pid):
        p = self.keeper.proposal(view, self.proposal_id(pid))
        if p is None:
            raise errors.not_found(f"proposal {pid} doesn't exist")
        return p

    @query(inline=True)
    def Constitution(self, request, view):
        return query_pb2.QueryConstitutionResponse(constitution=self.keeper.constitution(view))

    @query(inline=True)
    def Proposal(self, request, view):
        return query_pb2.QueryProposalResponse(proposal=self.existing(view, request.proposal_id))

    # What both API versions answer, in v1's types (the v1beta1 servicer converts them).

    def proposals_page(self, request, view):
        voter = self.address(request.voter, "") if request.voter else None
        depositor = self.address(request.depositor, "") if request.depositor else None
        items = [(id_key(p.id), p) for p in self.keeper.proposals(view)
                 if (not request.proposal_status or p.status == request.proposal_status)
                 and (voter is None or self.keeper.vote(view, p.id, voter) is not None)
                 and (depositor is None or self.keeper.deposit(view, p.id, depositor) is not None)]
        return paginate(items, request.pagination)

    def one_vote(self, request, view):
        pid = self.proposal_id(request.proposal_id)
        v = self.keeper.vote(view, pid, self.address(request.voter, "empty voter address"))
        if v is None:
            raise errors.not_found(f"voter: {request.voter} not found for proposal: {pid}")
        return v

    def votes_page(self, request, view):
        return paginate(self.keeper.votes(view, self.proposal_id(request.proposal_id)), request.pagination)

    def one_deposit(self, request, view):
        pid = self.proposal_id(request.proposal_id)
        d = self.keeper.deposit(view, pid, self.address(request.depositor, "empty depositor address"))
        if d is None:
            raise errors.not_found(f"depositer: {request.depositor} not found for proposal: {pid}")
        return d

    def deposits_page(self, request, view):
        return paginate(self.keeper.deposits(view, self.proposal_id(request.proposal_id)), request.pagination)

    def tally_of(self, request, view):
        p = self.existing(view, request.proposal_id)
        if p.status == gov_pb2.PROPOSAL_STATUS_DEPOSIT_PERIOD:
            return empty_result()
        if p.status in ENDED:
            return p.final_tally_result
        _, _, result = tally(self.app, view, p, lambda voter: None)
        return result

    @query
    def Proposals(self, request, view):
        found, page = self.proposals_page(request, view)
        return query_pb2.QueryProposalsResponse(proposals=found, pagination=page)

    @query(inline=True)
    def Vote(self, request, view):
        return query_pb2.QueryVoteResponse(vote=self.one_vote(request, view))

    @query
    def Votes(self, request, view):
        found, page = self.votes_page(request, view)
        return query_pb2.QueryVotesResponse(votes=found, pagination=page)

    @query(inline=True)
    def Params(self, request, view):
        p = self.keeper.params(view)
        response = query_pb2.QueryParamsResponse(params=p)
        if request.params_type == "deposit":
            response.deposit_params.min_deposit.extend(p.min_deposit)
            response.deposit_params.max_deposit_period.CopyFrom(p.max_deposit_period)
        elif request.params_type == "voting":
            response.voting_params.voting_period.CopyFrom(p.voting_period)
        elif request.params_type == "tallying":
            response.tally_params.CopyFrom(gov_pb2.TallyParams(quorum=p.quorum, threshold=p.threshold,
                                                                veto_threshold=p.veto_threshold))
        elif request.params_type:
            raise errors.invalid_argument(f"unknown params type: {request.params_type}")
        return response

    @query(inline=True)
    def Deposit(self, request, view):
        return query_pb2.QueryDepositResponse(deposit=self.one_deposit(request, view))

    @query
    def Deposits(self, request, view):
        found, page = self.deposits_page(request, view)
        return query_pb2.QueryDepositsResponse(deposits=found, pagination=page)

    @query
    def TallyResult(self, request, view):
        return query_pb2.QueryTallyResultResponse(tally=self.tally_of(request, view))
