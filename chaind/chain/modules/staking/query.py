"""cosmos.staking.v1beta1.Query: validators, delegations, unbondings, redelegations, history, pool and params,
as x/staking's gRPC querier answers them (LegacyDec fields carry their atomics, as on the SDK's wire)."""

from chaind import errors
from chaind.chain.modules.staking import protos
from chaind.chain.modules.staking.numbers import PRECISION
from chaind.chain.modules.staking.records import STATUS_NAMES
from chaind.chain.queries import Reader, address_bytes, paginate, query
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.staking.v1beta1 import query_pb2, query_pb2_grpc, staking_pb2

_STATUS_BY_NAME = {name: status for status, name in STATUS_NAMES.items()}


def _page_key(*addresses):
    """The SDK's store key suffix for paging: each address length-prefixed."""
    return b"".join(bytes([len(a)]) + a for a in addresses)


class StakingQuery(Reader, query_pb2_grpc.QueryServicer):
    def __init__(self, app):
        super().__init__(app)
        self.prefix = app.genesis.bech32_prefix
        self.valoper_prefix = self.prefix + "valoper"
        self.keeper = app.keepers["staking"]

    # -- encoding ------------------------------------------------------------------------------

    def valoper(self, operator):
        return to_bech32(self.valoper_prefix, operator)

    def account(self, address):
        return to_bech32(self.prefix, address)

    def validator_proto(self, v):
        return protos.validator(v, self.valoper_prefix)

    def delegation_response(self, view, delegator, operator, shares, denom):
        v = self.keeper.validator(view, operator)
        if v is None:
            raise errors.failed("validator does not exist")
        balance = v.tokens_from_shares(shares) // PRECISION if v.shares else 0
        return staking_pb2.DelegationResponse(
            delegation=protos.delegation(self.prefix, delegator, operator, shares),
            balance=coin_pb2.Coin(denom=denom, amount=str(balance)))

    def unbonding_proto(self, delegator, operator, entries):
        return protos.unbonding(self.prefix, delegator, operator, entries)

    def redelegation_response(self, view, delegator, src, dst, entries):
        dst_v = self.keeper.validator(view, dst)
        red = protos.redelegation(self.prefix, delegator, src, dst, entries)
        responses = []
        for entry, (_, _, _, shares_dst, _) in zip(red.entries, entries, strict=True):
            # What the destination shares are worth now.
            balance = dst_v.tokens_from_shares(int(shares_dst)) // PRECISION if dst_v and dst_v.shares else 0
            responses.append(staking_pb2.RedelegationEntryResponse(redelegation_entry=entry, balance=str(balance)))
        return staking_pb2.RedelegationResponse(redelegation=red, entries=responses)

    # -- request fields --------------------------------------------------------------------------

    def _operator(self, text):
        if not text:
            raise errors.invalid_argument("validator address cannot be empty")
        return self._decode(text, self.valoper_prefix)

    def _delegator(self, text):
        if not text:
            raise errors.invalid_argument("delegator address cannot be empty")
        return self._decode(text, self.prefix)

    @staticmethod
    def _decode(text, prefix):
        # x/staking returns the bech32 codec's error as it is: status Unknown.
        try:
            return address_bytes(text, prefix)
        except ValueError as e:
            raise errors.failed(str(e)) from None

    # -- methods ---------------------------------------------------------------------------------

    @query
    def Validators(self, request, view):
        wanted = None
        if request.status:
            wanted = _STATUS_BY_NAME.get(request.status)
            if wanted is None:
                raise errors.invalid_argument(f"invalid validator status {request.status}")
        items = [(_page_key(v.operator), v) for v in self.keeper.validators(view)
                 if wanted is None or v.status == wanted]
        found, page = paginate(items, request.pagination)
        return query_pb2.QueryValidatorsResponse(validators=[self.validator_proto(v) for v in found],
                                                 pagination=page)

    @query(inline=True)
    def Validator(self, request, view):
        operator = self._operator(request.validator_addr)
        v = self.keeper.validator(view, operator)
        if v is None:
            raise errors.not_found(f"validator {request.validator_addr} not found")
        return query_pb2.QueryValidatorResponse(validator=self.validator_proto(v))

    @query
    def ValidatorDelegations(self, request, view):
        operator = self._operator(request.validator_addr)
        denom = self.keeper.params(view).bond_denom
        items = [(_page_key(d), (d, s)) for d, s in self.keeper.delegations_to(view, operator)]
        found, page = paginate(items, request.pagination)
        return query_pb2.QueryValidatorDelegationsResponse(
            delegation_responses=[self.delegation_response(view, d, operator, s, denom) for d, s in found],
            pagination=page)

    @query
    def ValidatorUnbondingDelegations(self, request, view):
        operator = self._operator(request.validator_addr)
        items = [(_page_key(d), (d, e)) for d, e in self.keeper.unbondings_from(view, operator)]
        found, page = paginate(items, request.pagination)
        return query_pb2.QueryValidatorUnbondingDelegationsResponse(
            unbonding_responses=[self.unbonding_proto(d, operator, e) for d, e in found], pagination=page)

    @query(inline=True)
    def Delegation(self, request, view):
        delegator = self._delegator(request.delegator_addr)
        operator = self._operator(request.validator_addr)
        shares = self.keeper.delegation(view, delegator, operator)
        if shares is None:
            raise errors.not_found(f"delegation with delegator {request.delegator_addr} "
                                   f"not found for validator {request.validator_addr}")
        denom = self.keeper.params(view).bond_denom
        return query_pb2.QueryDelegationResponse(
            delegation_response=self.delegation_response(view, delegator, operator, shares, denom))

    @query(inline=True)
    def UnbondingDelegation(self, request, view):
        delegator = self._delegator(request.delegator_addr)
        operator = self._operator(request.validator_addr)
        entries = self.keeper.unbonding(view, delegator, operator)
        if not entries:
            raise errors.not_found(f"unbonding delegation with delegator {request.delegator_addr} "
                                   f"not found for validator {request.validator_addr}")
        return query_pb2.QueryUnbondingDelegationResponse(unbond=self.unbonding_proto(delegator, operator, entries))

    @query
    def DelegatorDelegations(self, request, view):
        delegator = self._delegator(request.delegator_addr)
        denom = self.keeper.params(view).bond_denom
        items = [(_page_key(o), (o, s)) for o, s in self.keeper.delegations_of(view, delegator)]
        found, page = paginate(items, request.pagination)
        return query_pb2.QueryDelegatorDelegationsResponse(
            delegation_responses=[self.delegation_response(view, delegator, o, s, denom) for o, s in found],
            pagination=page)

    @query
    def DelegatorUnbondingDelegations(self, request, view):
        delegator = self._delegator(request.delegator_addr)
        items = [(_page_key(o), (o, e)) for o, e in self.keeper.unbondings_of(view, delegator)]
        found, page = paginate(items, request.pagination)
        return query_pb2.QueryDelegatorUnbondingDelegationsResponse(
            unbonding_responses=[self.unbonding_proto(delegator, o, e) for o, e in found], pagination=page)

    @query
    def Redelegations(self, request, view):
        req = request
        if req.delegator_addr and req.src_validator_addr and req.dst_validator_addr:
            delegator = self._delegator(req.delegator_addr)
            src, dst = self._operator(req.src_validator_addr), self._operator(req.dst_validator_addr)
            entries = self.keeper.redelegation(view, delegator, src, dst)
            if not entries:
                raise errors.not_found(f"redelegation not found for delegator address {req.delegator_addr} "
                                 f"from validator address {req.src_validator_addr}")
            found, page = [(delegator, src, dst, entries)], None
        elif not req.delegator_addr and req.src_validator_addr and not req.dst_validator_addr:
            src = self._operator(req.src_validator_addr)
            items = [(_page_key(d, dst), (d, src, dst, e)) for d, dst, e in self.keeper.redelegations_from(view, src)]
            found, page = paginate(items, req.pagination)
        else:
            delegator = self._decode(req.delegator_addr, self.prefix)
            items = [(_page_key(src, dst), (delegator, src, dst, e))
                     for src, dst, e in self.keeper.redelegations_of(view, delegator)]
            found, page = paginate(items, req.pagination)
        return query_pb2.QueryRedelegationsResponse(
            redelegation_responses=[self.redelegation_response(view, *item) for item in found], pagination=page)

    @query
    def DelegatorValidators(self, request, view):
        delegator = self._delegator(request.delegator_addr)
        items = [(_page_key(o), o) for o, _ in self.keeper.delegations_of(view, delegator)]
        found, page = paginate(items, request.pagination)
        validators = []
        for operator in found:
            v = self.keeper.validator(view, operator)
            if v is None:
                raise errors.failed("validator does not exist")
            validators.append(self.validator_proto(v))
        return query_pb2.QueryDelegatorValidatorsResponse(validators=validators, pagination=page)

    @query(inline=True)
    def DelegatorValidator(self, request, view):
        delegator = self._delegator(request.delegator_addr)
        operator = self._operator(request.validator_addr)
        if self.keeper.delegation(view, delegator, operator) is None:
            raise errors.failed("no delegation for (address, validator) tuple")
        v = self.keeper.validator(view, operator)
        if v is None:
            raise errors.failed("validator does not exist")
        return query_pb2.QueryDelegatorValidatorResponse(validator=self.validator_proto(v))

    @query
    def HistoricalInfo(self, request, view):
        """The header of a height and the bonded validators it began with, for the last
        historical_entries heights (the SDK stores them at BeginBlock; here both are read back)."""
        height = request.height
        if height < 0:
            raise errors.invalid_argument("height cannot be negative")
        kept = self.keeper.params(view).historical_entries
        found = self.app.block_at(height) if view.height - kept < height <= view.height else None
        if found is None or height < self.app.genesis.initial_height:
            raise errors.not_found(f"historical info for height {height} not found")
        try:
            before = self.app.view(height - 1)
        except LookupError:
            raise errors.not_found(f"historical info for height {height} not found") from None
        # NewHistoricalInfo's order: consensus power descending, then consensus address.
        bonded = sorted((self.keeper.validator(before, operator) for operator in self.keeper.last_powers(before)),
                        key=lambda v: (-v.power, v.cons_address))
        return query_pb2.QueryHistoricalInfoResponse(hist=staking_pb2.HistoricalInfo(
            header=found[0].proto(), valset=[self.validator_proto(v) for v in bonded]))

    @query(inline=True)
    def Pool(self, request, view):
        not_bonded, bonded = self.keeper.pool_balances(view)
        return query_pb2.QueryPoolResponse(pool=staking_pb2.Pool(not_bonded_tokens=str(not_bonded),
                                                                  bonded_tokens=str(bonded)))

    @query(inline=True)
    def Params(self, request, view):
        return query_pb2.QueryParamsResponse(params=protos.params(self.keeper.params(view)))
