"""consensus's CLI table: params (a change goes through `tx gov submit-proposal` with a MsgUpdateParams)."""

from chaind.chain.cli_table import Queries, Query

QUERY = Queries("chaind.pb.cosmos.consensus.v1.query_pb2", "The chain's consensus parameters.", (
    Query("params", "Params", "The consensus parameters: block (max bytes and gas), evidence, validator, "
          "version and abci."),
))
