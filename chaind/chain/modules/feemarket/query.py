"""ethermint.feemarket.v1.Query, as Evmos' x/feemarket querier answers."""

from chaind.chain.queries import Reader, query
from chaind.pb.ethermint.feemarket.v1 import feemarket_pb2
from chaind.pb.ethermint.feemarket.v1 import query_pb2 as fm_query_pb2
from chaind.pb.ethermint.feemarket.v1 import query_pb2_grpc as fm_query_pb2_grpc


class FeeMarketQuery(Reader, fm_query_pb2_grpc.QueryServicer):
    def _base_fee(self, view, p):
        return "" if p.no_base_fee else str(self.app.block_at(view.height)[1].base_fee)

    @query(inline=True)
    def Params(self, request, view):
        p = self.app.keepers["feemarket"].params(view)
        # The base fee param moves every block: it is the one of the block at the height read.
        return fm_query_pb2.QueryParamsResponse(params=feemarket_pb2.Params(
            no_base_fee=p.no_base_fee, base_fee_change_denominator=p.base_fee_change_denominator,
            elasticity_multiplier=p.elasticity_multiplier, enable_height=p.enable_height,
            base_fee=self._base_fee(view, p), min_gas_price=str(p.min_gas_price),
            min_gas_multiplier=str(p.min_gas_multiplier)))

    @query(inline=True)
    def BaseFee(self, request, view):
        p = self.app.keepers["feemarket"].params(view)
        return fm_query_pb2.QueryBaseFeeResponse(base_fee=self._base_fee(view, p))

    @query(inline=True)
    def BlockGas(self, request, view):
        # x/feemarket's EndBlock stored it: the block's gas wanted times min_gas_multiplier, or its gas used if more.
        return fm_query_pb2.QueryBlockGasResponse(gas=self.app.block_at(view.height)[1].block_gas)
