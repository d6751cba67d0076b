"""x/feemarket (Evmos v20): the EIP-1559 base fee driven by each block's gas wanted, min_gas_price, its block
events; MsgUpdateParams; ethermint.feemarket.v1.Query."""

from chaind.chain.module import Module, QueryService
from chaind.chain.modules.feemarket.base_fee import next_base_fee
from chaind.chain.modules.feemarket.end_block import block_events, end_block
from chaind.chain.modules.feemarket.genesis import GENESIS
from chaind.chain.modules.feemarket.keeper import FeemarketKeeper
from chaind.chain.modules.feemarket.msgs import AMINO_SHAPES, MESSAGES
from chaind.chain.modules.feemarket.query import FeeMarketQuery
from chaind.pb.ethermint.feemarket.v1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "FeemarketKeeper", "block_events", "next_base_fee")

MODULE = Module(
    name="feemarket",
    keeper=lambda app: FeemarketKeeper(),
    messages=MESSAGES,
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: FeeMarketQuery(app)),),
    genesis=GENESIS,
    end_block=end_block,
    amino_shapes=AMINO_SHAPES,
    cli="chaind.chain.modules.feemarket.cli",
)
