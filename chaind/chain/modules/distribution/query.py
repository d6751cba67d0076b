"""cosmos.distribution.v1beta1.Query: params, the community pool, validators' outstanding rewards, commission and
slashes, delegators' rewards, validators and withdraw address, as x/distribution's gRPC querier answers them."""

from chaind import errors
from chaind.chain.modules.distribution import dec_coins
from chaind.chain.queries import Reader, address_bytes, paginate, query
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.distribution.v1beta1 import distribution_pb2, query_pb2, query_pb2_grpc


def _dec_coins(coins):
    return dec_coins.to_proto(coins, coin_pb2.DecCoin)


class DistributionQuery(Reader, query_pb2_grpc.QueryServicer):
    def __init__(self, app):
        super().__init__(app)
        self.prefix = app.genesis.bech32_prefix
        self.valoper_prefix = self.prefix + "valoper"
        self.keeper = app.keepers["distribution"]

    def _operator(self, text):
        if not text:
            raise errors.invalid_argument("empty validator address")
        try:
            return address_bytes(text, self.valoper_prefix)
        except ValueError as e:
            raise errors.failed(str(e)) from None

    def _delegator(self, text):
        if not text:
            raise errors.invalid_argument("empty delegator address")
        try:
            return address_bytes(text, self.prefix)
        except ValueError as e:
            raise errors.failed(str(e)) from None

    def _rewards(self, view, v, delegator, shares):
        """The rewards a withdrawal would pay now (the SDK runs IncrementValidatorPeriod on a cache context)."""
        ratio, _ = self.keeper.ending_ratio(view, v)
        return self.keeper.delegation_rewards(view, v, delegator, shares, view.height, ratio)

    @query(inline=True)
    def Params(self, request, view):
        p = self.keeper.params(view)
        return query_pb2.QueryParamsResponse(params=distribution_pb2.Params(
            community_tax=str(p.community_tax), base_proposer_reward=str(p.base_proposer_reward),
            bonus_proposer_reward=str(p.bonus_proposer_reward), withdraw_addr_enabled=p.withdraw_addr_enabled))

    @query(inline=True)
    def ValidatorDistributionInfo(self, request, view):
        operator = self._operator(request.validator_address)
        v = self.app.keepers["staking"].validator(view, operator)
        if v is None:
            raise errors.failed(f"{request.validator_address}: validator does not exist")
        shares = self.app.keepers["staking"].delegation(view, operator, operator)
        if shares is None:
            raise errors.failed("delegation does not exist")
        rewards = self._rewards(view, v, operator, shares)
        # The SDK's keeper answers the operator's account address here (sdk.AccAddress(valAdr).String()).
        return query_pb2.QueryValidatorDistributionInfoResponse(
            operator_address=to_bech32(self.prefix, operator), self_bond_rewards=_dec_coins(rewards),
            commission=_dec_coins(self.keeper.commission(view, operator)))

    @query(inline=True)
    def ValidatorOutstandingRewards(self, request, view):
        operator = self._operator(request.validator_address)
        if self.app.keepers["staking"].validator(view, operator) is None:
            raise errors.failed(f"{request.validator_address}: validator does not exist")
        return query_pb2.QueryValidatorOutstandingRewardsResponse(rewards=distribution_pb2.ValidatorOutstandingRewards(
            rewards=_dec_coins(self.keeper.outstanding(view, operator))))

    @query(inline=True)
    def ValidatorCommission(self, request, view):
        operator = self._operator(request.validator_address)
        if self.app.keepers["staking"].validator(view, operator) is None:
            raise errors.failed(f"{request.validator_address}: validator does not exist")
        return query_pb2.QueryValidatorCommissionResponse(commission=distribution_pb2.ValidatorAccumulatedCommission(
            commission=_dec_coins(self.keeper.commission(view, operator))))

    @query
    def ValidatorSlashes(self, request, view):
        if request.ending_height < request.starting_height:
            raise errors.invalid_argument(f"starting height greater than ending height ({request.starting_height} > "
                                          f"{request.ending_height})")
        operator = self._operator(request.validator_address)
        items = [(height.to_bytes(8, "big") + period.to_bytes(8, "big"),
                  distribution_pb2.ValidatorSlashEvent(validator_period=period, fraction=str(fraction)))
                 for height, period, fraction in self.keeper.slash_events(view, operator, request.starting_height,
                                                                          request.ending_height)]
        found, page = paginate(items, request.pagination)
        return query_pb2.QueryValidatorSlashesResponse(slashes=found, pagination=page)

    @query(inline=True)
    def DelegationRewards(self, request, view):
        operator = self._operator(request.validator_address)
        v = self.app.keepers["staking"].validator(view, operator)
        if v is None:
            raise errors.failed(f"{request.validator_address}: validator does not exist")
        delegator = self._delegator(request.delegator_address)
        shares = self.app.keepers["staking"].delegation(view, delegator, operator)
        if shares is None:
            raise errors.failed("delegation does not exist")
        return query_pb2.QueryDelegationRewardsResponse(rewards=_dec_coins(self._rewards(view, v, delegator, shares)))

    @query
    def DelegationTotalRewards(self, request, view):
        delegator = self._delegator(request.delegator_address)
        rewards, total = [], {}
        for operator, shares in self.app.keepers["staking"].delegations_of(view, delegator):
            v = self.app.keepers["staking"].validator(view, operator)
            earned = self._rewards(view, v, delegator, shares)
            rewards.append(distribution_pb2.DelegationDelegatorReward(
                validator_address=to_bech32(self.valoper_prefix, operator), reward=_dec_coins(earned)))
            total = dec_coins.add(total, earned)
        return query_pb2.QueryDelegationTotalRewardsResponse(rewards=rewards, total=_dec_coins(total))

    @query
    def DelegatorValidators(self, request, view):
        delegator = self._delegator(request.delegator_address)
        return query_pb2.QueryDelegatorValidatorsResponse(
            validators=[to_bech32(self.valoper_prefix, o)
                        for o, _ in self.app.keepers["staking"].delegations_of(view, delegator)])

    @query(inline=True)
    def DelegatorWithdrawAddress(self, request, view):
        delegator = self._delegator(request.delegator_address)
        return query_pb2.QueryDelegatorWithdrawAddressResponse(
            withdraw_address=to_bech32(self.prefix, self.keeper.withdraw_address(view, delegator)))

    @query(inline=True)
    def CommunityPool(self, request, view):
        return query_pb2.QueryCommunityPoolResponse(pool=_dec_coins(self.keeper.community_pool(view)))
