"""ethermint.feemarket.v1.Query, as Evmos' x/feemarket querier answers."""

import fractions

from chaind.chain import legacy_dec
from chaind.chain.queries import Reader, query
from chaind.pb.ethermint.feemarket.v1 import feemarket_pb2
from chaind.pb.ethermint.feemarket.v1 import query_pb2 as fm_query_pb2
from chaind.pb.ethermint.feemarket.v1 import query_pb2_grpc as fm_query_pb2_grpc


class FeeMarketQuery(Reader, fm_query_pb2_grpc.QueryServicer):
    def __init__(self, app):
        super().__init__(app)
        self.genesis = app.genesis
        self.params = app.genesis.document["app_state"]["feemarket"]["params"]
        self.min_gas_multiplier = fractions.Fraction(self.params["min_gas_multiplier"])
        # Genesis writes these LegacyDec params as decimals; the gRPC wire carries them scaled by 10^18.
        self.min_gas_price_atomics = legacy_dec.wire_of_text(self.params["min_gas_price"])
        self.min_gas_multiplier_atomics = legacy_dec.wire_of_text(self.params["min_gas_multiplier"])

    def _base_fee(self, view):
        return "" if self.genesis.no_base_fee else str(self.app.block_at(view.height)[1].base_fee)

    @query(inline=True)
    def Params(self, request, view):
        p = self.params
        # The base fee param moves every block: it is the one of the block at the height read.
        return fm_query_pb2.QueryParamsResponse(params=feemarket_pb2.Params(
            no_base_fee=self.genesis.no_base_fee, base_fee_change_denominator=self.genesis.base_fee_change_denominator,
            elasticity_multiplier=self.genesis.elasticity_multiplier, enable_height=int(p["enable_height"]),
            base_fee=self._base_fee(view), min_gas_price=self.min_gas_price_atomics,
            min_gas_multiplier=self.min_gas_multiplier_atomics))

    @query(inline=True)
    def BaseFee(self, request, view):
        return fm_query_pb2.QueryBaseFeeResponse(base_fee=self._base_fee(view))

    @query(inline=True)
    def BlockGas(self, request, view):
        # x/feemarket's EndBlock: the block's gas wanted times min_gas_multiplier, or its gas used if more.
        _, meta = self.app.block_at(view.height)
        wanted = sum(self.app.result_at(view.height, i).gas_wanted for i in range(meta.num_txs))
        return fm_query_pb2.QueryBlockGasResponse(gas=max(int(wanted * self.min_gas_multiplier), meta.gas_used))
