"""feemarket's CLI table: the EIP-1559 base fee, the block's gas and the module's parameters."""

from chaind.chain.cli_table import Queries, Query

_HELP = "The EIP-1559 base fee and its parameters."

QUERY = Queries("chaind.pb.ethermint.feemarket.v1.query_pb2", _HELP, (
    Query("base-fee", "BaseFee", "The base fee of the block at --height (default latest)."),
    Query("block-gas", "BlockGas", "The gas used by the block at --height."),
    Query("params", "Params", "The feemarket module's parameters."),
))
