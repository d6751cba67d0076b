"""x/feemarket: the EIP-1559 base fee and its block events; ethermint.feemarket.v1.Query."""

from chaind.chain.module import Module, QueryService
from chaind.chain.modules.feemarket.base_fee import next_base_fee
from chaind.chain.modules.feemarket.end_block import end_block
from chaind.chain.modules.feemarket.query import FeeMarketQuery
from chaind.pb.ethermint.feemarket.v1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "next_base_fee")

MODULE = Module(
    name="feemarket",
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: FeeMarketQuery(app)),),
    end_block=end_block,
    cli="chaind.chain.modules.feemarket.cli",
)
