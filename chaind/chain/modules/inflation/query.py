"""evmos.inflation.v1.Query: Period, EpochMintProvision, SkippedEpochs, CirculatingSupply, InflationRate, Params."""

from chaind.chain.modules.inflation import keeper
from chaind.chain.queries import Reader, query
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.evmos.inflation.v1 import genesis_pb2, inflation_pb2, query_pb2, query_pb2_grpc


def params_proto(p):
    return genesis_pb2.Params(
        mint_denom=p.mint_denom, enable_inflation=p.enable_inflation,
        exponential_calculation=inflation_pb2.ExponentialCalculation(
            a=str(p.a), r=str(p.r), c=str(p.c), bonding_target=str(p.bonding_target),
            max_variance=str(p.max_variance)),
        inflation_distribution=inflation_pb2.InflationDistribution(
            staking_rewards=str(p.staking_rewards), usage_incentives=str(p.usage_incentives),
            community_pool=str(p.community_pool)))


class InflationQuery(Reader, query_pb2_grpc.QueryServicer):
    @property
    def keeper(self):
        return self.app.keepers["inflation"]

    @query(inline=True)
    def Period(self, request, view):
        return query_pb2.QueryPeriodResponse(period=self.keeper.schedule(view).period)

    @query(inline=True)
    def EpochMintProvision(self, request, view):
        return query_pb2.QueryEpochMintProvisionResponse(epoch_mint_provision=coin_pb2.DecCoin(
            denom=self.keeper.params(view).mint_denom,
            amount=str(self.keeper.epoch_mint_provision(view, keeper.bonded_ratio(self.app, view)))))

    @query(inline=True)
    def SkippedEpochs(self, request, view):
        return query_pb2.QuerySkippedEpochsResponse(skipped_epochs=self.keeper.schedule(view).skipped_epochs)

    @query(inline=True)
    def CirculatingSupply(self, request, view):
        return query_pb2.QueryCirculatingSupplyResponse(circulating_supply=coin_pb2.DecCoin(
            denom=self.keeper.params(view).mint_denom, amount=str(self.keeper.circulating_supply(view))))

    @query(inline=True)
    def InflationRate(self, request, view):
        return query_pb2.QueryInflationRateResponse(inflation_rate=str(
            self.keeper.inflation_rate(view, keeper.bonded_ratio(self.app, view))))

    @query(inline=True)
    def Params(self, request, view):
        return query_pb2.QueryParamsResponse(params=params_proto(self.keeper.params(view)))
